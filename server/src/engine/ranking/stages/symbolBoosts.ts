/**
 * Seed 000's symbol-aware boosts (multiplicative, so they stack as its scenarios state: 2.0 × 1.5 = 3.0):
 * - exact symbol ×2.0: a query identifier that is rare in the index (fewer than `rareTermThreshold` occurrences in the
 *   indexed text, declarations, uses, imports and comments alike: seed 000's "term appears < 10 times in index")
 *   and is one of the chunk's symbols — the names it defines or declares in its header (its conformances);
 *   common terms get none and keep plain BM25;
 * - type declaration ×1.5: the chunk declares a type named by the query (bare identifier, "what is X");
 * - protocol kind ×1.3: the query targets a protocol ("X protocol", "interface X") and the chunk is one;
 * - a protocol named in words ×2.0 (the exact-symbol factor: the name, typed as words): a natural-language query that
 *   asks for an interface, protocol or trait ("the interface a new embedding provider must implement") and spells
 *   every word of this interface's name (EmbeddingProvider);
 * - a declaration named in words ×1.3 (`nameInWords`, not a seed parameter): a natural-language description without a
 *   structural target or a typed identifier spells every word of a function's or method's own name of two content
 *   words or more (`packBatches` for "pack texts into embedding batches"); not a type's, whose names of domain nouns
 *   (`HTTPRequest`) many questions spell;
 * - conformance match ×1.5: a query identifier is among the chunk's conformances;
 * - conformance implementation ×3.0 (instead of the match boost): for "what implements X", a type declaration
 *   (class, struct, enum, protocol, ...) conforming to X; an extension or impl block that adds the conformance
 *   gets the match boost (seed 000: "extension chunk is returned and ranked with conformance boost").
 * Each boost adds its line to the explanation.
 */
import type { Candidate, Stage, StageContext } from '../candidate';
import { TYPE_DECLARATION_KINDS } from '../../types';
import { CALLABLE_KINDS } from '../../chunking/common';
import { FUNCTION_WORDS, partTokens, stemOf } from '../../tokenize/codeTokenizer';
import { stemSet } from '../../tokenize/stemSets';

import { PROTOCOL_KINDS } from './implementsPartition';
import { callsWithoutDeclaring } from './callersFirst';

function lastSegment(name: string): string {
  const parts = name.split(/\.|::/);
  return parts[parts.length - 1];
}

/** A chunk's names lower-cased, once per array (a generated file's unit may define thousands: see types.ts). */
const LOWER = new WeakMap<readonly string[], Set<string>>();
function lowerSet(names: readonly string[]): Set<string> {
  let set = LOWER.get(names);
  if (!set) LOWER.set(names, (set = new Set(names.map((s) => s.toLowerCase()))));
  return set;
}

function boost(c: Candidate, factor: number, why: string): void {
  c.score *= factor;
  c.explanation.push(`×${factor} ${why}`);
}

/** The query identifiers that the boosts look for (the form's target included), deduplicated. */
function queryNames(ctx: StageContext): string[] {
  const names = new Set<string>();
  for (const id of ctx.query.identifiers) names.add(lastSegment(id));
  if (ctx.query.form === 'identifier') names.add(lastSegment(ctx.query.text));
  if (ctx.query.target) names.add(lastSegment(ctx.query.target.name));
  return [...names].filter((n) => n.length > 1);
}

/**
 * The query names this type: case-insensitively when a name is typed all in lower case, else as written — a query
 * `languageDefinition` names the function, not the type `LanguageDefinition`.
 */
function namesType(names: readonly string[], typeName: string): boolean {
  return names.some((n) => n === typeName || (n === n.toLowerCase() && n === typeName.toLowerCase()));
}

/** A query that asks for an interface, protocol or trait in words. */
const PROTOCOL_WORD = /\b(interface|protocol|trait)s?\b/i;

/**
 * Every part of the name (`EmbeddingProvider` → embedding, provider) is among the query's words (stemmed), and the
 * name has at least `minContentParts` parts that are not function words (`mergeInto` has one: "into" says little).
 */
function namedInWords(name: string, queryParts: ReadonlySet<string>, minContentParts = 1): boolean {
  const parts = partTokens(name).filter((p) => p.length > 1);
  if (parts.filter((p) => !FUNCTION_WORDS.has(p)).length < minContentParts) return false;
  return parts.length > 0 && parts.every((p) => queryParts.has(stemOf(p)));
}

/** The declarations a description can name in words: functions and methods. */
function nameableKind(kind: string): boolean {
  return CALLABLE_KINDS.has(kind as never);
}

