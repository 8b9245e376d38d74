/**
 * The LanceDB side of the index (`.quarry/lancedb/`): the only module that imports LanceDB.
 *
 * Tables:
 * - `chunks`        one row per chunk (content and metadata; dense vectors join later as a column)
 * - `conformances`  (chunk_id, protocol_name, path, type_name, kind) with a btree index on protocol_name; `kind` is
 *                   the declaring chunk's kind for declared conformances, or a derived kind ('implicit...': Go types
 *                   whose method sets satisfy an interface, computed after indexing by indexer/goImplicit.ts)
 * - `files`         (path, size, mtime_ms, hash, language, chunk_count, indexed_at) for incremental updates
 * - `chunk_git`     (chunk_id, path, status, commits, last_modified, computed_at): git metadata per code chunk (seed 003
 *                   FR-5.3/5.4), written after indexing by indexer/gitMetadata.ts; btree indexes on chunk_id and path
 *
 * Every write goes through one serialized queue (STACK.md: concurrent mergeInserts duplicate rows);
 * across processes, the indexer's lock keeps a single writer. Files are replaced per path: delete the
 * path's rows, then add the new ones, so re-indexing a file replaces exactly its chunks.
 */
import { scanColumn } from './tableProbe';
import * as lancedb from '@lancedb/lancedb';
import { Field, List, Schema, Utf8, Int32, Float64 } from 'apache-arrow';
import { existsSync, readFileSync, writeFileSync, rmSync, mkdirSync, accessSync, readdirSync, renameSync, constants as fsConstants } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { nameRangeOf, type Chunk, type ChunkKind, type ChunkMetadata, type ChunkSource, type NameRange, type SemanticClass, type SymbolRange } from '../types';
import type { ChunkGitInfo, GitStatus } from '../git/metadata';
import { WriteQueue } from './writeQueue';
import { SnapshotSlot, type TableSnapshot } from './tableSnapshot';
import { batchRows, columnarTable, plainRows } from './columnarRows';
import { tally } from '../counts';
import { VectorStore } from './vectorStore';
import { withFileLockAsync } from '../fileLock';
import { asEnvironmentError, StoreDamagedError } from './storeErrors';
import { compactWhenFragmented } from './tableMaintenance';

/**
 * Bump when the table layout changes: an index with another version is rebuilt (it is a cache).
 * 2: `chunks.metadata` (JSON of `Chunk.metadata`, '' when none) for conversation-log knowledge chunks.
 * 3: the `chunk_git` table (git metadata per code chunk).
 * 4: `chunks.name_line`, `name_column`, `name_end_line`, `name_end_column` (`Chunk.nameRange`, issue 18).
 * 5: `chunks.symbol_ranges` (JSON of `Chunk.symbolRanges`, '' when none): further names and where they are.
 */
export const STORE_SCHEMA_VERSION = 5;

const str = (name: string, nullable = false) => new Field(name, new Utf8(), nullable);
const strList = (name: string) => new Field(name, new List(new Field('item', new Utf8(), true)), false);
const i32 = (name: string) => new Field(name, new Int32(), false);
const f64 = (name: string) => new Field(name, new Float64(), false);

const CHUNKS_SCHEMA = new Schema([
  str('id'), str('path'), str('language'), str('kind'), str('symbol'), str('name'), str('container'),
  strList('symbols'), strList('references'), strList('conformances'),
  str('doc'), str('signature'), i32('start_line'), i32('end_line'), i32('start_byte'), i32('end_byte'),
  str('content'), str('semantic_class'), i32('token_count'), str('content_hash'), str('source'), str('metadata'),
  i32('name_line'), i32('name_column'), i32('name_end_line'), i32('name_end_column'), str('symbol_ranges'),
]);
const CONFORMANCES_SCHEMA = new Schema([str('chunk_id'), str('protocol_name'), str('path'), str('type_name'), str('kind')]);
const FILES_SCHEMA = new Schema([str('path'), f64('size'), f64('mtime_ms'), str('hash'), str('language'), i32('chunk_count'), f64('indexed_at')]);
/** commits: -1 unless status is 'tracked'; last_modified: ms since the epoch, 0 when unknown; computed_at: ms. */
const CHUNK_GIT_SCHEMA = new Schema([str('chunk_id'), str('path'), str('status'), i32('commits'), f64('last_modified'), f64('computed_at')]);

export interface FileRecord {
  path: string;
  size: number;
  mtimeMs: number;
  hash: string;
  language: string;
  chunkCount: number;
  indexedAt: number;
}

/** A chunk's stored git metadata (see git/metadata.ts for the statuses) and when it was computed. */
export interface ChunkGitRow extends ChunkGitInfo {
  /** When the row was computed (ms since the epoch): metadata older than a week may be stale (seed 003 6.4). */
  computedAt: number;
}

/** Where a chunk's lines are (`chunkSpansOf`): enough to compute its git metadata. Lines are 1-based, inclusive. */
export interface ChunkSpan {
  id: string;
  path: string;
  startLine: number;
  endLine: number;
  kind: string;
}

export interface ConformanceRow {
  chunkId: string;
  protocolName: string;
  path: string;
  typeName: string;
  kind: string;
}

/** Scalar columns of `chunks` that `chunkColumns` can read (list columns are slow to convert and not offered). */
export type ScalarChunkColumn =
  | 'id' | 'path' | 'language' | 'kind' | 'symbol' | 'name' | 'container' | 'doc' | 'signature' | 'start_line' | 'end_line'
  | 'start_byte' | 'end_byte' | 'content' | 'semantic_class' | 'token_count' | 'content_hash' | 'source';

/** Which chunks `chunkColumns` reads: one language, optionally only some paths and kinds (or all but some kinds). */
export interface ChunkColumnFilter {
  language: string;
  paths?: readonly string[];
  kinds?: readonly string[];
  excludeKinds?: readonly string[];
  /** Only chunks of these names (`Reader`). */
  names?: readonly string[];
}

export class StoreError extends Error {
  constructor(message: string, override readonly cause?: unknown) {
    super(message);
    this.name = 'StoreError';
  }
}

/** SQL string literal for LanceDB `where` clauses (raw SQL: quotes doubled). */
export function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

function sqlList(values: readonly string[]): string {
  return `(${values.map(sqlString).join(', ')})`;
}

