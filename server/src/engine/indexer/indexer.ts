/**
 * The indexing run: discovery → change detection → chunking → store + lexical index.
 *
 * Change detection compares each discovered file with its record (size + mtime, then content hash),
 * so a re-run touches only new, changed and deleted files. Files are processed in batches; each batch
 * is committed in order — chunks to LanceDB, then the lexical segment, then the file records — so an
 * interrupted run loses nothing committed and re-processes only the unfinished batch next time.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { QuarryConfig } from '../config/schema';
import type { Chunk, DiscoveredFile, SkippedFile, SkipReason } from '../types';
import { classifyPath, discover } from '../discovery';
import type { DiscoveryResult } from '../discovery';
import type { ChunkStore, FileRecord } from '../store/chunkStore';
import type { LexicalIndex } from '../store/lexical/lexicalIndex';
import { lexicalDocForChunk } from './lexicalDoc';
import { discoverKnowledge, isKnowledgePath, knowledgeFile } from './knowledge';
import { tally } from '../counts';
import { derivedConformanceLanguages } from '../chunking/languages/registry';
import type { DerivedConformanceSummary } from '../chunking/languages/types';
import { memoryFile, isMemoryPath } from './memorySources';
import { prepareFile, type FileJob, type FileWork } from './fileWork';
import { ChunkPool, POOL_MIN_FILES } from './chunkPool';
import { releaseIndexingMemos, RELEASE_AFTER_CHUNKS } from '../indexingMemos';
import { DEFAULT_BATCH_BYTES, sizedBatches } from '../batches';
import { QUICK_AHEAD_BYTES, QUICK_MIN_FILES, QuickPass, type QuickPassSummary } from './quickPass';

export interface IndexProgress {
  phase: 'discovering' | 'indexing' | 'finalizing';
  filesDiscovered: number;
  filesToProcess: number;
  filesProcessed: number;
  chunksCreated: number;
  currentFile?: string;
}

export interface IndexError {
  path: string;
  operation: 'read' | 'chunk';
  message: string;
}

/** Seed 002 FR-039: more files than `discovery.maxFiles` (500,000 by default) are refused. */
export class CodebaseTooLargeError extends Error {
  constructor(readonly files: number, readonly limit: number) {
    super(
      `Codebase too large: ${files.toLocaleString('en-US')} files to index (the limit is ${limit.toLocaleString('en-US')}). ` +
        'Narrow it with discovery.exclude in .quarry/config.yml or .gitignore, or index a subfolder with --project.',
    );
    this.name = 'CodebaseTooLargeError';
  }
}

export interface IndexSummary {
  root: string;
  filesDiscovered: number;
  filesIndexed: number;
  filesUnchanged: number;
  filesRemoved: number;
  chunksCreated: number;
  chunksRemoved: number;
  /** Indexed (this run) files by language. */
  filesByLanguage: Record<string, number>;
  /** Chunks created this run, by kind. */
  chunksByKind: Record<string, number>;
  skippedByReason: Partial<Record<SkipReason, number>>;
  /**
   * The skipped files with their reasons (discovery's and those found when reading: binary, minified, too large),
   * sorted by path; files of unknown extensions are only counted (`unknownExtensions`). At most SKIPPED_LISTED.
   */
  skipped: SkippedFile[];
  /** How many skipped files `skipped` leaves out beyond its limit. */
  skippedNotListed: number;
  unknownExtensions: Record<string, number>;
  errors: IndexError[];
  /** Things the user should know (large codebase, many failed files). */
  warnings: string[];
  durationMs: number;
  /** Totals in the index after the run. */
  totalFiles: number;
  totalChunks: number;
  /**
   * The derived-conformance passes that ran, by language id (a language definition's `derivedConformances`, e.g. Go's
   * implicit interfaces in chunking/languages/go/): when the run changed files of the language.
   */
  derivedConformances?: Record<string, DerivedConformanceSummary>;
  /**
   * Where the run's time went (ms, wall): discovery and change detection; reading and chunking files; chunk store
   * writes (LanceDB); the lexical index (documents, segment commits); file records; the end (derived conformances,
   * store maintenance, counts).
   */
  phaseMs?: { discover: number; chunk: number; store: number; lexical: number; records: number; finalize: number };
  /** The quick keyword pass, when the run made one (indexer/quickPass.ts): new files indexed as windows first. */
  quickPass?: QuickPassSummary;
}

