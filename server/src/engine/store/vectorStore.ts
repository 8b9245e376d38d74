/**
 * Dense vectors in LanceDB, one table per embedding model (`vectors_<model key>`), keyed by the chunk's
 * content hash. Keyed by content rather than by chunk, the table doubles as the embedding cache: renames,
 * branch switches and re-indexes find their vectors already there and never re-embed unchanged code; a
 * model change writes a new table (the old one stays as a cache for switching back).
 *
 * Part of the store: the only other module that imports LanceDB. Writes go through the store's queue.
 */
import { scanColumn } from './tableProbe';
import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Schema, Utf8 } from 'apache-arrow';
import { columnarTable } from './columnarRows';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { WriteQueue } from './writeQueue';
import { asEnvironmentError } from './storeErrors';
import { compactWhenFragmented } from './tableMaintenance';

/**
 * A vector table that is listed but cannot be opened or read for a reason other than the environment (proven damage):
 * the engine quarantines it and the next dense phase embeds again; meanwhile search is keyword-only and says so.
 */
export class VectorTableDamagedError extends Error {
  constructor(readonly modelId: string, readonly tableName: string, readonly path: string, detail: string) {
    super(`the vector table of ${modelId} at ${path} is damaged (${detail})`);
    this.name = 'VectorTableDamagedError';
  }
}

/** Rows above which an ANN index is built; below it a flat scan is fast enough. */
const ANN_MIN_ROWS = 20_000;
/**
 * At most this many hashes (in all, per process) are looked up through the index (`missing`), and only in a table of
 * more rows; beyond that the whole set is decoded once and kept.
 */
const LOOKUP_MAX = 1000;
/** Vectors of fewer dimensions keep IVF_FLAT (see `annIndexFor`). */
const RQ_MIN_DIMS = 64;
/**
 * The ANN index (`annIndexFor`): IVF partitions of RaBitQ codes (LanceDB's IVF_RQ, one bit a dimension; IVF_FLAT for
 * vectors of fewer than 64 dimensions or a width that is not a multiple of 8), its candidates re-scored on
 * their stored vectors (`REFINE_FACTOR`), so the similarities are exact. Issue 21, the Go tree's 78k vectors of 256
 * dimensions, 28 descriptions against a full scan: IVF_FLAT (an exact probe of every partition) 5.4 ms p50, this
 * index 3.2 ms with the same top 10 (recall@10 1.000, recall@100 0.974; re-scoring 2× instead of 3×: 2.6 ms, 0.941,
 * and on synthetic topic mixtures recall@10 0.89 against 0.96, test/integration/store/vectorCompaction.test.ts);
 * built in 0.3 s (IVF_FLAT 0.5 s) holding +130 MB (IVF_FLAT +290 MB), 4 MB on disk (80 MB); folding new rows in
 * (`optimize`) 0.13 s. Without the re-scoring the codes' distances are off by 0.37 on average. IVF_HNSW_SQ was as fast
 * but took 5 s to build and as long again at every `optimize`; IVF_PQ lost recall (0.62 at 100) or, refined, the time.
 */
function annIndexFor(dims: number): { type: string; config: lancedb.Index } {
  // LanceDB's RaBitQ needs a multiple of 8 dimensions, and a bit a dimension says too little below a few dozen (on 8
  // dimensions a stored vector asked for itself was not among the 9 candidates re-scored for a top 3)
  if (dims % 8 === 0 && dims >= RQ_MIN_DIMS) return { type: 'IvfRq', config: lancedb.Index.ivfRq({ distanceType: 'cosine' }) };
  return { type: 'IvfFlat', config: lancedb.Index.ivfFlat({ distanceType: 'cosine' }) };
}
/** The kNN reads k × this many candidates from the index and keeps the k nearest by their stored vectors. */
const REFINE_FACTOR = 3;


export interface DenseHit {
  contentHash: string;
  /** Cosine similarity in [-1, 1] (vectors are L2-normalised). */
  similarity: number;
}

export function modelTableName(modelId: string): string {
  const slug = modelId.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '').slice(0, 40);
  return `vectors_${slug}_${createHash('sha1').update(modelId).digest('hex').slice(0, 8)}`;
}

