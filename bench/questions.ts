/**
 * Natural-language questions (bench/questions/<corpus>.yml): how developers and web searchers actually ask
 * ("golang read file line by line", "where does the http client follow redirects"), written by hand for the
 * benchmark corpora — none of which the code model (issue 10) trains on. Each question lists 1-3 acceptable
 * answers as (path, symbol); a hit counts when its line range covers the answer's declaration line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { BenchQuery } from './sets';
import type { Target } from './metrics';

interface QuestionFile {
  corpus: string;
  language: string;
  questions: Array<{ q: string; targets: Array<{ path: string; symbol: string }> }>;
}

export const QUESTIONS_DIR = join(__dirname, 'questions');

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const MODIFIERS = '(?:(?:export|default|public|private|protected|internal|static|async|override|readonly|abstract|final|get|set|pub(?:\\([^)]*\\))?|unsafe|const|extern|inline)\\s+)*';

/** 1-based line of the declaration of `symbol` (`name` or `Container.name`) in `text`, or undefined. */
export function declarationLine(text: string, symbol: string): number | undefined {
  const lines = text.split('\n');
  const parts = symbol.split('.');
  const name = esc(parts[parts.length - 1]!);
  const container = parts.length > 1 ? esc(parts[parts.length - 2]!) : undefined;
  const find = (re: RegExp, from = 0): number => {
    for (let i = from; i < lines.length; i++) if (re.test(lines[i]!)) return i;
    return -1;
  };
  if (container) {
    // Go: func (r *Recv[T]) Name(
    const goMethod = find(new RegExp(`^func\\s*\\(\\s*\\w*\\s*\\*?\\s*${container}(\\[[^\\]]*\\])?\\s*\\)\\s*${name}\\s*[\\[(]`));
    if (goMethod >= 0) return goMethod + 1;
    const start = find(new RegExp(`^\\s*${MODIFIERS}(?:class|struct|interface|trait|impl(?:<[^>]*>)?(?:\\s+[\\w:<>, ]+\\s+for)?|type|object|enum)\\s+${container}\\b`));
    if (start >= 0) {
      const member = find(new RegExp(`^\\s*${MODIFIERS}(?:def\\s+|async\\s+def\\s+|fn\\s+|function\\s+)?\\*?${name}\\s*(?:[(<=:]|\\?\\()`), start + 1);
      if (member >= 0) return member + 1;
    }
    return undefined;
  }
  const top = find(
    new RegExp(
      `^\\s*${MODIFIERS}(?:def|class|function\\*?|func|fn|const|let|var|type|interface|struct|enum|trait|protocol|module)\\s+${name}\\b` +
        `|^\\s+${name}\\s+(?:struct|interface)\\b` + // Go: inside a type ( ... ) block
        `|^\\s*(?:export\\s+)?(?:const|let|var)\\s+${name}\\s*=`,
    ),
  );
  return top >= 0 ? top + 1 : undefined;
}

/** The question set of a corpus (empty when it has none); answers that cannot be located are dropped with a note. */
export function loadQuestions(corpus: string, srcDir: string, notes: string[] = []): BenchQuery[] {
  const file = join(QUESTIONS_DIR, `${corpus}.yml`);
  if (!existsSync(file)) return [];
  const data = parse(readFileSync(file, 'utf8')) as QuestionFile;
  const out: BenchQuery[] = [];
  let dropped = 0;
  const cache = new Map<string, string | null>();
  const textOf = (p: string) => {
    if (!cache.has(p)) cache.set(p, existsSync(join(srcDir, p)) ? readFileSync(join(srcDir, p), 'utf8') : null);
    return cache.get(p)!;
  };
  for (const q of data.questions) {
    const targets: Array<Target & { symbol: string }> = [];
    for (const t of q.targets) {
      const text = textOf(t.path);
      const line = text === null ? undefined : declarationLine(text, t.symbol);
      if (line === undefined) dropped++;
      else targets.push({ path: t.path, anchorLine: line, symbol: t.symbol });
    }
    if (!targets.length) continue;
    out.push({ set: 'question', text: q.q, language: data.language, split: 'test', target: targets[0]!, targets });
  }
  if (dropped) notes.push(`${dropped} question answers could not be located in ${corpus} and were dropped`);
  return out;
}