export interface IndexOptions {
  /** Drop everything and index from scratch. */
  full?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: IndexProgress) => void;
  /** Files per committed batch (at most; default 100). */
  batchSize?: number;
  /**
   * Source bytes per committed batch (at most, unless one file is larger: it is a batch of its own; default 2 MiB):
   * a batch's chunks, lexical documents and store rows are in memory at once, and so are the next batch's prepared
   * files, so a folder of large generated files must not make one batch of them.
   */
  batchBytes?: number;
  /**
   * Replace a chunking worker that parsed a large file (chunkPool.ts `LARGE_PARSE_BYTES`) once it has answered its
   * jobs, so that the parser's memory does not stay at its largest for the rest of the run (long-running processes:
   * their peak memory; it costs a worker start, about half a second of CPU, per large file).
   */
  renewWorkers?: boolean;
  /**
   * Once the last batch is committed, drop the lexical index's segments from memory (read again if anything asks) and
   * collect garbage, when the run created at least `RELEASE_AFTER_CHUNKS` chunks: a one-shot `quarry index`, whose
   * process searches nothing after its lexical phase (issue 21; lexicalIndex.ts `release`).
   */
  releaseLexical?: boolean;
  /**
   * A first index of many new files (`QUICK_MIN_FILES`) indexes them as windows of lines first, so that searches find
   * every file within seconds (indexer/quickPass.ts); for runs that write the index searches read (not a rebuild's
   * new generation, which nobody reads until it is complete).
   */
  quickPass?: boolean;
  /** New files from which the quick pass runs (default `QUICK_MIN_FILES`; tests use fewer). */
  quickPassMinFiles?: number;
  /** Receives the paths whose chunks each committed batch replaced (the git metadata pass recomputes them). */
  onReplaced?: (paths: readonly string[]) => void;
  /**
   * Receives the run's new chunks: each file's as they arrive from a chunking worker, else each batch's after its rows
   * are written (the early embedder: a vector for content whose rows are not written yet is only an early cache entry).
   */
  onChunks?: (chunks: readonly Chunk[]) => void;
  /** Receives each committed batch (the FR-034 checkpoint). */
  checkpoint?: { batch(paths: string[], chunks: number, errors: string[]): void; tick(): void };
  /**
   * Only these workspace-relative paths (file-watch events, saves): each is classified by the same rules as a
   * full discovery, and a path that no longer qualifies (deleted, now ignored) loses its chunks.
   */
  paths?: string[];
}

export interface IndexTarget {
  root: string;
  config: QuarryConfig;
  store: ChunkStore;
  lexical: LexicalIndex;
}

const bump = tally;