function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export class VectorStore {
  private hashes?: Set<string>;
  /** Hashes looked up through the index so far, and the table's rows when first asked (see `missing`). */
  private lookedUp = 0;
  private rowsAtOpen?: number;

  private constructor(
    readonly modelId: string,
    readonly dims: number,
    private readonly table: lancedb.Table,
    private readonly queue: WriteQueue,
    private readonly schema: Schema,
  ) {}

  /**
   * Opens the model's table in `db` (folder `dir`), creating it when missing. An existing table is verified as the
   * chunk tables are (chunkStore.ts verifyTables): its content-hash column scanned in full by LanceDB (tableProbe.ts,
   * which reads every data file's footer: a missing, truncated or garbled file fails here) and every index looked up
   * once. Proven damage is a VectorTableDamagedError; an environmental failure (disk, permissions) is rethrown as it is.
   */
  static async open(db: lancedb.Connection, queue: WriteQueue, modelId: string, dims: number, dir = ''): Promise<VectorStore> {
    const name = modelTableName(modelId);
    const names = new Set(await db.tableNames());
    let table: lancedb.Table;
    // the schema rows are laid out in (columnarRows.ts): the table's own, as written by whichever version created it
    let schema = schemaFor(dims);
    if (names.has(name)) {
      const path = join(dir, `${name}.lance`);
      const damaged = (e: unknown): never => {
        if (asEnvironmentError(e, '', dir) !== e) throw e;
        throw new VectorTableDamagedError(modelId, name, path, firstLine((e as Error)?.message ?? String(e)));
      };
      table = await db.openTable(name).catch(damaged);
      let width: number | undefined;
      try {
        const own = await table.schema();
        const field = own.fields.find((f) => f.name === 'vector');
        width = (field?.type as FixedSizeList | undefined)?.listSize;
        if (width === dims) schema = own;
      } catch (e) {
        table.close();
        damaged(e);
      }
      if (width !== dims) {
        // Same id, different width: the provider changed under the same name. Start over.
        table.close();
        await db.dropTable(name);
        table = await db.createEmptyTable(name, schemaFor(dims), { existOk: true });
      } else {
        try {
          await verify(table, dims);
        } catch (e) {
          table.close();
          damaged(e);
        }
      }
    } else {
      table = await db.createEmptyTable(name, schemaFor(dims), { existOk: true });
    }
    const store = new VectorStore(modelId, dims, table, queue, schema);
    return store;
  }

  /**
   * The given content hashes that have no vector for this model yet (in their order, without repeats). A few are
   * looked up through the content-hash index; many, or once the whole set is held, are checked against the set
   * (`knownHashes`): a re-index of a few files no longer decodes every hash of a large table (78k on the Go tree:
   * 30 ms and its garbage).
   */
  async missing(hashes: readonly string[]): Promise<string[]> {
    const distinct = [...new Set(hashes)];
    // a small table's set costs little; a process that keeps asking (a large run) decodes it once
    if (!this.hashes && this.lookedUp + distinct.length <= LOOKUP_MAX && (this.rowsAtOpen ??= await this.table.countRows()) > LOOKUP_MAX) {
      this.lookedUp += distinct.length;
      const present = new Set<string>();
      for (let i = 0; i < distinct.length; i += 200) {
        const group = distinct.slice(i, i + 200);
        const rows = await this.table.query().where(`content_hash IN (${group.map(sqlString).join(', ')})`).select(['content_hash']).toArray();
        for (const r of rows) present.add(String(r.content_hash));
      }
      return distinct.filter((h) => !present.has(h));
    }
    const known = await this.knownHashes();
    return distinct.filter((h) => !known.has(h));
  }

  /** Content hashes that already have a vector for this model (every hash of the table, decoded once). */
  async knownHashes(): Promise<Set<string>> {
    if (!this.hashes) {
      const columns = await readHashColumns(this.table);
      const set = new Set<string>();
      for (const col of columns) for (let i = 0; i < col.length; i++) set.add(String(col.get(i)));
      this.hashes = set;
    }
    return this.hashes;
  }

  async count(): Promise<number> {
    return this.table.countRows();
  }

  /** Adds vectors (skips hashes already present, so concurrent backfills cannot duplicate rows). */
  async add(rows: ReadonlyArray<{ contentHash: string; vector: Float32Array }>): Promise<number> {
    if (!rows.length) return 0;
    return this.queue.run(async () => {
      const absent = new Set(await this.missing(rows.map((r) => r.contentHash)));
      const seen = new Set<string>();
      const unique = rows.filter((r) => absent.has(r.contentHash) && (seen.has(r.contentHash) ? false : (seen.add(r.contentHash), true)));
      if (!unique.length) return 0;
      for (const r of unique) {
        if (r.vector.length !== this.dims) throw new Error(`vector of ${r.vector.length} dims for model ${this.modelId} (${this.dims} expected)`);
      }
      await this.table.add(columnarTable(this.schema, unique.map((r) => ({ content_hash: r.contentHash, vector: r.vector }))));
      for (const r of unique) this.hashes?.add(r.contentHash);
      return unique.length;
    });
  }

  /** Nearest neighbours by cosine similarity (over-fetch: several chunks may share a hash, some may be gone). */
  async nearest(query: Float32Array, k: number): Promise<DenseHit[]> {
    if (query.length !== this.dims) throw new Error(`query vector of ${query.length} dims for model ${this.modelId} (${this.dims} expected)`);
    const rows = await this.table
      .vectorSearch(Array.from(query))
      .distanceType('cosine')
      // re-scored on the stored vectors (the ANN index's codes are approximate; a table without one is scanned exactly)
      .refineFactor(REFINE_FACTOR)
      .select(['content_hash', '_distance'])
      .limit(k)
      .toArray();
    return rows.map((r) => ({ contentHash: String(r.content_hash), similarity: 1 - Number(r._distance) }));
  }

  /** Vectors of specific hashes (for scoring lexical candidates the dense search did not return). */
  async vectorsOf(hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for (let i = 0; i < hashes.length; i += 200) {
      const group = hashes.slice(i, i + 200);
      const rows = await this.table.query().where(`content_hash IN (${group.map(sqlString).join(', ')})`).limit(group.length * 2).toArray();
      for (const r of rows) {
        const v = r.vector as { toArray?: () => ArrayLike<number> } | ArrayLike<number>;
        const arr = 'toArray' in v && typeof v.toArray === 'function' ? v.toArray() : (v as ArrayLike<number>);
        out.set(String(r.content_hash), Float32Array.from(arr));
      }
    }
    return out;
  }

  /**
   * Builds the scalar index on content_hash and, for large tables, an ANN index (`beforeAnnBuild` runs just before
   * that build); compacts the table and removes old versions once it has enough small fragments
   * (`compactWhenFragmented`).
   */
  async maintain(options: { beforeAnnBuild?: () => void } = {}): Promise<void> {
    await this.queue.run(async () => {
      const rows = await this.table.countRows();
      if (!rows) return;
      const indices = await this.table.listIndices();
      if (!indices.some((ix) => ix.columns.includes('content_hash'))) await this.table.createIndex('content_hash', { config: lancedb.Index.btree() });
      // an index of an earlier version (IVF_FLAT for every width) is replaced once
      const ann = indices.find((ix) => ix.columns.includes('vector'));
      const wanted = annIndexFor(this.dims);
      if (rows >= ANN_MIN_ROWS && ann?.indexType !== wanted.type) {
        options.beforeAnnBuild?.();
        await this.table.createIndex('vector', { config: wanted.config, replace: true });
      }
      // vectors are only ever added (a fragment per committed window of 512): compacted now and then (tableMaintenance.ts)
      await compactWhenFragmented(this.table);
    });
  }

  close(): void {
    this.table.close();
  }
}