/** Splits long IN-lists so predicates stay small. */
function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface ChunkStoreOpenOptions {
  /**
   * The LanceDB folder of the vector tables (shared by every generation of the index, see generations.ts); default
   * `<dir>/lancedb`, beside the chunk tables.
   */
  vectorDir?: string;
  /**
   * Whether the folder itself may be created (default true). A generation other than generation 0 exists before it is
   * opened: a folder that is gone (a switch removed it) is a GenerationGoneError, never a new empty store.
   */
  create?: boolean;
}

/** The generation folder to open is gone (a full rebuild switched away from it and removed it). */
export class GenerationGoneError extends Error {
  constructor(readonly dir: string) {
    super(`the index generation at ${dir} is gone (a rebuild replaced it)`);
    this.name = 'GenerationGoneError';
  }
}

export class ChunkStore {
  private readonly queue = new WriteQueue();
  private readonly vectorStores = new Map<string, Promise<VectorStore>>();
  /** The vector tables' folder; undefined = the chunk tables' connection. */
  private vectorDir?: string;
  private vectorDb?: Promise<lancedb.Connection>;
  /** In-memory read snapshots of `chunks` and `chunk_git` (long-running doors only: `keepReadSnapshots`). */
  private snapshots?: { chunks: SnapshotSlot; git: SnapshotSlot };

  private constructor(
    readonly dir: string,
    private readonly db: lancedb.Connection,
    private readonly chunks: lancedb.Table,
    private readonly conformances: lancedb.Table,
    private readonly files: lancedb.Table,
    private readonly chunkGit: lancedb.Table,
  ) {}

  /**
   * Opens the store in `<quarryDir>/lancedb`, creating tables on first use. A store written with another
   * schema version is dropped and recreated (the index is a rebuildable cache); `recreated` says so.
   *
   * Opening an existing, complete store writes nothing and takes no lock (a read-only `.quarry` stays searchable).
   * Only creating the store or its missing tables, or dropping one of another schema version, happens under
   * `store.lock`. Errors: an environmental failure (disk full, no permission, read-only file system, the lock kept
   * by another live process) is an IndexUnavailableError and nothing was changed; a table that is listed but cannot
   * be opened for another reason is a StoreDamagedError (proven damage: the caller may reset the store).
   * `problems` lists what the caller should tell the user (e.g. an unreadable store.json whose tables were kept).
   */
  static async open(quarryDir: string, options: ChunkStoreOpenOptions = {}): Promise<{ store: ChunkStore; recreated: boolean; problems: string[] }> {
    const opened = await ChunkStore.openTables(quarryDir, options);
    const vectorDir = options.vectorDir && resolve(options.vectorDir) !== resolve(opened.store.dir) ? options.vectorDir : undefined;
    opened.store.vectorDir = vectorDir;
    return opened;
  }

  private static async openTables(quarryDir: string, options: ChunkStoreOpenOptions): Promise<{ store: ChunkStore; recreated: boolean; problems: string[] }> {
    const dir = join(quarryDir, 'lancedb');
    const metaPath = join(quarryDir, 'store.json');
    const problems: string[] = [];
    const wrap = (op: string) => (e: unknown): never => {
      throw asEnvironmentError(e, op, dir);
    };
    // 1. The common case, without writing: store.json names this version and every table is there.
    if (existsSync(dir)) {
      const meta = readMeta(metaPath);
      if (meta.kind === 'ok' && meta.version === STORE_SCHEMA_VERSION) {
        const opened = await openExisting(dir).catch(wrap('opening the index'));
        if (opened) {
          await verifyTables(dir, opened);
          return { store: new ChunkStore(dir, ...opened), recreated: false, problems };
        }
      } else if (meta.kind !== 'ok') {
        // store.json missing or garbled: keep tables that have this version's layout (they are the index), say so.
        const opened = await openExisting(dir, true).catch(wrap('opening the index'));
        if (opened) {
          await verifyTables(dir, opened);
          problems.push(`${metaPath} ${meta.kind === 'missing' ? 'is missing' : `is unreadable (${meta.error})`}; the tables have this version's layout and were kept — \`quarry index\` rewrites it`);
          const store = new ChunkStore(dir, ...opened);
          store.metaStale = metaPath;
          return { store, recreated: false, problems };
        }
      }
    }
    if (options.create === false && !existsSync(quarryDir)) throw new GenerationGoneError(quarryDir);
    // 2. Create (or reset an outdated store) under a lock: two processes opening a new index at once must neither take
    // each other's half-made store (no store.json yet) for an outdated one and delete it, nor create the same table together.
    try {
      mkdirSync(quarryDir, { recursive: true });
    } catch (e) {
      // A recursive mkdir on a read-only file system can say ENOENT: ask the parent folder for the real cause.
      let cause = e;
      try {
        accessSync(dirname(quarryDir), fsConstants.W_OK);
      } catch (access) {
        cause = access;
      }
      throw asEnvironmentError(cause, 'creating the index folder', quarryDir);
    }
    const opened = await withFileLockAsync(join(quarryDir, 'store.lock'), async () => {
      let reset = false;
      if (existsSync(dir)) {
        const meta = readMeta(metaPath);
        const sameLayout = meta.kind !== 'ok' && (await openExisting(dir, true).then((t) => (t ? (closeAll(t), true) : false), () => false));
        if (meta.kind === 'ok' ? meta.version !== STORE_SCHEMA_VERSION : !sameLayout && (await hasForeignLayout(dir))) {
          // Written by another schema version: the index is a cache, so its tables are dropped (and rebuilt by the next
          // run). The vector tables beside them (generation 0), keyed by content, stay.
          for (const [name] of TABLES) rmSync(join(dir, `${name}.lance`), { recursive: true, force: true });
          reset = true;
        }
      }
      mkdirSync(dir, { recursive: true });
      const conn = await lancedb.connect(dir, { readConsistencyInterval: 0 });
      const names = new Set(await conn.tableNames());
      const table = async (name: string, schema: Schema) => (names.has(name) ? conn.openTable(name) : conn.createEmptyTable(name, schema, { existOk: true }));
      const tables = [
        conn,
        await table('chunks', CHUNKS_SCHEMA),
        await table('conformances', CONFORMANCES_SCHEMA),
        await table('files', FILES_SCHEMA),
        await table('chunk_git', CHUNK_GIT_SCHEMA),
      ] as const;
      // written last: a store.json means the tables exist
      writeFileSync(metaPath, JSON.stringify({ schemaVersion: STORE_SCHEMA_VERSION }));
      return { tables, reset };
    }).catch((e: unknown) => {
      if (e instanceof StoreDamagedError) throw e;
      const env = asEnvironmentError(e, 'opening the index', dir);
      if (env !== e) throw env;
      throw new StoreDamagedError(`the chunk store at ${dir} cannot be opened: ${(e as Error).message}`);
    });
    return { store: new ChunkStore(dir, ...opened.tables), recreated: opened.reset, problems };
  }