export async function runIndex(target: IndexTarget, options: IndexOptions = {}): Promise<IndexSummary> {
  const started = Date.now();
  const { root, config, store, lexical } = target;
  const progress: IndexProgress = { phase: 'discovering', filesDiscovered: 0, filesToProcess: 0, filesProcessed: 0, chunksCreated: 0 };
  const report = () => options.onProgress?.({ ...progress });
  report();
  const phaseMs = { discover: 0, chunk: 0, store: 0, lexical: 0, records: 0, finalize: 0 };
  let mark = Date.now();
  /** Adds the time since the last lap to `phase`. */
  const lap = (phase: keyof typeof phaseMs) => {
    const now = Date.now();
    phaseMs[phase] += now - mark;
    mark = now;
  };

  if (options.full) {
    await store.clear();
    lexical.clear();
    await lexical.commit();
  }

  const found = options.paths
    ? await classifyPaths(root, config, options.paths)
    : await discover(root, config.discovery, {
        signal: options.signal,
        onFile: (n) => {
          progress.filesDiscovered = n;
          if (n % 500 === 0) report();
        },
      });
  // Configured knowledge folders (seed 003 FR-3): their Markdown files count even where discovery skips them.
  const knowledgeWarnings: string[] = [];
  if (!options.paths && config.knowledge.folders.length) {
    const knowledge = await discoverKnowledge(root, config);
    knowledgeWarnings.push(...knowledge.warnings);
    mergeKnowledge(found, knowledge.files, knowledge.skipped, knowledge.folders);
  }
  // The agents' pattern log (reasoning chunks, seed 003 FR-4) lives under .quarry/, which discovery never enters.
  if (!options.paths) {
    const memory = await memoryFile(root);
    if (memory) found.files = [...found.files, memory].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  progress.filesDiscovered = found.files.length;
  if (found.files.length > config.discovery.maxFiles) throw new CodebaseTooLargeError(found.files.length, config.discovery.maxFiles);

  const summary: IndexSummary = {
    root, filesDiscovered: found.files.length, filesIndexed: 0, filesUnchanged: 0, filesRemoved: 0,
    chunksCreated: 0, chunksRemoved: 0, filesByLanguage: {}, chunksByKind: {}, skippedByReason: {},
    unknownExtensions: found.unknownExtensions, errors: [], warnings: [...knowledgeWarnings], durationMs: 0, totalFiles: 0, totalChunks: 0,
    skipped: [], skippedNotListed: 0,
  };
  for (const s of found.skipped) {
    bump(summary.skippedByReason as Record<string, number>, s.reason);
    if (s.reason !== 'unknown-extension') listSkipped(summary, s);
  }
  if (found.files.length > config.discovery.largeCodebaseFiles) {
    summary.warnings.push(`Large codebase detected (${found.files.length.toLocaleString('en-US')} files): indexing may be slow; consider discovery.exclude for generated or vendored code.`);
  }

  const records = await store.fileRecords();
  // An empty store (a first index, a full rebuild): paths written for the first time this run have no rows to
  // delete, so their batches skip the chunk and file tables' deletes (a scan of the growing table per batch).
  const storeWasEmpty = records.size === 0 && (await store.counts()).chunks === 0;
  const written = new Set<string>();
  const discovered = new Set(found.files.map((f) => f.path));
  const scope = options.paths ? new Set(options.paths) : undefined;
  const removed = [...records.keys()].filter((p) => !discovered.has(p) && (!scope || scope.has(p)));
  const candidates = found.files.filter((f) => {
    const rec = records.get(f.path);
    return !rec || rec.size !== f.size || rec.mtimeMs !== f.mtimeMs;
  });
  summary.filesUnchanged = found.files.length - candidates.length;

  // Languages of the files replaced or removed by this run: their derived conformances are recomputed at the end.
  const touched = new Set<string>();
  for (const p of removed) {
    const language = records.get(p)?.language;
    if (language) touched.add(language);
  }
  if (removed.length) {
    summary.chunksRemoved += lexical.removePaths(removed);
    await store.deleteFiles(removed);
    await lexical.commit();
    summary.filesRemoved = removed.length;
  }

  progress.phase = 'indexing';
  progress.filesToProcess = candidates.length;
  report();
  lap('discover');

  // At most 100 files per committed batch (seed 002 FR-034 checkpoints every 100 files) and 2 MiB of source.
  const batchSize = options.batchSize ?? 100;
  // A large run reads and chunks its files in worker threads (chunkPool.ts), the next batch while this one commits.
  const pool = candidates.length >= POOL_MIN_FILES ? ChunkPool.open(undefined, { renew: options.renewWorkers === true }) : undefined;
  const prepare = (batch: DiscoveredFile[]): Array<Promise<FileWork>> | undefined =>
    pool ? batch.map((f) => pool.run(fileJob(f, records.get(f.path), target), f.size)) : undefined;
  /** The run's quick keyword pass, once it has run (its windows are replaced batch by batch). */
  let quick: QuickPass | undefined;
  const commitBatch = async (batch: DiscoveredFile[], recordOf: (path: string) => FileRecord | undefined, prepared?: Array<Promise<FileWork>>): Promise<void> => {
    const chunks: Chunk[] = [];
    const fileRecords: FileRecord[] = [];
    const replaced: string[] = [];
    const touchOnly: FileRecord[] = [];
    lap('finalize');
    // One document at a time: the index keeps its postings, not its token lists (store/lexical/segment.ts
    // SegmentBuilder). When a worker chunks the files, each file's documents are built as soon as its chunks arrive,
    // beside the worker chunking the next ones (a one-batch run used to wait for the whole batch first), and the paths'
    // old documents are removed just before the commit (searches meanwhile still find them); in-process, they are
    // built while LanceDB writes the batch, below.
    const streamed = prepared !== undefined;
    const addLexical = (batchChunks: Chunk[]) => {
      for (const c of batchChunks) lexical.add([lexicalDocForChunk(c)]);
    };
    try {
      for (const [i, file] of batch.entries()) {
        options.checkpoint?.tick();
        progress.currentFile = file.path;
        const previous = recordOf(file.path);
        const outcome = applyWork(file, previous, await (prepared?.[i] ?? prepareFile(fileJob(file, previous, target))), summary);
        if (outcome.kind === 'unchanged') {
          touchOnly.push(outcome.record);
          summary.filesUnchanged++;
        } else {
          replaced.push(file.path);
          touched.add(file.language);
          fileRecords.push(outcome.record);
          if (outcome.kind === 'indexed') {
            chunks.push(...outcome.chunks);
            summary.filesIndexed++;
            bump(summary.filesByLanguage, file.language);
            for (const c of outcome.chunks) bump(summary.chunksByKind, c.kind);
          }
          if (streamed) {
            lap('chunk');
            if (outcome.kind === 'indexed') addLexical(outcome.chunks);
            if (outcome.kind === 'indexed' && outcome.chunks.length) options.onChunks?.(outcome.chunks);
            lap('lexical');
          }
        }
        progress.filesProcessed++;
        progress.chunksCreated += outcome.kind === 'indexed' ? outcome.chunks.length : 0;
      }
    } catch (e) {
      // documents added as files came in must not reach the next commit without their batch
      if (streamed) lexical.discardPending();
      throw e;
    }
    lap('chunk');
    // the paths that may have rows to replace (in an empty store, only those this run wrote already)
    const rowsToReplace = storeWasEmpty ? replaced.filter((p) => written.has(p)) : replaced;
    if (replaced.length) {
      // LanceDB writes off the main thread (phase 'store' is the wait left)
      const storeWrite = store.replacePaths(rowsToReplace, chunks);
      storeWrite.catch(() => undefined); // awaited below, where a failure is raised
      try {
        // the old documents of the paths (with a worker, not the new ones added as they came)
        // (a file's quick windows go with them: not chunks of an earlier run)
        summary.chunksRemoved += lexical.removePaths(replaced, { pending: !streamed }) - (quick?.replaced(replaced) ?? 0);
        if (!streamed) addLexical(chunks);
        await lexical.commit();
        lap('lexical');
      } finally {
        await storeWrite;
      }
      for (const p of replaced) written.add(p);
      lap('store');
      options.onReplaced?.(replaced);
      if (chunks.length && !streamed) options.onChunks?.(chunks);
    }
    await store.putFiles([...fileRecords, ...touchOnly], [...rowsToReplace, ...touchOnly.map((r) => r.path)]);
    lap('records');
    summary.chunksCreated += chunks.length;
    options.checkpoint?.batch(batch.map((f) => f.path), chunks.length, []);
    report();
  };
  const batches = sizedBatches(candidates, batchSize, options.batchBytes ?? DEFAULT_BATCH_BYTES);
  /** Batches handed to the chunking worker (their files' work promised), by index; `prepared` is the next to hand over. */
  const ahead = new Map<number, Array<Promise<FileWork>> | undefined>();
  let prepared = 0;
  const prepareThrough = (last: number) => {
    for (; prepared <= Math.min(last, batches.length - 1); prepared++) ahead.set(prepared, prepare(batches[prepared]!));
  };
  try {
    // New files of a large first index: searchable as windows of lines before they are parsed (quickPass.ts). The
    // chunking worker meanwhile starts on the first batches (about QUICK_AHEAD_BYTES of source), on the other core.
    const fresh = options.quickPass && !options.paths ? candidates.filter((f) => !records.has(f.path) && !isMemoryPath(f.path)) : [];
    if (fresh.length >= (options.quickPassMinFiles ?? QUICK_MIN_FILES)) {
      if (pool) prepareThrough(batchesWithin(batches, QUICK_AHEAD_BYTES));
      quick = await QuickPass.run(root, fresh, lexical, { maxFileSizeBytes: config.discovery.maxFileSizeBytes, minifiedLineLength: config.discovery.minifiedLineLength }, options.signal);
      summary.quickPass = quick.summary;
    }
    lap('lexical');
    for (let b = 0; b < batches.length; b++) {
      if (options.signal?.aborted) break;
      // this batch and the next: the worker chunks the next one while this one commits
      prepareThrough(b + 1);
      const current = ahead.get(b);
      ahead.delete(b);
      await commitBatch(batches[b]!, (p) => records.get(p), current);
    }
    // The pattern log may have grown while the run was going (an agent recording a pattern): read it once more.
    if (!options.paths && !options.signal?.aborted) {
      const seen = found.files.find((f) => isMemoryPath(f.path));
      const now = await memoryFile(root);
      if (now && (!seen || now.size !== seen.size || now.mtimeMs !== seen.mtimeMs)) {
        const latest = (await store.fileRecords()).get(now.path);
        await commitBatch([now], () => latest);
      }
    }

    lap('finalize');
    if (options.releaseLexical && summary.chunksCreated >= RELEASE_AFTER_CHUNKS) {
      lexical.release();
      releaseIndexingMemos(true);
    }
    progress.phase = 'finalizing';
    progress.currentFile = undefined;
    report();
    // Derived conformances (languages whose definitions have `derivedConformances`, e.g. Go: interfaces are satisfied
    // implicitly): after a run that changed files of the language, or when an index that has files of the language has
    // no derived rows yet (built before the pass existed). Also after an aborted run: what it committed stays.
    for (const { id, derived } of derivedConformanceLanguages()) {
      const hasFiles = found.files.some((f) => f.language === id) || [...records.values()].some((r) => r.language === id);
      if (!touched.has(id) && !(hasFiles && (await store.countConformancesOfKinds(derived.kinds)) === 0)) continue;
      try {
        // a large run's pass parses in the chunking worker, which goes with the run (and its parser's memory with it)
        (summary.derivedConformances ??= {})[id] = await derived.refresh(store, undefined, pool ? (files) => pool.derive(id, files) : undefined);
      } catch (e) {
        summary.warnings.push(`${derived.label} were not updated: ${(e as Error).message}`);
      }
    }
  } finally {
    await pool?.close();
    // a run that stopped early (aborted, failed) leaves no windows of files it did not reach
    try {
      await quick?.removeLeft();
    } catch (e) {
      summary.warnings.push(`The quick keyword pass's windows were not removed (${(e as Error).message}); the next run replaces them.`);
    }
  }
  summary.skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // a run over the whole workspace knows every skip: `quarry status --json` lists them (a per-file update does not)
  if (!options.paths && !options.signal?.aborted) writeSkippedRecord(root, summary);
  const skips = notableSkipsWarning(summary);
  if (skips) summary.warnings.push(skips);
  if (summary.errors.length >= 25) summary.warnings.push(`${summary.errors.length} files failed to index (seed 002 FR-009b); see the errors listed in the summary.`);
  // Compaction and index building are for whole runs; per-file updates (editor saves) stay fast.
  if (!options.paths) await store.maintain();
  const counts = await store.counts();
  summary.totalFiles = counts.files;
  summary.totalChunks = counts.chunks;
  lap('finalize');
  summary.phaseMs = phaseMs;
  summary.durationMs = Date.now() - started;
  return summary;
}

/**
 * Adds the knowledge folders' files to a discovery result (files discovery already has stay as they are). A skipped
 * entry for a walked knowledge folder itself (gitignored or hidden) or for a file now indexed is dropped; the
 * folders' own skips (too large, unreadable) are added.
 */
function mergeKnowledge(found: DiscoveryResult, files: DiscoveredFile[], skipped: DiscoveryResult['skipped'], folders: string[]): void {
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const have = new Set(found.files.map((f) => f.path));
  const added = files.filter((f) => !have.has(f.path));
  if (added.length) found.files = [...found.files, ...added].sort(byPath);
  const indexed = new Set(found.files.map((f) => f.path));
  const walked = new Set(folders);
  const own = new Set(skipped.map((s) => s.path));
  found.skipped = [...found.skipped.filter((s) => !indexed.has(s.path) && !walked.has(s.path) && !own.has(s.path)), ...skipped].sort(byPath);
}

/** The index of the last batch that ends within `bytes` of source from the start (at least the first). */
function batchesWithin(batches: readonly DiscoveredFile[][], bytes: number): number {
  let total = 0;
  for (let i = 0; i < batches.length; i++) {
    total += batches[i]!.reduce((s, f) => s + f.size, 0);
    if (total > bytes) return Math.max(0, i - 1);
  }
  return batches.length - 1;
}

/** Discovery restricted to some paths: the same rules, one path at a time. */
async function classifyPaths(root: string, config: QuarryConfig, paths: string[]): Promise<DiscoveryResult> {
  const result: DiscoveryResult = { files: [], skipped: [], unknownExtensions: {}, totalSeen: 0 };
  for (const p of [...new Set(paths)].sort()) {
    if (isMemoryPath(p)) {
      // the pattern log: indexed while it exists; gone = its reasoning chunks go
      const m = await memoryFile(root);
      result.totalSeen++;
      if (m) result.files.push(m);
      continue;
    }
    if (config.knowledge.folders.length && isKnowledgePath(root, config, p)) {
      // a Markdown file of a knowledge folder: indexed even where discovery's rules would skip it
      const k = await knowledgeFile(root, p, config);
      result.totalSeen++;
      if ('absPath' in k) result.files.push(k);
      else result.skipped.push(k);
      continue;
    }
    const c = await classifyPath(root, p, config.discovery);
    result.totalSeen++;
    if ('absPath' in c) result.files.push(c);
    else result.skipped.push(c);
  }
  return result;
}

type FileOutcome =
  | { kind: 'indexed'; chunks: Chunk[]; record: FileRecord }
  | { kind: 'skipped'; record: FileRecord }
  | { kind: 'unchanged'; record: FileRecord };

/** `.quarry/skipped.json`: the last whole-workspace run's skipped files (path, reason, detail) for `status`. */
export const SKIPPED_FILE = 'skipped.json';

export interface SkippedRecord {
  at: string;
  byReason: Record<string, number>;
  files: SkippedFile[];
  notListed: number;
}

function writeSkippedRecord(root: string, summary: IndexSummary): void {
  const record: SkippedRecord = { at: new Date().toISOString(), byReason: summary.skippedByReason as Record<string, number>, files: summary.skipped, notListed: summary.skippedNotListed };
  const path = join(root, '.quarry', SKIPPED_FILE);
  if (!existsSync(dirname(path))) return; // an index kept elsewhere (tests driving runIndex directly)
  try {
    writeFileSync(`${path}.tmp`, JSON.stringify(record));
    renameSync(`${path}.tmp`, path);
  } catch (e) {
    rmSync(`${path}.tmp`, { force: true });
    // the list is a report, not the index: a full disk or read-only folder fails the run elsewhere, never here
    summary.warnings.push(`The list of skipped files was not saved for \`quarry status\` (${(e as Error).message}).`);
  }
}

/** The skipped files of the last whole-workspace run, or undefined when none was recorded (or it is unreadable). */
export function readSkippedRecord(quarryDir: string): SkippedRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(join(quarryDir, SKIPPED_FILE), 'utf8')) as SkippedRecord;
    return Array.isArray(r.files) ? r : undefined;
  } catch {
    return undefined;
  }
}

