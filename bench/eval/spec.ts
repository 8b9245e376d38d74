/**
 * The frozen evaluation's query files (bench/eval/queries/<name>.yml) and the fetched trees they point into.
 * See bench/eval/README.md for the format and the discipline.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { treeChecksum as corpusTreeChecksum } from '../corpora';

export const EVAL_DIR = __dirname;
export const QUERIES_DIR = join(EVAL_DIR, 'queries');
export const EVAL_CACHE = join(EVAL_DIR, '..', '.cache', 'eval');
export const FROZEN_PATH = join(EVAL_DIR, 'frozen.json');

export const CATEGORIES = ['symbol', 'behaviour', 'architecture', 'implements', 'documentation', 'tests'] as const;
export type Category = (typeof CATEGORIES)[number];

export interface RepoSpec {
  name: string;
  language: string;
  source: 'npm' | 'debian';
  package: string;
  version: string;
  subdir: string;
}

export interface EvalTarget {
  path: string;
  /** 1-based inclusive; absent = the whole file. */
  lines?: [number, number];
}

export interface EvalQuery {
  id: string;
  category: Category;
  query: string;
  relevant: EvalTarget[];
  secondary: EvalTarget[];
}

export interface QueryFile {
  file: string;
  repo: RepoSpec;
  queries: EvalQuery[];
}

/** The query files in name order (the order the frozen hash is taken in). */
export function queryFileNames(): string[] {
  return readdirSync(QUERIES_DIR).filter((f) => f.endsWith('.yml') || f.endsWith('.yaml')).sort();
}

function targets(v: unknown, where: string): EvalTarget[] {
  if (v == null) return [];
  if (!Array.isArray(v)) throw new Error(`${where}: expected a list`);
  return v.map((t, i) => {
    if (!t || typeof t.path !== 'string') throw new Error(`${where}[${i}]: a target needs a path`);
    if (t.lines !== undefined) {
      const l = t.lines;
      if (!Array.isArray(l) || l.length !== 2 || !Number.isInteger(l[0]) || !Number.isInteger(l[1]) || l[0] < 1 || l[1] < l[0]) {
        throw new Error(`${where}[${i}]: lines must be [start, end], 1-based, start <= end`);
      }
      return { path: t.path, lines: [l[0], l[1]] as [number, number] };
    }
    return { path: t.path };
  });
}

export function loadQueryFile(file: string): QueryFile {
  const doc = parse(readFileSync(join(QUERIES_DIR, file), 'utf8')) as { repo: RepoSpec; queries: Array<Record<string, unknown>> };
  const r = doc?.repo;
  if (!r || !r.name || !r.package || !r.version || !['npm', 'debian'].includes(r.source)) throw new Error(`${file}: incomplete repo block`);
  const repo: RepoSpec = { name: String(r.name), language: String(r.language ?? ''), source: r.source, package: String(r.package), version: String(r.version), subdir: String(r.subdir ?? '') };
  const queries: EvalQuery[] = (doc.queries ?? []).map((q, i) => {
    const where = `${file} query ${String(q.id ?? i)}`;
    if (typeof q.id !== 'string' || typeof q.query !== 'string') throw new Error(`${where}: needs id and query`);
    if (!CATEGORIES.includes(q.category as Category)) throw new Error(`${where}: unknown category ${String(q.category)}`);
    const relevant = targets(q.relevant, `${where} relevant`);
    if (!relevant.length) throw new Error(`${where}: no relevant target`);
    return { id: q.id, category: q.category as Category, query: q.query, relevant, secondary: targets(q.secondary, `${where} secondary`) };
  });
  return { file, repo, queries };
}

export function loadAll(only?: string[]): QueryFile[] {
  const files = queryFileNames().map(loadQueryFile);
  const seen = new Set<string>();
  for (const f of files) {
    for (const q of f.queries) {
      if (seen.has(q.id)) throw new Error(`duplicate query id ${q.id}`);
      seen.add(q.id);
    }
  }
  return only ? files.filter((f) => only.includes(f.repo.name)) : files;
}

/** The tree a repository is indexed from: the fetched package (the subdir of it). */
export function treeDir(repo: RepoSpec): string {
  return join(EVAL_CACHE, repo.name, 'tree');
}

/** sha256 over the sorted (path, content sha256) list; `.quarry/` (the index) is not part of the tree. */
export function treeChecksum(dir: string): { files: number; bytes: number; sha256: string } {
  const { files, bytes, checksum } = corpusTreeChecksum(dir);
  return { files, bytes, sha256: checksum };
}

/** sha256 of every query file's bytes, concatenated in name order. */
export function queriesSha256(): string {
  const h = createHash('sha256');
  for (const f of queryFileNames()) h.update(readFileSync(join(QUERIES_DIR, f)));
  return h.digest('hex');
}

/** The split, fixed by the query id alone: first hex digit of sha256(id) < 8 → tune, else report. */
export function halfOf(id: string): 'tune' | 'report' {
  return parseInt(createHash('sha256').update(id).digest('hex')[0]!, 16) < 8 ? 'tune' : 'report';
}