  /** Set when store.json was missing or unreadable on open: the first write rewrites it (`quarry index` heals it). */
  private metaStale?: string;

  private writeMetaIfStale(): void {
    if (!this.metaStale) return;
    writeFileSync(this.metaStale, JSON.stringify({ schemaVersion: STORE_SCHEMA_VERSION }));
    this.metaStale = undefined;
  }

  /** Drops every row (full rebuild). */
  async clear(): Promise<void> {
    await this.queue.run(async () => {
      this.writeMetaIfStale();
      await this.chunks.delete('true');
      await this.conformances.delete('true');
      await this.files.delete('true');
      await this.chunkGit.delete('true');
    });
  }

  /**
   * Replaces the given paths' content: deletes their chunks and conformances, then adds the new ones. An index run
   * writes the file records separately (`putFiles`) after the lexical index has committed, so that an interrupted
   * run re-processes those files next time; `records` writes them in the same step, for content whose record can
   * never match the file on disk (an editor buffer's `buffer:` hash), so that an interruption loses nothing.
   */
  async replacePaths(paths: readonly string[], chunks: readonly Chunk[], records: readonly FileRecord[] = []): Promise<void> {
    await this.queue.run(async () => {
      this.writeMetaIfStale();
      // the tables are written side by side (LanceDB runs each operation off the main thread): a buffer update of the
      // language server waits for the slowest table, not for their sum
      // a declared conformance is looked up by its name: a Go embedding written with its package (`io.Reader`, the
      // chunk keeps it) is the row `Reader`, and the ranking compares the package from the chunk (implements-partition)
      const conf = chunks.flatMap((c) =>
        c.conformances.map((p) => ({ chunk_id: c.id, protocol_name: p.slice(p.lastIndexOf('.') + 1), path: c.path, type_name: c.symbol, kind: c.kind })),
      );
      await Promise.all([
        (async () => {
          for (const group of batches(paths, 500)) await this.chunks.delete(`path IN ${sqlList(group)}`);
          if (chunks.length) await this.chunks.add(columnarTable(CHUNKS_SCHEMA, chunks.map(chunkToRow)));
        })(),
        (async () => {
          for (const group of batches(paths, 500)) await this.conformances.delete(`path IN ${sqlList(group)}`);
          if (conf.length) await this.conformances.add(columnarTable(CONFORMANCES_SCHEMA, conf));
        })(),
        this.writeFileRecords(records),
      ]);
    });
  }

  /**
   * Writes these file records, replacing the records of their paths — or, with `replacing`, only of those paths (the
   * caller knows the others have none: a first index's new files; deleting them would scan the growing table).
   */
  async putFiles(records: readonly FileRecord[], replacing?: readonly string[]): Promise<void> {
    if (!records.length) return;
    await this.queue.run(() => this.writeFileRecords(records, replacing));
  }

  /** Replaces these paths' file records (inside a queued write). */
  private async writeFileRecords(records: readonly FileRecord[], replacing?: readonly string[]): Promise<void> {
    const replace = replacing && new Set(replacing);
    for (const group of batches(records, 500)) {
      const stale = group.map((r) => r.path).filter((p) => !replace || replace.has(p));
      if (stale.length) await this.files.delete(`path IN ${sqlList(stale)}`);
      await this.files.add(
        columnarTable(
          FILES_SCHEMA,
          group.map((r) => ({
            path: r.path, size: r.size, mtime_ms: r.mtimeMs, hash: r.hash, language: r.language,
            chunk_count: r.chunkCount, indexed_at: r.indexedAt,
          })),
        ),
      );
    }
  }

  async deleteFiles(paths: readonly string[]): Promise<void> {
    if (!paths.length) return;
    await this.queue.run(async () => {
      for (const group of batches(paths, 500)) {
        const where = `path IN ${sqlList(group)}`;
        await this.chunks.delete(where);
        await this.conformances.delete(where);
        await this.files.delete(where);
        await this.chunkGit.delete(where);
      }
    });
  }

  async fileRecords(): Promise<Map<string, FileRecord>> {
    const rows = await plainRows(this.files.query().limit(Number.MAX_SAFE_INTEGER));
    const out = new Map<string, FileRecord>();
    for (const r of rows) {
      out.set(String(r.path), {
        path: String(r.path), size: Number(r.size), mtimeMs: Number(r.mtime_ms), hash: String(r.hash),
        language: String(r.language), chunkCount: Number(r.chunk_count), indexedAt: Number(r.indexed_at),
      });
    }
    return out;
  }

  /**
   * Keeps read snapshots of `chunks` (its `content` spilled to a file beside the tables, read back per row) and
   * `chunk_git` in memory (store/tableSnapshot.ts), so that
   * a search's hydration reads (getChunks, chunksByHashes, gitRowsOf) take microseconds instead of 25–30 ms each at
   * 100k chunks; while a snapshot is not of the table's live version, reads go to LanceDB as before. For long-running
   * processes (the language server, the MCP server): loading costs a scan of both tables (about a second at 100k chunks).
   */
  async keepReadSnapshots(): Promise<void> {
    const liveOf = (t: lancedb.Table) => () => t.version();
    const versions = (table: string) => join(this.dir, `${table}.lance`, '_versions');
    // Spilled to a file, not held: the chunks' text and their further names' ranges (JSON; empty for most chunks, a
    // quarter of the other columns' bytes on the Go tree, where generated tables name thousands of constants).
    this.snapshots ??= {
      chunks: new SnapshotSlot(this.db, { table: 'chunks', keys: ['id', 'content_hash'], spilled: ['content', 'symbol_ranges'], spillDir: join(dirname(this.dir), 'snapshots') }, liveOf(this.chunks), versions('chunks')),
      git: new SnapshotSlot(this.db, { table: 'chunk_git', keys: ['chunk_id'] }, liveOf(this.chunkGit), versions('chunk_git')),
    };
    await Promise.all([this.snapshots.chunks.enable(), this.snapshots.git.enable()]);
  }

