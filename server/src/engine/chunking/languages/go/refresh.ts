/**
 * The pass over the store: reads the Go chunks it needs, keeps per-file facts, recomputes the join and writes only the
 * difference as conformance rows of `IMPLICIT_KINDS`. It is Go's `derivedConformances` hook (see `index.ts`).
 *
 * Lifecycle: rows hang on the type's declaration chunk, so deleting a path deletes them like any conformance row;
 * the rows of unchanged types whose methods live in a changed file are fixed by re-running the pass after every
 * run that touched a Go file. The pass reads what it needs from the store (type declarations and method headers are
 * parsed with tree-sitter), keeps per-file facts in memory (checked against the file records, so another process's
 * writes are seen), recomputes the join and writes only the difference. Method headers are parsed once per distinct
 * (package context, header text) in a pass: one parse per file for the headers not seen yet, a header the parser
 * cannot recover from parsed again on its own so that it cannot spoil its neighbours.
 *
 * Measured on Go's standard library (Go 1.19 sources from the benchmark's cache: 5,555 Go files, 68k Go chunks, 19.1k
 * method headers = 9.1k distinct, 1.2k interface methods; 19,140 headers and every interface method got a signature):
 * 8.1k derived rows where matching names only gave 12.6k (the 4.5k dropped are signature mismatches such as `Read()
 * string` or `Open(string) (http.File, error)` vs `Open(string) (fs.File, error)`). On a shared machine (load 2-5),
 * in alternating runs: 1.5-2.6 s for the first pass of a process (reading the Go chunks, parsing type declarations
 * and method headers) against 1.1-2.4 s for the name-only pass on the same index (quiet pairs: 1.5 s vs 1.15 s);
 * 0.22-0.56 s for later ones (one file re-read, the join, the difference), the same as before within the noise.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DEFAULT_BATCH_BYTES, sizedBatches } from '../../../batches';
import type { ConformanceRow, FileRecord } from '../../../store/chunkStore';
import { loadGrammar, parserFor } from '../../parser';
import type { DerivedConformanceStore, DerivedConformanceSummary, DerivedFactsOffload, DerivedFileChunks } from '../types';
import { implicitConformances } from './conformance';
import { goFileFacts } from './facts';
import { IMPLICIT_KINDS, type GoChunkRow, type GoFileFacts, type GoSignatureMemo, type ImplicitRow } from './types';
import { stdInterfaceFacts } from './stdInterfaces';

const GO = 'go';

/**
 * Per-store cache of file facts. An entry is valid while the file's record is the one it was read under: the hash
 * (content) and the time the file was chunked (a re-chunk with other settings keeps the hash, not the time).
 */
const caches = new WeakMap<DerivedConformanceStore, Map<string, FactsEntry>>();
const recordToken = (r: FileRecord) => `${r.hash}@${r.indexedAt}`;
type FactsEntry = { token: string; facts: GoFileFacts };
/** Per store, the last join's rows and how many Go files it was made of (a long-running process's next pass). */
const joins = new WeakMap<DerivedConformanceStore, { rows: ImplicitRow[]; files: number }>();

/**
 * The facts are also kept on disk, in the store's folder (`derived/go-facts.json`), so that a process's first pass —
 * every `quarry index` is one — reads them instead of parsing every Go file of the index again: after one changed file
 * of the Go tree that was 5,555 files parsed (1.5–2.6 s) where one is needed (issue 21). Entries are checked against
 * the file records like the memory's, so another process's writes are seen. A new generation (a rebuild after the
 * chunker changed) starts with none. Change `FACTS_VERSION` whenever what `goFileFacts` derives changes.
 */
const FACTS_FILE = join('derived', 'go-facts.json');
const FACTS_VERSION = 1;
/**
 * Change whenever what `implicitConformances` derives from the same facts changes (2: 'implicit-embedded' rows; 3: the
 * standard library's well-known interfaces; 4: an interface name declared in several packages carries the package).
 */
const JOIN_VERSION = 4;
/** Stale files from which the facts file is rewritten (fewer are parsed again by the next process). */
const SAVE_MIN_STALE = 32;

interface FactsImage {
  version: number;
  /** [path, record token, facts] */
  files: Array<[string, string, GoFileFacts]>;
  /**
   * The join of exactly these facts (the rows and the number of files), when it was written with them. The next
   * process whose changed files all have the facts saved here (a comment, a function body) reuses it instead of
   * joining the whole index again (issue 21: ~100 ms and 70 MB of garbage of a one-file `quarry index` on the Go tree).
   */
  join?: { rows: ImplicitRow[]; files: number; version?: number };
}

