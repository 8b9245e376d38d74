/**
 * Query sets built from a corpus:
 * - identifier → definition: uniquely defined symbols, queried by their bare name;
 * - docstring → code (CodeSearchNet-style): the first sentence of a function's doc comment is the query,
 *   and every comment and docstring is blanked out of the indexed copy (newlines kept, so line numbers hold)
 *   so the answer cannot be found by copying the query.
 * Both sets are judged on the stripped copy. The split (train/test) is by file path hash, fixed forever,
 * so a model trained on the train split (issue 10) never sees a test file.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync, cpSync, rmSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { chunkFile } from '../server/src/engine/chunking';
import { loadGrammar, parserFor } from '../server/src/engine/chunking/parser';
import { defaultConfig } from '../server/src/engine/config/schema';
import { languageForPath } from '../server/src/engine/languages';
import type { Chunk } from '../server/src/engine/types';
import type { Target } from './metrics';
import { sample } from './metrics';

export type QuerySet = 'identifier' | 'docstring' | 'question';

export interface BenchQuery {
  set: QuerySet;
  text: string;
  language: string;
  split: 'train' | 'test';
  target: Target & { symbol: string };
  /** Every acceptable answer (natural-language questions may have several); defaults to [target]. */
  targets?: Array<Target & { symbol: string }>;
}

const CODE_KINDS = new Set(['function', 'method', 'constructor', 'class', 'struct', 'enum', 'interface', 'protocol', 'trait', 'type_alias']);

/** The docstring set's answers: documented functions and methods. */
export const DOCSTRING_KINDS: ReadonlySet<string> = new Set(['function', 'method']);
/** Documented types, for the reranker's training lists (so it also learns when a type is the answer). */
export const TYPE_DOC_KINDS: ReadonlySet<string> = new Set(['class', 'struct', 'enum', 'interface', 'protocol', 'trait', 'type_alias']);