  /** `read` on the slot's snapshot when it is fresh; undefined otherwise, or when that read failed (the snapshot is dropped). */
  private async fromSnapshot<T>(slot: SnapshotSlot | undefined, read: (s: TableSnapshot) => Promise<T>): Promise<T | undefined> {
    const snap = await slot?.fresh().catch(() => undefined);
    if (!snap) return undefined;
    try {
      return await read(snap);
    } catch {
      slot!.drop();
      return undefined;
    }
  }

  /** Rows by a key from a snapshot, as the `IN` queries give them: the last row of a repeated key wins. */
  private static async lastByKey<T>(snap: TableSnapshot, key: string, values: readonly string[], convert: (r: Record<string, unknown>) => T, keyOf: (t: T) => string): Promise<Map<string, T>> {
    const distinct = [...new Set(values)];
    const positions = distinct.map((v) => snap.positions(key, [v]).pop()).filter((p): p is number => p !== undefined);
    const out = new Map<string, T>();
    for (const t of await snap.convertedRows(positions, convert)) out.set(keyOf(t), t);
    return out;
  }

  /** Chunks by id, in the order asked (missing ids are skipped). */
  async getChunks(ids: readonly string[]): Promise<Chunk[]> {
    if (!ids.length) return [];
    const snapped = await this.fromSnapshot(this.snapshots?.chunks, (s) => ChunkStore.lastByKey(s, 'id', ids, rowToChunk, (c) => c.id));
    if (snapped) return ids.map((id) => snapped.get(id)).filter((c): c is Chunk => c !== undefined);
    const byId = new Map<string, Chunk>();
    for (const group of batches(ids, 200)) {
      const rows = await plainRows(this.chunks.query().where(`id IN ${sqlList(group)}`).limit(group.length * 4));
      for (const r of rows) byId.set(String(r.id), rowToChunk(r));
    }
    return ids.map((id) => byId.get(id)).filter((c): c is Chunk => c !== undefined);
  }