/**
 * The facts saved by an earlier process, every entry of a file still in the index (those whose record token no longer
 * matches are compared with the file's new facts, then replaced), and the join saved with them; nothing when the
 * file is absent or unreadable.
 */
function readSavedFacts(dir: string, goFiles: Map<string, string>): { cache: Map<string, FactsEntry>; join?: FactsImage['join'] } {
  const cache = new Map<string, FactsEntry>();
  let image: FactsImage;
  try {
    image = JSON.parse(readFileSync(join(dir, FACTS_FILE), 'utf8')) as FactsImage;
  } catch {
    return { cache }; // none yet, or damaged: the pass parses what it needs and writes it anew
  }
  if (image?.version !== FACTS_VERSION || !Array.isArray(image.files)) return { cache };
  let complete = true;
  for (const entry of image.files) {
    const [path, token, facts] = Array.isArray(entry) && entry.length === 3 ? entry : [];
    if (typeof path === 'string' && typeof token === 'string' && facts && Array.isArray(facts.types) && Array.isArray(facts.methods)) {
      if (goFiles.has(path)) cache.set(path, { token, facts });
      else complete = false; // a file gone since: the join needs computing again
    } else complete = false;
  }
  // a join made by another version of the join is made again (the facts stay good)
  const joined = complete && Array.isArray(image.join?.rows) && image.join.files === image.files.length && image.join.version === JOIN_VERSION ? image.join : undefined;
  return { cache, join: joined };
}

/**
 * Saves the facts and, when given, their join (a temporary file renamed into place). A failure (a full disk) only
 * costs the next process a parse.
 */
function saveFacts(dir: string, cache: Map<string, FactsEntry>, joined: FactsImage['join']): void {
  const path = join(dir, FACTS_FILE);
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    const image: FactsImage = { version: FACTS_VERSION, files: [...cache].map(([p, e]) => [p, e.token, e.facts]), ...(joined ? { join: { ...joined, version: JOIN_VERSION } } : {}) };
    writeFileSync(tmp, JSON.stringify(image));
    renameSync(tmp, path);
  } catch {
    rmSync(tmp, { force: true });
  }
}

/** The standard library's well-known interfaces (`stdInterfaces.ts`), read once per process. */
let std: Promise<GoFileFacts[]> | undefined;
const stdFacts = (): Promise<GoFileFacts[]> => (std ??= stdInterfaceFacts(goFactsOf));

/** Files whose chunks are read per store query when their facts are (re)computed. */
const READ_BATCH = 500;
/** Fewer stale files than this are parsed here even when an offload is offered (a worker round trip costs more). */
const OFFLOAD_MIN_FILES = 50;

/** The facts of these files (their stored Go chunks), parsed in this thread. */
export async function goFactsOf(files: DerivedFileChunks[]): Promise<GoFileFacts[]> {
  const lang = await loadGrammar(GO);
  if (!lang) throw new Error('the Go grammar could not be loaded');
  const parser = parserFor(GO, lang);
  const memo: GoSignatureMemo = new Map();
  return files.map((f) => goFileFacts(f.path, f.chunks as GoChunkRow[], parser, memo));
}

/**
 * Recomputes the implicit Go conformances of the whole index and writes the difference. `records` are the file
 * records after the run (read from the store when omitted).
 */
