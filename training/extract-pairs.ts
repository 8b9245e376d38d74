/**
 * Builds (doc, code) training pairs from the fetched sources with Quarry's own chunker, so the code side
 * looks exactly like what the engine embeds at index time (codeView: path header, container, code).
 *
 *   npx tsx training/extract-pairs.ts        # reads training/.cache/src, writes training/.cache/pairs.jsonl
 *
 * - Query: the first sentence of the chunk's doc comment (and its first paragraph, for augmentation).
 * - Code: the chunk with every comment and docstring blanked (as the benchmark's docstring set does), so the
 *   pair cannot be solved by copying.
 * - Deduplicated by normalised code; decontaminated against every benchmark corpus (bench/corpora.ts) by
 *   exact normalised code match; capped per package so no single package dominates.
 * - Split by package: ~4% of packages are held out for validation.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, statSync, writeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { chunkFile } from '../server/src/engine/chunking';
import { defaultConfig } from '../server/src/engine/config/schema';
import { languageForPath } from '../server/src/engine/languages';
import type { Chunk } from '../server/src/engine/types';
import { CORPORA, prepareCorpora } from '../bench/corpora';
import { firstSentence, stripComments } from '../bench/sets';

const HERE = __dirname;
const SRC = join(HERE, '.cache', 'src');
const OUT = process.env.QUARRY_PAIRS ?? join(HERE, '.cache', 'pairs.jsonl');
const LANGS = new Set(['python', 'go', 'rust', 'javascript', 'typescript', 'tsx']);
const KINDS = new Set(['function', 'method', 'constructor', 'class', 'struct', 'enum', 'interface', 'protocol', 'trait']);
const MAX_PER_PACKAGE = 2500;
const MAX_FILE_BYTES = 400_000;

export interface Pair {
  pkg: string;
  lang: string;
  split: 'train' | 'valid';
  /** First sentence of the doc comment. */
  q: string;
  /** First paragraph of the doc comment (<= 400 chars). */
  doc: string;
  code: string;
  hash: string;
}

function firstParagraph(doc: string): string {
  const para = doc.trim().split(/\n\s*\n/)[0]!.replace(/\s+/g, ' ').trim();
  return para.length > 400 ? para.slice(0, para.lastIndexOf(' ', 400)) : para;
}

/** Code with whitespace removed: equal for the same code whatever its comments and layout. */
export function codeKey(code: string): string {
  return createHash('sha1').update(code.replace(/\s+/g, '')).digest('hex');
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) {
        if (e.name === 'node_modules' || e.name === 'testdata' || e.name.startsWith('.')) continue;
        walk(p);
      } else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** The path the engine would show: the package's own layout, without Debian's install prefix. */