  /** Every chunk (used to rebuild the lexical index); streamed in batches to bound memory. */
  async *allChunks(batchSize = 2000): AsyncGenerator<Chunk[]> {
    let batch: Chunk[] = [];
    for await (const rb of this.chunks.query().limit(Number.MAX_SAFE_INTEGER)) {
      for (const r of batchRows(rb)) {
        batch.push(rowToChunk(r));
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length) yield batch;
  }

  async allChunkIds(): Promise<string[]> {
    const rows = await plainRows(this.chunks.query().select(['id']).limit(Number.MAX_SAFE_INTEGER));
    return rows.map((r) => String(r.id));
  }

  /**
   * Where every chunk (or the chunks of `paths`) lies: id, path, lines and kind, read column-wise (the git metadata pass
   * reads every chunk of the index).
   */
  async chunkSpansOf(paths?: readonly string[]): Promise<ChunkSpan[]> {
    if (paths && !paths.length) return [];
    const cols = ['id', 'path', 'start_line', 'end_line', 'kind'];
    const wheres: Array<string | undefined> = paths ? batches(paths, 500).map((group) => `path IN ${sqlList(group)}`) : [undefined];
    const out: ChunkSpan[] = [];
    for (const where of wheres) {
      const q = this.chunks.query().select(cols).limit(Number.MAX_SAFE_INTEGER);
      for await (const rb of where ? q.where(where) : q) {
        const [id, path, start, end, kind] = cols.map((c) => rb.getChild(c)!);
        for (let i = 0; i < rb.numRows; i++) {
          out.push({ id: String(id.get(i)), path: String(path.get(i)), startLine: Number(start.get(i)), endLine: Number(end.get(i)), kind: String(kind.get(i)) });
        }
      }
    }
    return out;
  }

  /**
   * Replaces the git metadata of these paths: deletes their rows, then adds `rows` (which should belong to these
   * paths), stamped with `computedAt`.
   */
  async replaceGitRows(paths: readonly string[], rows: readonly ChunkGitInfo[], computedAt = Date.now()): Promise<void> {
    if (!paths.length && !rows.length) return;
    await this.queue.run(async () => {
      for (const group of batches(paths, 500)) await this.chunkGit.delete(`path IN ${sqlList(group)}`);
      for (const group of batches(rows, 5000)) {
        await this.chunkGit.add(
          columnarTable(
            CHUNK_GIT_SCHEMA,
            group.map((r) => ({
              chunk_id: r.chunkId, path: r.path, status: r.status, commits: r.status === 'tracked' ? r.commits : -1,
              last_modified: r.lastModifiedMs, computed_at: computedAt,
            })),
          ),
        );
      }
    });
  }

  /** Drops the git metadata of these paths (their chunks stay). */
  async deleteGitPaths(paths: readonly string[]): Promise<void> {
    if (!paths.length) return;
    await this.queue.run(async () => {
      for (const group of batches(paths, 500)) await this.chunkGit.delete(`path IN ${sqlList(group)}`);
    });
  }

  /** Drops all git metadata (the `git.metadata` setting turned off). */
  async clearGitRows(): Promise<void> {
    await this.queue.run(() => this.chunkGit.delete('true'));
  }

  /**
   * Git metadata of these chunks, in the order asked; chunks without a row are skipped (not computed yet, or not code:
   * knowledge and reasoning chunks never have one).
   */
  async gitRowsOf(chunkIds: readonly string[]): Promise<ChunkGitRow[]> {
    if (!chunkIds.length) return [];
    const snapped = await this.fromSnapshot(this.snapshots?.git, (s) => ChunkStore.lastByKey(s, 'chunk_id', chunkIds, rowToGit, (g) => g.chunkId));
    if (snapped) return chunkIds.map((id) => snapped.get(id)).filter((r): r is ChunkGitRow => r !== undefined);
    const byId = new Map<string, ChunkGitRow>();
    for (const group of batches(chunkIds, 200)) {
      const rows = await plainRows(this.chunkGit.query().where(`chunk_id IN ${sqlList(group)}`).limit(group.length * 4));
      for (const r of rows) byId.set(String(r.chunk_id), rowToGit(r));
    }
    return chunkIds.map((id) => byId.get(id)).filter((r): r is ChunkGitRow => r !== undefined);
  }

  /** (chunk id, path, status) of every git row, read column-wise (deciding which files to refresh). */
  async gitRowIndex(): Promise<Array<{ chunkId: string; path: string; status: GitStatus }>> {
    const out: Array<{ chunkId: string; path: string; status: GitStatus }> = [];
    for await (const rb of this.chunkGit.query().select(['chunk_id', 'path', 'status']).limit(Number.MAX_SAFE_INTEGER)) {
      const [id, path, status] = ['chunk_id', 'path', 'status'].map((c) => rb.getChild(c)!);
      for (let i = 0; i < rb.numRows; i++) out.push({ chunkId: String(id.get(i)), path: String(path.get(i)), status: String(status.get(i)) as GitStatus });
    }
    return out;
  }

  /** Git rows, all or those with one status. */
  async countGitRows(status?: string): Promise<number> {
    return this.chunkGit.countRows(status === undefined ? undefined : `status = ${sqlString(status)}`);
  }

  /** Chunks that are not of these kinds and not under this path prefix (the git pass: how many code chunks). */
  /** Chunks of these kinds (counted by LanceDB, no row read). */
  async countChunksOfKinds(kinds: readonly string[]): Promise<number> {
    return this.chunks.countRows(`kind IN ${sqlList(kinds)}`);
  }

  async countChunksExcept(kinds: readonly string[], pathPrefix: string): Promise<number> {
    return this.chunks.countRows(`kind NOT IN ${sqlList(kinds)} AND NOT starts_with(path, ${sqlString(pathPrefix)})`);
  }

  /** Conformance lookup by protocol name (uses the btree index on protocol_name once built). */
  async conformancesOf(protocolName: string): Promise<ConformanceRow[]> {
    const rows = await plainRows(this.conformances.query().where(`protocol_name = ${sqlString(protocolName)}`).limit(100_000));
    return rows.map((r) => ({
      chunkId: String(r.chunk_id), protocolName: String(r.protocol_name), path: String(r.path),
      typeName: String(r.type_name), kind: String(r.kind),
    }));
  }

  /**
   * Rows of interfaces declared outside the index whose name ends with `name` (`io.Reader`, `http.Handler` for
   * `Reader`, `Handler`: the derived rows of Go's well-known standard interfaces are stored with their package).
   */
  async conformancesQualifiedAs(name: string): Promise<ConformanceRow[]> {
    const rows = await plainRows(this.conformances.query().where(`protocol_name LIKE ${sqlString(`%.${name}`)}`).limit(100_000));
    return rows
      .map((r) => ({ chunkId: String(r.chunk_id), protocolName: String(r.protocol_name), path: String(r.path), typeName: String(r.type_name), kind: String(r.kind) }))
      .filter((r) => r.protocolName.endsWith(`.${name}`));
  }

  /**
   * Some scalar columns of the chunks that pass a filter, read column-wise (analysis passes over one language, e.g.
   * `indexer/goImplicit.ts`, read tens of thousands of rows; per-row Arrow proxies would dominate their cost).
   */
  async chunkColumns<C extends ScalarChunkColumn>(filter: ChunkColumnFilter, columns: readonly C[]): Promise<Array<Record<C, string | number>>> {
    let base = `language = ${sqlString(filter.language)}`;
    if (filter.kinds) base += ` AND kind IN ${sqlList(filter.kinds.length ? filter.kinds : [''])}`;
    if (filter.excludeKinds?.length) base += ` AND kind NOT IN ${sqlList(filter.excludeKinds)}`;
    if (filter.names) base += ` AND name IN ${sqlList(filter.names.length ? filter.names : [''])}`;
    const wheres = filter.paths ? batches(filter.paths, 500).map((group) => `${base} AND path IN ${sqlList(group)}`) : [base];
    const out: Array<Record<C, string | number>> = [];
    for (const where of wheres) {
      for await (const rb of this.chunks.query().where(where).select([...columns]).limit(Number.MAX_SAFE_INTEGER)) {
        const vectors = columns.map((c) => rb.getChild(c)!.toArray() as ArrayLike<unknown>);
        for (let i = 0; i < rb.numRows; i++) {
          const row = {} as Record<C, string | number>;
          columns.forEach((c, k) => {
            const v = vectors[k][i];
            row[c] = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : String(v ?? '');
          });
          out.push(row);
        }
      }
    }
    return out;
  }

  /** Every conformance row of these kinds (derived rows, e.g. Go's implicit conformances). */
  async conformancesOfKinds(kinds: readonly string[]): Promise<ConformanceRow[]> {
    const rows = await plainRows(this.conformances.query().where(`kind IN ${sqlList(kinds)}`).limit(Number.MAX_SAFE_INTEGER));
    return rows.map((r) => ({
      chunkId: String(r.chunk_id), protocolName: String(r.protocol_name), path: String(r.path),
      typeName: String(r.type_name), kind: String(r.kind),
    }));
  }

  async countConformancesOfKinds(kinds: readonly string[]): Promise<number> {
    return this.conformances.countRows(`kind IN ${sqlList(kinds)}`);
  }

  /**
   * Replaces the conformance rows of these kinds on these chunks with `rows` (derived rows computed after an
   * indexing run). Rows of other kinds (declared in the source) are never touched.
   */
  async replaceConformancesOfKinds(kinds: readonly string[], chunkIds: readonly string[], rows: readonly ConformanceRow[]): Promise<void> {
    await this.queue.run(async () => {
      for (const group of batches(chunkIds, 500)) await this.conformances.delete(`kind IN ${sqlList(kinds)} AND chunk_id IN ${sqlList(group)}`);
      if (rows.length) {
        await this.conformances.add(
          columnarTable(CONFORMANCES_SCHEMA, rows.map((r) => ({ chunk_id: r.chunkId, protocol_name: r.protocolName, path: r.path, type_name: r.typeName, kind: r.kind }))),
        );
      }
    });
  }

  /** Files with a record (a search's "searched N files"). */
  async fileCount(): Promise<number> {
    return this.files.countRows();
  }

  async counts(): Promise<{ chunks: number; files: number; conformances: number }> {
    const [chunks, files, conformances] = await Promise.all([this.chunks.countRows(), this.files.countRows(), this.conformances.countRows()]);
    return { chunks, files, conformances };
  }

  /** Chunk counts per kind and per language (status / summaries). */
  async breakdown(): Promise<{ byKind: Record<string, number>; byLanguage: Record<string, number> }> {
    const byKind: Record<string, number> = {};
    const byLanguage: Record<string, number> = {};
    for await (const rb of this.chunks.query().select(['kind', 'language']).limit(Number.MAX_SAFE_INTEGER)) {
      const kinds = rb.getChild('kind');
      const langs = rb.getChild('language');
      for (let i = 0; i < rb.numRows; i++) {
        const k = String(kinds?.get(i));
        const l = String(langs?.get(i));
        tally(byKind, k);
        tally(byLanguage, l);
      }
    }
    return { byKind, byLanguage };
  }

  /** The vector table (and embedding cache) of one embedding model. */
  vectors(modelId: string, dims: number): Promise<VectorStore> {
    const key = `${modelId}#${dims}`;
    let vs = this.vectorStores.get(key);
    if (!vs) {
      const dir = this.vectorDir;
      const db = dir ? (this.vectorDb ??= (mkdirSync(dir, { recursive: true }), lancedb.connect(dir, { readConsistencyInterval: 0 }))) : Promise.resolve(this.db);
      vs = db.then((conn) => VectorStore.open(conn, this.queue, modelId, dims, dir ?? this.dir));
      vs.catch(() => this.vectorStores.delete(key));
      this.vectorStores.set(key, vs);
    }
    return vs;
  }

  /** (content hash, path) of every chunk whose hash is not in `known` (distinct hashes). */
  async missingHashes(known: ReadonlySet<string>, paths?: readonly string[]): Promise<Array<{ contentHash: string; path: string }>> {
    const out: Array<{ contentHash: string; path: string }> = [];
    const seen = new Set<string>();
    // every chunk, or those of some paths (a run over a few files: the btree on path, not a scan of the table)
    const queries = paths
      ? batches([...new Set(paths)], 200).map((group) => this.chunks.query().where(`path IN ${sqlList(group)}`))
      : [this.chunks.query()];
    for (const query of queries) {
      for await (const rb of query.select(['content_hash', 'path']).limit(Number.MAX_SAFE_INTEGER)) {
        const hashes = rb.getChild('content_hash');
        const paths = rb.getChild('path');
        for (let i = 0; i < rb.numRows; i++) {
          const h = String(hashes?.get(i));
          if (known.has(h) || seen.has(h)) continue;
          seen.add(h);
          out.push({ contentHash: h, path: String(paths?.get(i)) });
        }
      }
    }
    return out;
  }

  /** Chunks with these content hashes (several chunks may share one). */
  async chunksByHashes(hashes: readonly string[]): Promise<Chunk[]> {
    const snapped = await this.fromSnapshot(this.snapshots?.chunks, async (s) => {
      // per group of 200 hashes, in row order, as the IN queries below return them
      const positions = batches(hashes, 200).flatMap((group) => [...new Set(s.positions('content_hash', [...new Set(group)]))].sort((a, b) => a - b));
      return s.convertedRows(positions, rowToChunk);
    });
    if (snapped) return snapped;
    const out: Chunk[] = [];
    for (const group of batches(hashes, 200)) {
      const rows = await plainRows(this.chunks.query().where(`content_hash IN ${sqlList(group)}`).limit(Number.MAX_SAFE_INTEGER));
      for (const r of rows) out.push(rowToChunk(r));
    }
    return out;
  }

  /** Main symbol of every chunk that has one (for the workspace symbol table). */
  async symbolEntries(): Promise<Array<{ name: string; symbol: string; kind: string; container: string; path: string; startLine: number; endLine: number; nameRange: NameRange }>> {
    const out: Array<{ name: string; symbol: string; kind: string; container: string; path: string; startLine: number; endLine: number; nameRange: NameRange }> = [];
    const cols = ['name', 'symbol', 'kind', 'container', 'path', 'start_line', 'end_line', 'name_line', 'name_column', 'name_end_line', 'name_end_column', 'symbol_ranges'];
    // the table is held for the session (the language server's Go to Symbol): one copy of each path, kind and
    // container, not one per symbol
    const seen = new Map<string, string>();
    const shared = (v: unknown): string => {
      const text = String(v);
      const had = seen.get(text);
      if (had !== undefined) return had;
      seen.set(text, text);
      return text;
    };
    for await (const rb of this.chunks.query().select(cols).limit(Number.MAX_SAFE_INTEGER)) {
      const [n, s, k, c, p, a, b, nl, nc, nel, nec, sr] = cols.map((col) => rb.getChild(col)!);
      for (let i = 0; i < rb.numRows; i++) {
        const name = String(n.get(i));
        if (!name) continue;
        const path = shared(p.get(i));
        out.push({ name, symbol: String(s.get(i)), kind: shared(k.get(i)), container: shared(c.get(i)), path, startLine: Number(a.get(i)), endLine: Number(b.get(i)),
          nameRange: { line: Number(nl.get(i)), column: Number(nc.get(i)), endLine: Number(nel.get(i)), endColumn: Number(nec.get(i)) } });
        // the further names a chunk declares (a Go var block's, a small class's members) are symbols too
        for (const x of symbolRangesOf(sr.get(i)) ?? []) {
          out.push({ name: x.name, symbol: x.symbol, kind: shared(x.kind), container: shared(x.container), path, startLine: Number(a.get(i)), endLine: Number(b.get(i)), nameRange: x.range });
        }
      }
    }
    return out;
  }

  /** Columns with a scalar index, per table (status and tests). */
  async scalarIndexes(): Promise<Record<'chunks' | 'conformances' | 'files' | 'chunk_git', string[]>> {
    const cols = async (t: lancedb.Table) => (await t.listIndices()).flatMap((ix) => ix.columns);
    return { chunks: await cols(this.chunks), conformances: await cols(this.conformances), files: await cols(this.files), chunk_git: await cols(this.chunkGit) };
  }

  /**
   * Builds missing scalar indexes (id, path on chunks; protocol_name on conformances; path on files; chunk_id, path on
   * chunk_git)
   * and compacts / prunes old versions once a table has enough small fragments (tableMaintenance.ts). Called after an
   * indexing run, not per write.
   */
  async maintain(): Promise<void> {
    await this.queue.run(async () => {
      this.writeMetaIfStale();
      const ensure = async (table: lancedb.Table, column: string) => {
        const existing = await table.listIndices();
        if (existing.some((ix) => ix.columns.includes(column))) return;
        if ((await table.countRows()) === 0) return;
        await table.createIndex(column, { config: lancedb.Index.btree() });
      };
      await ensure(this.chunks, 'id');
      await ensure(this.chunks, 'path');
      await ensure(this.chunks, 'content_hash');
      await ensure(this.conformances, 'protocol_name');
      await ensure(this.files, 'path');
      await ensure(this.chunkGit, 'chunk_id');
      await ensure(this.chunkGit, 'path');
      for (const table of [this.chunks, this.conformances, this.files, this.chunkGit]) await compactWhenFragmented(table);
    });
  }

  /** Forgets an opened vector table (after it was found damaged and quarantined: the next `vectors` reopens it). */
  forgetVectors(modelId: string, dims: number): void {
    const key = `${modelId}#${dims}`;
    const vs = this.vectorStores.get(key);
    this.vectorStores.delete(key);
    void vs?.then((v) => v.close(), () => undefined);
  }

  async close(): Promise<void> {
    await this.queue.idle();
    this.snapshots?.chunks.close();
    this.snapshots?.git.close();
    for (const vs of this.vectorStores.values()) (await vs.catch(() => undefined))?.close();
    if (this.vectorDb) (await this.vectorDb.catch(() => undefined))?.close();
    this.chunks.close();
    this.conformances.close();
    this.files.close();
    this.chunkGit.close();
    this.db.close();
  }
}

type OpenedTables = readonly [lancedb.Connection, lancedb.Table, lancedb.Table, lancedb.Table, lancedb.Table];

const TABLES: ReadonlyArray<[string, Schema]> = [['chunks', CHUNKS_SCHEMA], ['conformances', CONFORMANCES_SCHEMA], ['files', FILES_SCHEMA], ['chunk_git', CHUNK_GIT_SCHEMA]];

function readMeta(metaPath: string): { kind: 'ok'; version: number } | { kind: 'missing' } | { kind: 'garbled'; error: string } {
  let text: string;
  try {
    text = readFileSync(metaPath, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw e;
  }
  try {
    const v = (JSON.parse(text) as { schemaVersion?: unknown }).schemaVersion;
    if (typeof v === 'number') return { kind: 'ok', version: v };
    return { kind: 'garbled', error: 'no schemaVersion' };
  } catch (e) {
    return { kind: 'garbled', error: (e as Error).message };
  }
}

function closeAll(t: OpenedTables): void {
  for (const x of t.slice(1) as lancedb.Table[]) x.close();
  t[0].close();
}

/**
 * Opens the four tables of an existing store without writing anything. Undefined when one is not there yet (or, with
 * `checkLayout`, has another layout): the caller creates or resets under the lock. A listed table that cannot be
 * opened throws: the environment's error as it is (the caller classifies it), anything else as StoreDamagedError.
 */
async function openExisting(dir: string, checkLayout = false): Promise<OpenedTables | undefined> {
  const conn = await lancedb.connect(dir, { readConsistencyInterval: 0 });
  const names = new Set(await conn.tableNames());
  const opened: lancedb.Table[] = [];
  const giveUp = () => {
    for (const t of opened) t.close();
    conn.close();
  };
  for (const [name, schema] of TABLES) {
    if (!names.has(name)) {
      giveUp();
      return undefined;
    }
    let t: lancedb.Table;
    try {
      t = await openTableRetrying(conn, name);
    } catch (e) {
      giveUp();
      if (asEnvironmentError(e, '', dir) !== e) throw e;
      throw new StoreDamagedError(`the ${name} table of ${dir} cannot be opened: ${firstLine((e as Error).message)}`);
    }
    opened.push(t);
    if (checkLayout) {
      const have = (await t.schema()).fields.map((f) => f.name).join(',');
      if (have !== schema.fields.map((f) => f.name).join(',')) {
        giveUp();
        return undefined;
      }
    }
  }
  return [conn, opened[0]!, opened[1]!, opened[2]!, opened[3]!];
}

/** The column read in full to prove a table's data files readable (small: a string per row). */
const PROBE_COLUMN: Record<string, string> = { chunks: 'id', conformances: 'chunk_id', files: 'path', chunk_git: 'chunk_id' };

/**
 * Proves an opened store readable, without writing: every data file of every table (one column scanned in full by
 * LanceDB, `scanColumn`, which also reads each file's footer: a missing, truncated or garbled file fails here) and
 * every scalar index (a lookup through it). Opening reads only the manifests, so damage below them would otherwise surface as a raw Lance error in
 * the middle of a search or an index run. An environmental failure is rethrown as it is (the caller classifies it);
 * anything else closes the tables and is a StoreDamagedError (proven damage: the caller quarantines the tables).
 */
async function verifyTables(dir: string, opened: OpenedTables): Promise<void> {
  const tables = opened.slice(1) as lancedb.Table[];
  for (let i = 0; i < TABLES.length; i++) {
    const name = TABLES[i]![0];
    const t = tables[i]!;
    try {
      if ((await t.countRows()) === 0) continue;
      await scanColumn(t, PROBE_COLUMN[name]!);
      const indexed = new Set((await t.listIndices()).flatMap((ix) => ix.columns));
      for (const c of indexed) await t.query().where(`${c} = '${PROBE_VALUE}'`).select([c]).limit(1).toArray();
    } catch (e) {
      closeAll(opened);
      if (asEnvironmentError(e, '', dir) !== e) throw e;
      throw new StoreDamagedError(`the ${name} table of ${dir} is damaged (${firstLine((e as Error).message)})`);
    }
  }
}
const PROBE_VALUE = 'quarry-probe:none';

/** Where damaged tables are moved (one generation is kept: an older quarantine is proven damage and is removed). */
export const QUARANTINE_DIR = 'quarantine';

/**
 * Moves the four tables of a damaged store (and nothing else: the vector tables, keyed by content hash, stay for the
 * rebuild) into `.quarry/quarantine/<time>/`, for inspection; the next open creates them empty and the next index
 * run rebuilds them. Returns where they went.
 */
export function quarantineTables(quarryDir: string, generationDir = quarryDir): string {
  return quarantine(quarryDir, join(generationDir, 'lancedb'), TABLES.map(([name]) => name));
}

/**
 * Moves one damaged vector table (`tableName` in `vectorDir`) into `.quarry/quarantine/<time>/`; the next dense phase
 * creates it empty and embeds again. Returns where it went.
 */
export function quarantineVectorTable(quarryDir: string, vectorDir: string, tableName: string): string {
  return quarantine(quarryDir, vectorDir, [tableName]);
}

function quarantine(quarryDir: string, dir: string, tables: readonly string[]): string {
  const root = join(quarryDir, QUARANTINE_DIR);
  for (const old of existsSync(root) ? readdirSync(root) : []) rmSync(join(root, old), { recursive: true, force: true });
  const dest = join(root, new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(dest, { recursive: true });
  for (const name of tables) {
    const from = join(dir, `${name}.lance`);
    if (existsSync(from)) renameSync(from, join(dest, `${name}.lance`));
  }
  return dest;
}

/** A commit by another process can race an open: try twice more before calling the table damaged. */
async function openTableRetrying(conn: lancedb.Connection, name: string): Promise<lancedb.Table> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await conn.openTable(name);
    } catch (e) {
      if (attempt >= 2 || asEnvironmentError(e, '', '') !== e) throw e;
      await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
    }
  }
}