export async function refreshGoImplicitConformances(store: DerivedConformanceStore, records?: Map<string, FileRecord>, offload?: DerivedFactsOffload): Promise<DerivedConformanceSummary> {
  const started = Date.now();
  records ??= await store.fileRecords();
  const goFiles = new Map<string, string>();
  for (const r of records.values()) if (r.language === GO) goFiles.set(r.path, recordToken(r));

  let cache = caches.get(store);
  if (!cache) {
    const saved = store.dir ? readSavedFacts(store.dir, goFiles) : { cache: new Map<string, FactsEntry>() };
    caches.set(store, (cache = saved.cache));
    if (saved.join && !joins.has(store)) joins.set(store, saved.join);
  }
  // the facts replaced below, to tell whether the join can change at all
  const before = new Map<string, GoFileFacts>();
  for (const p of [...cache.keys()]) {
    if (goFiles.get(p) !== cache.get(p)!.token) {
      before.set(p, cache.get(p)!.facts);
      cache.delete(p);
    }
  }
  const stale = [...goFiles.keys()].filter((p) => !cache!.has(p));
  // the chunks of the files read again: a run that re-indexed a file replaced its chunks and the rows hanging on them
  const staleChunks = new Set<string>();

  if (stale.length) {
    const elsewhere = stale.length >= OFFLOAD_MIN_FILES ? offload : undefined;
    // a batch of files at a time: only their chunks' content is held, never the whole tree's (the Go 1.19 tree's
    // content read at once added ~160 MB at the end of a cold index)
    // (and at most 2 MiB of source: a folder of generated files read at once made the run's highest memory)
    for (const group of sizedBatches(stale, READ_BATCH, DEFAULT_BATCH_BYTES, (p) => records!.get(p)?.size ?? 0)) {
      const byPath = new Map<string, GoChunkRow[]>(group.map((p) => [p, []]));
      const rows = await store.chunkColumns({ language: GO, paths: group }, ['id', 'path', 'kind', 'symbol', 'name', 'start_byte', 'content']);
      for (const r of rows) {
        staleChunks.add(r.id as string);
        byPath.get(r.path as string)?.push({
          id: r.id as string, path: r.path as string, kind: r.kind as string, symbol: r.symbol as string, name: r.name as string,
          startByte: r.start_byte as number, content: r.content as string,
        });
      }
      const files = [...byPath].map(([path, chunks]) => ({ path, chunks }));
      const facts = ((await elsewhere?.(files)) as GoFileFacts[] | undefined) ?? (await goFactsOf(files));
      facts.forEach((f, k) => cache!.set(files[k]!.path, { token: goFiles.get(files[k]!.path)!, facts: f }));
    }
  }
  // a few stale files are cheaper to parse again in the next process than the whole file is to rewrite (6.6 MB for
  // the Go tree: ~80 ms), so it is rewritten (with the join of those facts) once enough of them piled up, or when
  // every file was parsed
  const save = (joined: FactsImage['join']) => {
    if (store.dir && stale.length && (stale.length >= SAVE_MIN_STALE || stale.length === goFiles.size)) saveFacts(store.dir, cache!, joined);
  };

  // An edit that leaves every file's facts as they were (a function body, a comment: the common save) cannot change
  // the join: its rows are the last pass's (at 96k chunks the join takes ~115 ms of a save's ~200 ms pass).
  const last = joins.get(store);
  const sameFacts =
    last !== undefined &&
    last.files === goFiles.size &&
    before.size === stale.length &&
    stale.every((p) => before.has(p) && JSON.stringify(before.get(p)) === JSON.stringify(cache!.get(p)?.facts));
  if (sameFacts) {
    // The join is the last one, so the stored rows are right but for those that hung on the chunks of the files read
    // again (their re-index replaced those chunks and dropped those rows): they alone are written, without reading
    // every stored row (8k rows, 25–50 ms of a save at 96k chunks).
    const add = last.rows.filter((r) => staleChunks.has(r.chunkId));
    if (staleChunks.size) await store.replaceConformancesOfKinds(IMPLICIT_KINDS, [...staleChunks], add);
    save(last);
    return { filesRead: stale.length, rows: last.rows.length, added: add.length, removed: 0, durationMs: Date.now() - started, joinReused: true };
  }
  const desired = goFiles.size ? implicitConformances([...cache.values()].map((e) => e.facts), await stdFacts()) : [];
  joins.set(store, { rows: desired, files: goFiles.size });
  save({ rows: desired, files: goFiles.size });
  const present = await store.conformancesOfKinds(IMPLICIT_KINDS);
  const rowKey = (r: ConformanceRow) => `${r.chunkId}\0${r.protocolName}\0${r.kind}\0${r.typeName}\0${r.path}`;
  const byChunk = (rows: ConformanceRow[]) => {
    const m = new Map<string, string[]>();
    for (const r of rows) {
      const list = m.get(r.chunkId);
      if (list) list.push(rowKey(r));
      else m.set(r.chunkId, [rowKey(r)]);
    }
    for (const list of m.values()) list.sort();
    return m;
  };
  const want = byChunk(desired);
  const have = byChunk(present);
  // a chunk whose rows differ in any way gets all of its rows rewritten
  const changed = new Set<string>();
  for (const [id, keys] of want) if (have.get(id)?.join('\n') !== keys.join('\n')) changed.add(id);
  for (const id of have.keys()) if (!want.has(id)) changed.add(id);
  const add = desired.filter((r) => changed.has(r.chunkId));
  const removed = present.filter((r) => changed.has(r.chunkId)).length;
  if (changed.size) await store.replaceConformancesOfKinds(IMPLICIT_KINDS, [...changed], add);
  return { filesRead: stale.length, rows: desired.length, added: add.length, removed, durationMs: Date.now() - started };
}