/** The most skipped files an index summary lists by name (the rest are counted in `skippedNotListed`). */
export const SKIPPED_LISTED = 1000;

function listSkipped(summary: IndexSummary, s: SkippedFile): void {
  if (summary.skipped.length < SKIPPED_LISTED) summary.skipped.push(s);
  else summary.skippedNotListed++;
}

/** Skip reasons that usually mean a file the user expected in the index: named in a warning. */
const NOTABLE_SKIPS: ReadonlySet<string> = new Set(['binary', 'too-large', 'unreadable', 'symlink-loop', 'symlink-outside-workspace', 'minified']);

/** One warning naming the files skipped for notable reasons (a few by name; `--json` lists them all). */
function notableSkipsWarning(summary: IndexSummary): string | undefined {
  const notable = summary.skipped.filter((s) => NOTABLE_SKIPS.has(s.reason));
  if (!notable.length) return undefined;
  const show = notable.slice(0, 5).map((s) => `${printablePath(s.path)} (${s.reason}${s.detail ? `: ${s.detail}` : ''})`);
  const more = notable.length > show.length ? `, and ${notable.length - show.length} more` : '';
  return `${notable.length} file${notable.length === 1 ? ' was' : 's were'} not indexed: ${show.join(', ')}${more} — \`quarry index --json\` lists every skipped file with its reason.`;
}