/** True when the store holds a table of ours whose columns differ from this version's (an older layout). */
async function hasForeignLayout(dir: string): Promise<boolean> {
  try {
    const conn = await lancedb.connect(dir);
    try {
      const names = new Set(await conn.tableNames());
      for (const [name, schema] of TABLES) {
        if (!names.has(name)) continue;
        const t = await conn.openTable(name);
        const have = (await t.schema()).fields.map((f) => f.name).join(',');
        t.close();
        if (have !== schema.fields.map((f) => f.name).join(',')) return true;
      }
      return false;
    } finally {
      conn.close();
    }
  } catch {
    return false;
  }
}

function firstLine(s: string): string {
  // without the Rust source locations the native errors carry (", /usr/local/cargo/…/local.rs:273:40")
  const line = s.split(/\s+Caused by:|\n/)[0]!.replace(/,\s*\/\S+\.rs:\d+:\d+/g, '').trim();
  return line.length > 300 ? line.slice(0, 300) + '…' : line;
}

function rowToGit(r: Record<string, unknown>): ChunkGitRow {
  return {
    chunkId: String(r.chunk_id), path: String(r.path), status: String(r.status) as GitStatus, commits: Number(r.commits),
    lastModifiedMs: Number(r.last_modified), computedAt: Number(r.computed_at),
  };
}