export const symbolBoostStage: Stage = {
  name: 'symbol-boosts',
  apply(ctx, candidates) {
    const b = ctx.ranking.boosts;
    const names = queryNames(ctx);
    const target = ctx.query.target;
    // "the interface a new embedding provider must implement": a protocol kind asked for in words, with its name
    const wordsNameProtocol = !target && ctx.query.form === 'natural' ? PROTOCOL_WORD.exec(ctx.query.text)?.[1]?.toLowerCase() : undefined;
    // a description may spell a declaration's name ("pack texts into batches": packBatches)
    const wordsNameDeclaration = !target && ctx.query.form === 'natural' && !ctx.query.identifiers.length && b.nameInWords > 1;
    if (!names.length && !wordsNameProtocol && !wordsNameDeclaration) return candidates;
    const queryParts = wordsNameProtocol || wordsNameDeclaration ? stemSet(ctx.query.text) : new Set<string>();
    const lower = names.map((n) => n.toLowerCase());
    const occurrences = new Map(lower.map((n) => [n, ctx.stats.identifierOccurrences(n, b.rareTermThreshold)]));
    const typeQuery = ctx.query.form === 'identifier' || target?.relation === 'definition' || target?.relation === 'implementations' || target?.relation === 'protocol';
    const implementsTarget = target?.relation === 'implementations' ? lastSegment(target.name).toLowerCase() : undefined;
    for (const c of candidates) {
      const chunk = c.chunk;
      if (!chunk) continue;
      // In "what implements X", X's own declaration is context, not an answer: it gets no symbol or type boost
      // (implements-partition keeps it in the top 3) so that the implementations rank first (seed 000).
      // A type of the same name that conforms to it (Go's strings.Reader satisfies io.Reader) is an answer, not context.
      if (implementsTarget && chunk.name.toLowerCase() === implementsTarget && c.conformsTo === undefined) continue;
      const defined = lowerSet(chunk.symbols);
      // (a Go embedded type keeps its package, `io.Reader`: its last name counts as the bare names of other languages)
      const declared = new Set(chunk.conformances.flatMap((s) => [s.toLowerCase(), lastSegment(s).toLowerCase()]));
      // a conformance the index proves (Go's implicit interfaces) ties the type to the name as a declared one does
      // (an interface declared outside the index is named with its package, `io.Reader`: its last name counts)
      const proven = implementsTarget !== undefined && c.conformsTo !== undefined ? lastSegment(c.conformsTo).toLowerCase() : undefined;
      for (const n of lower) {
        const seen = occurrences.get(n)!;
        if (seen < b.rareTermThreshold && (defined.has(n) || declared.has(n) || proven === n)) {
          const where = defined.has(n) ? 'defined here' : declared.has(n) ? 'named in this declaration' : 'it conforms to it (conformance index)';
          boost(c, b.exactSymbol, `exact symbol: '${n}' is rare (${seen} occurrence${seen === 1 ? '' : 's'} < ${b.rareTermThreshold}) and ${where}`);
          break;
        }
      }
      if (typeQuery && TYPE_DECLARATION_KINDS.has(chunk.kind) && chunk.kind !== 'extension' && namesType(names, chunk.name)) {
        boost(c, b.typeDeclaration, `type declaration of ${chunk.name} (${chunk.kind})`);
      }
      if (target?.relation === 'protocol' && PROTOCOL_KINDS.has(chunk.kind) && lastSegment(target.name).toLowerCase() === chunk.name.toLowerCase()) {
        boost(c, b.protocolKind, `${chunk.kind} definition for a protocol query`);
      } else if (wordsNameProtocol && PROTOCOL_KINDS.has(chunk.kind) && namedInWords(chunk.name, queryParts)) {
        boost(c, b.exactSymbol, `the query names this ${chunk.kind} in words: "${wordsNameProtocol}" and every word of ${chunk.name}`);
      } else if (wordsNameDeclaration && nameableKind(chunk.kind) && namedInWords(lastSegment(chunk.name), queryParts, 2)) {
        boost(c, b.nameInWords, `the description spells every word of its name, ${lastSegment(chunk.name)}`);
      }
      const conf = chunk.conformances.flatMap((x) => [x.toLowerCase(), lastSegment(x).toLowerCase()]);
      const implementsQuery = target?.relation === 'implementations';
      // the conformance index may know more than the chunk's declaration: Go types satisfy interfaces implicitly
      const conformsTo = c.conformsTo !== undefined ? lastSegment(c.conformsTo).toLowerCase() : undefined;
      const indexed = implementsQuery && conformsTo !== undefined && lower.includes(conformsTo) ? conformsTo : undefined;
      const hit = lower.find((n) => conf.includes(n)) ?? indexed;
      if (hit) {
        if (implementsQuery && TYPE_DECLARATION_KINDS.has(chunk.kind) && chunk.kind !== 'extension' && chunk.kind !== 'impl') {
          boost(c, b.conformanceImplementation, `implementation: ${chunk.kind} ${chunk.name || chunk.symbol} conforms to ${hit}`);
        } else {
          boost(c, b.conformanceMatch, `conformance match: conforms to ${hit}`);
        }
      }
      // the callers-first contract's own test (references, or the name whole in code; not a declaration of it)
      if (target?.relation === 'callers' && callsWithoutDeclaring(c, lastSegment(target.name))) {
        boost(c, b.callerReference, `references ${target.name}`);
      }
    }
    return candidates;
  },
};