/** A path with control characters (newline, tab, ...) escaped, for one-line messages and tables. */
export function printablePath(p: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f]/.test(p) ? JSON.stringify(p).slice(1, -1) : p;
}

/** What a file's work needs: its path, the hash of its indexed content, how to read it, how to chunk it. */
function fileJob(file: DiscoveredFile, previous: FileRecord | undefined, target: IndexTarget): FileJob {
  const memory = isMemoryPath(file.path);
  return {
    path: file.path,
    absPath: file.absPath,
    language: file.language,
    ...(previous ? { previousHash: previous.hash } : {}),
    read: {
      // the pattern log is compacted (memory/patterns.ts) but may outgrow the limits meant for source files,
      // and its one-event-per-line JSON would look minified
      maxFileSizeBytes: memory ? Math.max(64 * 1048576, target.config.discovery.maxFileSizeBytes) : target.config.discovery.maxFileSizeBytes,
      minifiedLineLength: target.config.discovery.minifiedLineLength,
      detectMinified: !memory,
    },
    chunking: target.config.chunking,
  };
}

/** A file's outcome from its work (fileWork.ts: read, hashed, chunked, retried once), counted in the summary. */
function applyWork(file: DiscoveredFile, previous: FileRecord | undefined, work: FileWork, summary: IndexSummary): FileOutcome {
  const record = (hash: string, chunkCount: number): FileRecord => ({
    path: file.path, size: file.size, mtimeMs: file.mtimeMs, hash, language: file.language, chunkCount, indexedAt: Date.now(),
  });
  switch (work.kind) {
    case 'skip':
      bump(summary.skippedByReason as Record<string, number>, work.skip);
      listSkipped(summary, { path: file.path, reason: work.skip, detail: work.detail });
      return { kind: 'skipped', record: record(`skipped:${work.skip}`, 0) };
    case 'unchanged':
      return { kind: 'unchanged', record: { ...previous!, size: file.size, mtimeMs: file.mtimeMs } };
    case 'chunks':
      return { kind: 'indexed', chunks: work.chunks, record: record(work.hash, work.chunks.length) };
    case 'error':
      summary.errors.push(work.error);
      // Leave no stale chunks behind, and record size -1 so that the next run sees a change and retries it.
      return { kind: 'skipped', record: { ...record('error', 0), size: -1 } };
  }
}