/** `Chunk.symbolRanges` from its stored JSON; undefined when empty or unreadable. */
function symbolRangesOf(v: unknown): SymbolRange[] | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  try {
    const parsed = JSON.parse(v) as unknown;
    return Array.isArray(parsed) && parsed.length ? (parsed as SymbolRange[]) : undefined;
  } catch {
    return undefined;
  }
}

function nameRangeColumns(r: NameRange): Record<string, number> {
  return { name_line: r.line, name_column: r.column, name_end_line: r.endLine, name_end_column: r.endColumn };
}

function chunkToRow(c: Chunk): Record<string, unknown> {
  return {
    id: c.id, path: c.path, language: c.language, kind: c.kind, symbol: c.symbol, name: c.name, container: c.container,
    symbols: c.symbols, references: c.references, conformances: c.conformances, doc: c.doc, signature: c.signature,
    start_line: c.startLine, end_line: c.endLine, start_byte: c.startByte, end_byte: c.endByte, content: c.content,
    semantic_class: c.semanticClass, token_count: c.tokenCount, content_hash: c.contentHash, source: c.source,
    metadata: c.metadata ? JSON.stringify(c.metadata) : '',
    ...nameRangeColumns(nameRangeOf(c)),
    symbol_ranges: c.symbolRanges?.length ? JSON.stringify(c.symbolRanges) : '',
  };
}