function displayPath(pkgDir: string, file: string): string {
  return relative(pkgDir, file)
    .split('\\')
    .join('/')
    .replace(/^usr\/lib\/python3\/dist-packages\//, '')
    .replace(/^usr\/share\/gocode\/src\//, '')
    .replace(/^usr\/share\/cargo\/registry\//, '');
}

function isMinified(text: string): boolean {
  const lines = text.split('\n').length;
  return text.length / lines > 250;
}

interface ChunkedFile {
  path: string;
  language: string;
  chunks: Chunk[];
  stripped: string[];
}

async function chunkWithStripped(absPath: string, path: string): Promise<ChunkedFile | null> {
  const language = languageForPath(path)?.id;
  if (!language || !LANGS.has(language)) return null;
  if (statSync(absPath).size > MAX_FILE_BYTES) return null;
  const text = readFileSync(absPath, 'utf8');
  if (text.includes('\u0000') || isMinified(text)) return null;
  const chunks = await chunkFile({ path, language, content: text }, defaultConfig().chunking);
  const stripped = (await stripComments(text, language)).split('\n');
  return { path, language, chunks, stripped };
}

function strippedCode(f: ChunkedFile, c: Chunk): string {
  return f.stripped
    .slice(c.startLine - 1, c.endLine)
    .join('\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Normalised code of every chunk of every benchmark corpus (fetched if missing). */
async function benchKeys(): Promise<Set<string>> {
  const keys = new Set<string>();
  const infos = prepareCorpora(false, CORPORA.map((c) => c.name));
  for (const info of infos) {
    let n = 0;
    for (const file of listFiles(info.dir)) {
      const f = await chunkWithStripped(file, relative(info.dir, file)).catch(() => null);
      if (!f) continue;
      for (const c of f.chunks) keys.add(codeKey(strippedCode(f, c)));
      n++;
    }
    process.stderr.write(`extract: benchmark corpus ${info.name}: ${n} files\n`);
  }
  return keys;
}

function splitOfPackage(pkg: string): 'train' | 'valid' {
  return createHash('sha1').update(pkg).digest()[0]! < 10 ? 'valid' : 'train';
}

/** Deterministic shuffle (mulberry32). */
function shuffled<T>(xs: T[], seed: number): T[] {
  let s = seed >>> 0;
  const rnd = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = xs.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

async function main(): Promise<void> {
  if (!existsSync(SRC)) throw new Error(`extract: ${SRC} is missing. Fix: run node training/fetch-sources.mjs first.`);
  // QUARRY_NO_DECONTAMINATE=1 is for quick experiments only; the shipped model is always decontaminated.
  const contaminated = process.env.QUARRY_NO_DECONTAMINATE ? new Set<string>() : await benchKeys();
  process.stderr.write(`extract: ${contaminated.size} benchmark code keys\n`);
  const seen = new Set<string>();
  // Written synchronously: the chunker's awaits rarely yield to the event loop, so a stream would buffer everything.
  const out = openSync(OUT, 'w');
  const stats = { packages: 0, files: 0, pairs: 0, duplicate: 0, contaminated: 0, capped: 0 };
  const limit = Number(process.env.QUARRY_PACKAGES_LIMIT ?? Infinity);
  const packages = readdirSync(SRC).filter((p) => existsSync(join(SRC, p, '.ok'))).sort().filter((_, i, all) => limit >= all.length || i % Math.ceil(all.length / limit) === 0);
  for (const pkg of packages) {
    const pkgDir = join(SRC, pkg);
    const pairs: Pair[] = [];
    for (const file of listFiles(pkgDir)) {
      const path = displayPath(pkgDir, file);
      if (/(^|\/)(tests?|testing|__tests__|spec|examples?|benchmarks?|vendor)\//.test(path) || /(_test\.go|\.test\.[jt]sx?|\.spec\.[jt]sx?)$/.test(path)) continue;
      let f: ChunkedFile | null;
      try {
        f = await chunkWithStripped(file, path);
      } catch {
        continue;
      }
      if (!f) continue;
      stats.files++;
      for (const c of f.chunks) {
        if (!KINDS.has(c.kind) || !c.doc.trim()) continue;
        const q = firstSentence(c.doc);
        const words = q.split(/\s+/).length;
        if (words < 3 || words > 40 || q.length > 300 || /^(todo|deprecated|see |copyright|internal|private|noinspection)/i.test(q)) continue;
        const body = strippedCode(f, c);
        if (body.replace(/\s+/g, '').length < 20) continue;
        const key = codeKey(body);
        if (contaminated.has(key)) {
          stats.contaminated++;
          continue;
        }
        if (seen.has(key)) {
          stats.duplicate++;
          continue;
        }
        seen.add(key);
        const header = [`// ${path}`];
        if (c.container) header.push(`// in ${c.container}`);
        const code = (header.join('\n') + '\n' + body).slice(0, 16_000);
        pairs.push({ pkg, lang: f.language === 'tsx' ? 'typescript' : f.language, split: splitOfPackage(pkg), q, doc: firstParagraph(c.doc), code, hash: key });
      }
    }
    stats.packages++;
    const kept = pairs.length > MAX_PER_PACKAGE ? shuffled(pairs, 7).slice(0, MAX_PER_PACKAGE) : pairs;
    stats.capped += pairs.length - kept.length;
    if (kept.length) writeSync(out, kept.map((p) => JSON.stringify(p) + '\n').join(''));
    stats.pairs += kept.length;
    if (stats.packages % 200 === 0) process.stderr.write(`extract: ${stats.packages}/${packages.length} packages, ${stats.pairs} pairs\n`);
  }
  closeSync(out);
  process.stderr.write(`extract: ${JSON.stringify(stats)} → ${OUT}\n`);
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
