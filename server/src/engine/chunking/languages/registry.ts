/** Language id → AST chunker definition. A language without an entry gets the text chunker. */
import type { DerivedConformances, LanguageDefinition } from './types';
import { typescript } from './typescript';
import { tsx } from './tsx';
import { javascript } from './javascript';
import { python } from './python';
import { go } from './go';
import { rust } from './rust';
import { java } from './java';
import { csharp } from './csharp';
import { kotlin } from './kotlin';
import { swift } from './swift';
import { c } from './c';
import { cpp } from './cpp';
import { ruby } from './ruby';
import { php } from './php';

const DEFINITIONS: LanguageDefinition[] = [typescript, tsx, javascript, python, go, rust, java, csharp, kotlin, swift, c, cpp, ruby, php];

const byId = new Map(DEFINITIONS.map((d) => [d.id, d]));

export function languageDefinition(id: string): LanguageDefinition | undefined {
  return byId.get(id);
}

export function astLanguageIds(): string[] {
  return DEFINITIONS.map((d) => d.id);
}

/** The languages whose definitions derive conformances after indexing (`derivedConformances`: Go's implicit interfaces). */
export function derivedConformanceLanguages(): Array<{ id: string; derived: DerivedConformances }> {
  return DEFINITIONS.flatMap((d) => (d.derivedConformances ? [{ id: d.id, derived: d.derivedConformances }] : []));
}