export function splitOf(path: string): 'train' | 'test' {
  return createHash('sha1').update(path).digest()[0] < 52 ? 'test' : 'train'; // ~20% test
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.quarry' || e.name === 'node_modules' || e.name.startsWith('.git')) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** Blank out comments (and Python docstrings) with spaces, keeping every newline. */
export async function stripComments(text: string, language: string): Promise<string> {
  const info = languageForPath(`x.${language}`);
  const grammar = (info && info.id === language ? info.grammar : undefined) ?? grammarOf(language);
  if (!grammar) return text;
  const lang = await loadGrammar(grammar);
  if (!lang) return text;
  const tree = parserFor(grammar, lang).parse(text);
  if (!tree) return text;
  const ranges: Array<[number, number]> = [];
  const visit = (node: import('web-tree-sitter').Node) => {
    if (node.type.includes('comment')) {
      ranges.push([node.startIndex, node.endIndex]);
      return;
    }
    if (language === 'python' && node.type === 'expression_statement' && node.namedChildCount === 1 && node.namedChild(0)?.type === 'string') {
      const parent = node.parent;
      const first = parent?.namedChild(0);
      if (first && first.startIndex === node.startIndex && (parent!.type === 'block' || parent!.type === 'module')) {
        ranges.push([node.startIndex, node.endIndex]);
        return;
      }
    }
    for (let i = 0; i < node.childCount; i++) visit(node.child(i)!);
  };
  visit(tree.rootNode);
  tree.delete();
  if (!ranges.length) return text;
  const chars = text.split('');
  for (const [a, b] of ranges) for (let i = a; i < b; i++) if (chars[i] !== '\n' && chars[i] !== '\r') chars[i] = ' ';
  return chars.join('');
}

function grammarOf(language: string): string | undefined {
  const map: Record<string, string> = { typescript: 'typescript', tsx: 'tsx', javascript: 'javascript', python: 'python', go: 'go', rust: 'rust', java: 'java', csharp: 'c_sharp', kotlin: 'kotlin', swift: 'swift', c: 'c', cpp: 'cpp', ruby: 'ruby', php: 'php' };
  return map[language];
}

/** The first sentence of a doc comment, without its final punctuation (the docstring set's query; also training's). */
export function firstSentence(doc: string): string {
  const flat = doc.replace(/\s+/g, ' ').trim();
  const m = flat.match(/^(.+?[.!?])(\s|$)/);
  return (m ? m[1] : flat).replace(/[.!?]$/, '').trim();
}

export function anchorLine(text: string, startLine: number, endLine: number, name: string): number {
  const lines = text.split('\n');
  const re = new RegExp(`(^|[^\\p{L}\\p{N}_$])${name.replace(/[$]/g, '\\$')}([^\\p{L}\\p{N}_$]|$)`, 'u');
  for (let l = startLine; l <= Math.min(endLine, lines.length); l++) if (re.test(lines[l - 1])) return l;
  return startLine;
}

export interface PreparedCorpus {
  /** The stripped copy that every system indexes. */
  dir: string;
  queries: BenchQuery[];
  files: number;
}

/**
 * Writes the stripped copy of `srcDir` (cached) and builds both query sets. `perSet` caps each set
 * (test split only, unless `allSplits`: training data for the reranker comes from corpora no benchmark uses),
 * sampled with a fixed seed.
 */
export async function prepareSets(
  srcDir: string,
  outDir: string,
  perSet: number,
  allSplits = false,
  docKinds: ReadonlySet<string> = DOCSTRING_KINDS,
): Promise<PreparedCorpus> {
  const files = listFiles(srcDir);
  const stamp = join(outDir, '.stripped-ok');
  if (!existsSync(stamp)) {
    // Start from an empty copy but keep its .quarry/ (the vector tables are a cache keyed by content hash).
    mkdirSync(outDir, { recursive: true });
    for (const entry of readdirSync(outDir)) if (entry !== '.quarry') rmSync(join(outDir, entry), { recursive: true, force: true });
    for (const f of files) {
      const dst = join(outDir, f);
      mkdirSync(dirname(dst), { recursive: true });
      const lang = languageForPath(f)?.id;
      if (lang && grammarOf(lang)) writeFileSync(dst, await stripComments(readFileSync(join(srcDir, f), 'utf8'), lang));
      else cpSync(join(srcDir, f), dst);
    }
    writeFileSync(stamp, new Date().toISOString());
  }
  const cfg = defaultConfig().chunking;
  const defs = new Map<string, number>();
  const original: Chunk[] = [];
  for (const f of files) {
    const lang = languageForPath(f);
    if (!lang?.grammar || !grammarOf(lang.id)) continue;
    let text: string;
    try {
      text = readFileSync(join(srcDir, f), 'utf8');
    } catch {
      continue;
    }
    if (text.length > 1_000_000) continue;
    const chunks = await chunkFile({ path: f, language: lang.id, content: text }, cfg);
    for (const c of chunks) {
      for (const s of new Set(c.symbols.map((x) => x.toLowerCase()))) defs.set(s, (defs.get(s) ?? 0) + 1);
      if (CODE_KINDS.has(c.kind) && c.name) original.push(c);
    }
  }
  const strippedText = new Map<string, string>();
  const stripped = (p: string) => {
    let t = strippedText.get(p);
    if (t === undefined) strippedText.set(p, (t = readFileSync(join(outDir, p), 'utf8')));
    return t;
  };
  const identifier: BenchQuery[] = [];
  const docstring: BenchQuery[] = [];
  for (const c of original) {
    const split = splitOf(c.path);
    if (split !== 'test' && !allSplits) continue;
    const target = { path: c.path, anchorLine: anchorLine(stripped(c.path), c.startLine, c.endLine, c.name), symbol: c.symbol };
    if (c.name.length >= 4 && defs.get(c.name.toLowerCase()) === 1) {
      identifier.push({ set: 'identifier', text: c.name, language: c.language, split, target });
    }
    if (docKinds.has(c.kind) && c.doc) {
      // An odd number of double quotes would be an unclosed phrase in Quarry's query language: drop them for everyone.
      const raw = firstSentence(c.doc);
      const q = (raw.match(/"/g)?.length ?? 0) % 2 ? raw.replace(/"/g, ' ').replace(/\s+/g, ' ').trim() : raw;
      const words = q.split(/\s+/).length;
      if (words >= 3 && words <= 30 && q.length <= 200 && !/^(todo|deprecated|see |copyright)/i.test(q)) {
        docstring.push({ set: 'docstring', text: q, language: c.language, split, target });
      }
    }
  }
  return { dir: outDir, files: files.length, queries: [...sample(identifier, perSet, 17), ...sample(docstring, perSet, 29)] };
}