/** `Chunk.metadata` from its stored JSON; undefined when empty or unreadable (the field is optional). */
function metadataOf(v: unknown): ChunkMetadata | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  try {
    const parsed = JSON.parse(v) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as ChunkMetadata) : undefined;
  } catch {
    return undefined;
  }
}

function list(v: unknown): string[] {
  if (v == null) return [];
  if (Array.isArray(v)) return v.map(String);
  const maybe = v as { toArray?: () => unknown[] };
  return typeof maybe.toArray === 'function' ? Array.from(maybe.toArray(), String) : [];
}

function rowToChunk(r: Record<string, unknown>): Chunk {
  const chunk: Chunk = {
    id: String(r.id), path: String(r.path), language: String(r.language), kind: String(r.kind) as ChunkKind,
    symbol: String(r.symbol), name: String(r.name), container: String(r.container),
    symbols: list(r.symbols), references: list(r.references), conformances: list(r.conformances),
    doc: String(r.doc), signature: String(r.signature), startLine: Number(r.start_line), endLine: Number(r.end_line),
    startByte: Number(r.start_byte), endByte: Number(r.end_byte), content: String(r.content),
    semanticClass: String(r.semantic_class) as SemanticClass, tokenCount: Number(r.token_count),
    contentHash: String(r.content_hash), source: String(r.source) as ChunkSource,
  };
  const metadata = metadataOf(r.metadata);
  if (metadata) chunk.metadata = metadata;
  const symbolRanges = symbolRangesOf(r.symbol_ranges);
  if (symbolRanges) chunk.symbolRanges = symbolRanges;
  if (r.name_line != null) {
    chunk.nameRange = { line: Number(r.name_line), column: Number(r.name_column), endLine: Number(r.name_end_line), endColumn: Number(r.name_end_column) };
  }
  return chunk;
}