/** A content-hash column of one record batch, as Arrow holds it. */
type HashColumn = { length: number; get(i: number): unknown };

/** The table's content-hash column in full, batch by batch, undecoded. */
async function readHashColumns(table: lancedb.Table): Promise<HashColumn[]> {
  const columns: HashColumn[] = [];
  for await (const rb of table.query().select(['content_hash']).limit(Number.MAX_SAFE_INTEGER)) {
    const col = rb.getChild('content_hash');
    if (col && rb.numRows) columns.push(col);
  }
  return columns;
}

/** Scans the table's content hashes in full (`scanColumn`) and looks up every index once (see `open`). */
async function verify(table: lancedb.Table, dims: number): Promise<void> {
  if ((await table.countRows()) === 0) return;
  await scanColumn(table, 'content_hash');
  for (const ix of await table.listIndices()) {
    if (ix.columns.includes('vector')) {
      const probe = new Array<number>(dims).fill(0);
      probe[0] = 1;
      // `_distance` selected as a kNN's output always is (without it LanceDB logs a deprecation warning on stderr)
      await table.vectorSearch(probe).distanceType('cosine').select(['content_hash', '_distance']).limit(1).toArray();
    } else {
      for (const c of ix.columns) await table.query().where(`${c} = 'quarry-probe:none'`).select([c]).limit(1).toArray();
    }
  }
}

function firstLine(s: string): string {
  // without the Rust source locations the native errors carry
  const line = s.split(/\s+Caused by:|\n/)[0]!.replace(/,\s*\/\S+\.rs:\d+:\d+/g, '').trim();
  return line.length > 300 ? line.slice(0, 300) + '…' : line;
}

function schemaFor(dims: number): Schema {
  return new Schema([
    new Field('content_hash', new Utf8(), false),
    new Field('vector', new FixedSizeList(dims, new Field('item', new Float32(), true)), false),
  ]);
}
