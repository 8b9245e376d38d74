/**
 * Read snapshots of LanceDB tables for the long-running doors (issue 21: warm queries at 100k chunks).
 *
 * A search hydrates a few hundred rows by key (`id IN (…)`, `content_hash IN (…)`, `chunk_id IN (…)`). LanceDB answers
 * such a read in 25–30 ms at 96k chunks whatever the number of rows — about 1 ms per column, for the 27 columns of
 * `chunks` — which was most of a warm query's time. A snapshot holds one version of a table in memory as the Arrow
 * record batches a scan returns (compact, outside the V8 heap), with a key → row position index, and answers those
 * reads from memory. The text of the columns named `spilled` (the chunk's content: most of the table's bytes) is
 * written to a file at load (spillFile.ts) and read back for the rows asked, a positioned read per value through the
 * operating system's page cache (microseconds; issue 19: a language server need not hold every chunk's text).
 *
 * A snapshot answers only while its version is the table's live version; otherwise
 * the caller reads LanceDB as before, and the slot reloads the snapshot once the table has stopped moving (`quietMs`
 * after the last stale read), so an editor's stream of buffer writes never pays for a reload per keystroke. Rows come
 * back as plain records with the same values a query's rows have (same Arrow vectors), so the store converts them with
 * its usual row functions and every answer is identical.
 */
import type * as lancedb from '@lancedb/lancedb';
import { statSync } from 'node:fs';
import { DataType, type Vector } from 'apache-arrow';
import { reader } from './columnarRows';
import { SpillFile } from './spillFile';
import { KeyIndex, type Utf8Part } from '../keyIndex';

/** A batch's columns, looked up once (Arrow's `getChildAt` builds a new vector on every call): name, value at a row. */
type Columns = Array<[name: string, valueAt: (row: number) => unknown]>;

/** Rows holding more text than this (bytes) are large: their converted forms have a budget of their own (`convertedRows`). */
const LARGE_ROW_BYTES = 16_384;
/** At most this much large-row text (bytes) has its converted form kept, per snapshot and conversion (about 2× in objects). */
const MAX_CONVERTED_BYTES = 8 << 20;
/** At most this much text of the other rows (bytes) has its converted form kept, the most recently read first. */
export const MAX_CONVERTED_SMALL_BYTES = 4 << 20;

/** Bytes of variable-width data (strings, lists of strings) per row of a batch, added to `into` from `start`. */
function addRowBytes(rb: { numRows: number; schema: { fields: Array<{ name: string }> }; getChildAt(j: number): Vector | null }, into: number[], start: number): void {
  rb.schema.fields.forEach((_, j) => {
    const data = rb.getChildAt(j)?.data[0];
    if (!data) return;
    const leaf = DataType.isList(data.type) ? data.children[0] : data;
    if (!leaf || !DataType.isUtf8(leaf.type)) return;
    const offsets = data.valueOffsets as Int32Array;
    const leafOffsets = leaf.valueOffsets as Int32Array;
    for (let i = 0; i < rb.numRows; i++) {
      // a list's strings span its first to its last child offset
      const lo = DataType.isList(data.type) ? leafOffsets[leaf.offset + offsets[data.offset + i]!]! : offsets[data.offset + i]!;
      const hi = DataType.isList(data.type) ? leafOffsets[leaf.offset + offsets[data.offset + i + 1]!]! : offsets[data.offset + i + 1]!;
      into[start + i] = (into[start + i] ?? 0) + (hi - lo);
    }
  });
}

/** A key column of one batch as the key index reads it (the column must be UTF-8, in one piece). */
function utf8Part(col: Vector | null, key: string, start: number, rows: number): Utf8Part {
  const data = col?.data[0];
  if (!col || col.data.length !== 1 || !data || !DataType.isUtf8(data.type)) throw new Error(`key column ${key} is not a UTF-8 column`);
  return { start, rows, values: data.values as Uint8Array, offsets: data.valueOffsets as Int32Array, offset: data.offset, valid: (r) => !data.nullCount || col.isValid(r) };
}

export interface SnapshotSpec {
  /** The table's name in the connection. */
  table: string;
  /** String columns rows are looked up by. */
  keys: readonly string[];
  /** UTF-8 columns whose text is not held in memory but written to a spill file in `spillDir` and read back per row. */
  spilled?: readonly string[];
  /** Where spill files go (the index's own folder). Required with `spilled`. */
  spillDir?: string;
}

/** Where each row's text of one spilled column is in the spill file (start -1: null). */
interface SpilledColumn {
  name: string;
  start: Float64Array;
  length: Uint32Array;
}

export class TableSnapshot {
  private constructor(
    readonly version: number,
    private readonly batches: Columns[],
    /** First row position of each batch. */
    private readonly starts: number[],
    readonly rowCount: number,
    private readonly index: Map<string, KeyIndex>,
    private readonly spill: { file: SpillFile; columns: SpilledColumn[] } | undefined,
    /** Bytes of text per row (the in-memory columns). */
    private readonly rowBytes: Int32Array,
  ) {}

  /** Converted rows, per conversion function: large ones, and the most recently read others (see `convertedRows`). */
  private readonly converted = new Map<(r: Record<string, unknown>) => unknown, ConvertedCache<unknown>>();

  /** Reads the table's live version into memory (a handle of its own, checked out at that version). */
  static async load(db: lancedb.Connection, spec: SnapshotSpec): Promise<TableSnapshot> {
    const handle = await db.openTable(spec.table);
    let spill: { file: SpillFile; columns: SpilledColumn[] } | undefined;
    try {
      const version = await handle.version();
      await handle.checkout(version);
      const spilled = spec.spilled ?? [];
      const columns = (await handle.schema()).fields.map((f) => f.name).filter((n) => !spilled.includes(n));
      const batches: Columns[] = [];
      const starts: number[] = [];
      const rowIds: bigint[] = [];
      const keyParts = new Map(spec.keys.map((k) => [k, [] as Utf8Part[]]));
      let n = 0;
      const rowBytes: number[] = [];
      for await (const rb of handle.query().select(columns).withRowId().limit(Number.MAX_SAFE_INTEGER)) {
        const rid = rb.getChild('_rowid')!;
        for (let i = 0; i < rb.numRows; i++) rowIds.push(BigInt(rid.get(i) as bigint | number));
        for (const [key, parts] of keyParts) parts.push(utf8Part(rb.getChild(key), key, n, rb.numRows));
        addRowBytes(rb, rowBytes, n);
        starts.push(n);
        batches.push(rb.schema.fields.flatMap((f, j): Columns => (f.name === '_rowid' ? [] : [[f.name, reader(rb.getChildAt(j)!)]])));
        n += rb.numRows;
      }
      if (spilled.length) {
        if (!spec.spillDir) throw new Error('spilled columns need a spillDir');
        spill = { file: SpillFile.create(spec.spillDir, spec.table), columns: [] };
        spill.columns = await spillColumns(handle, spilled, rowIds, spill.file);
      }
      const index = new Map([...keyParts].map(([key, parts]) => [key, new KeyIndex(parts)]));
      return new TableSnapshot(version, batches, starts, n, index, spill, Int32Array.from(rowBytes));
    } catch (e) {
      spill?.file.close();
      throw e;
    } finally {
      // the snapshot never reads the table again: its handle (and the dataset state LanceDB keeps for it) goes now
      handle.close();
    }
  }


  /** Row positions whose `key` equals one of `values`, value by value in the order asked (all rows of a value, in row order). */
  positions(key: string, values: readonly string[]): number[] {
    const index = this.index.get(key);
    if (!index) throw new Error(`${key} is not a key of this snapshot`);
    return values.flatMap((v) => index.lookup(v));
  }

  /** The rows at these positions, in that order: every column (the spilled ones read back from the spill file). */
  async rows(positions: readonly number[]): Promise<Array<Record<string, unknown>>> {
    const out = positions.map((p) => this.row(p));
    if (this.spill) {
      const { file, columns } = this.spill;
      positions.forEach((p, i) => {
        for (const c of columns) out[i]![c.name] = c.start[p]! < 0 ? null : file.text(c.start[p]!, c.length[p]!);
      });
    }
    return out;
  }

  /**
   * `convert` of the rows at these positions, with converted forms kept per conversion. A large row's is kept (up to
   * MAX_CONVERTED_BYTES of them): a generated file's table of thousands of constants (Go's zerrors_*.go) is one chunk
   * whose symbols and their ranges take 5–10 ms to decode and parse, and such chunks are candidates of many identifier
   * searches. The others' are kept too, the most recently read up to MAX_CONVERTED_SMALL_BYTES of text: successive
   * searches share most of their candidates (a query typed word by word, a question asked again in other words), and
   * decoding ~200 candidates' rows was 3–4 ms of a warm description search at 96k chunks. The snapshot never changes,
   * so neither does a converted row; callers must not modify what they get.
   */
  async convertedRows<T>(positions: readonly number[], convert: (r: Record<string, unknown>) => T): Promise<T[]> {
    let cache = this.converted.get(convert) as ConvertedCache<T> | undefined;
    if (!cache) this.converted.set(convert, (cache = { large: new Map(), largeBytes: 0, small: new Map(), smallBytes: 0 }));
    const out = new Array<T>(positions.length);
    const missing: number[] = [];
    positions.forEach((p, i) => {
      const large = cache!.large.get(p);
      if (large !== undefined) {
        out[i] = large;
        return;
      }
      const small = cache!.small.get(p);
      if (small === undefined) {
        missing.push(i);
        return;
      }
      out[i] = small.value;
      // most recently read last: eviction takes the oldest first
      cache!.small.delete(p);
      cache!.small.set(p, small);
    });
    if (missing.length) {
      const rows = await this.rows(missing.map((i) => positions[i]!));
      missing.forEach((i, j) => {
        const t = convert(rows[j]!);
        out[i] = t;
        keepConverted(cache!, positions[i]!, this.rowBytes[positions[i]!]!, t);
      });
    }
    return out;
  }

  private row(position: number): Record<string, unknown> {
    // the batch holding the position (binary search over the batches' first positions)
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= position) lo = mid;
      else hi = mid - 1;
    }
    const i = position - this.starts[lo]!;
    const r: Record<string, unknown> = {};
    for (const [name, valueAt] of this.batches[lo]!) r[name] = valueAt(i);
    return r;
  }

  close(): void {
    this.spill?.file.close();
  }

  /**
   * Closes the spill file a few seconds from now (a search that took this snapshot just before may still be reading
   * it); the rest of the snapshot's memory goes with its last reference, now.
   */
  closeLater(): void {
    const file = this.spill?.file;
    if (file) setTimeout(() => file.close(), 5_000).unref?.();
  }
}

/**
 * Writes the text of `names` (UTF-8 columns) of every row to `file`, batch by batch as a second scan of the same
 * version returns them (matched to the first scan's positions by row id), and returns where each row's text is.
 */
async function spillColumns(handle: lancedb.Table, names: readonly string[], rowIds: readonly bigint[], file: SpillFile): Promise<SpilledColumn[]> {
  const positionOf = new Map<bigint, number>();
  rowIds.forEach((r, i) => positionOf.set(r, i));
  const columns = names.map((name): SpilledColumn => ({ name, start: new Float64Array(rowIds.length).fill(-1), length: new Uint32Array(rowIds.length) }));
  const seen = new Uint8Array(rowIds.length);
  for await (const rb of handle.query().select([...names]).withRowId().limit(Number.MAX_SAFE_INTEGER)) {
    const rid = rb.getChild('_rowid')!;
    const at = Array.from({ length: rb.numRows }, (_, i) => {
      const p = positionOf.get(BigInt(rid.get(i) as bigint | number));
      if (p === undefined) throw new Error(`row ${rid.get(i)} was not in the snapshot's first scan`);
      seen[p] = 1;
      return p;
    });
    for (const c of columns) {
      const vector = rb.getChild(c.name)!;
      const data = vector.data[0]!;
      if (vector.data.length !== 1 || !DataType.isUtf8(data.type)) throw new Error(`${c.name} is not a UTF-8 column`);
      const offsets = data.valueOffsets as Int32Array;
      const lo = offsets[data.offset]!;
      const base = file.append(data.values as Uint8Array, lo, offsets[data.offset + rb.numRows]!);
      for (let i = 0; i < rb.numRows; i++) {
        if (data.nullCount && !vector.isValid(i)) continue;
        c.start[at[i]!] = base + offsets[data.offset + i]! - lo;
        c.length[at[i]!] = offsets[data.offset + i + 1]! - offsets[data.offset + i]!;
      }
    }
  }
  if (seen.some((s) => s === 0)) throw new Error('the second scan missed rows of the first');
  return columns;
}

/**
 * One table's snapshot over time: loaded on request (`load`), served while it is of the live version (`fresh`),
 * reloaded in the background `quietMs` after the last read that found it stale, dropped on failure.
 */
export class SnapshotSlot {
  private current?: TableSnapshot;
  private loading?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly db: lancedb.Connection,
    private readonly spec: SnapshotSpec,
    /** The table's live version (the store's own handle, which follows commits). */
    private readonly readLiveVersion: () => Promise<number>,
    /**
     * The table's `_versions` folder, where every commit adds a manifest: while its modification time stays what it
     * was when the live version was last read, that version is still the live one. Asking LanceDB costs 0.03 ms on an
     * idle machine but 2–9 ms on a busy one (a native round trip that lists and reads manifests); a stat, microseconds.
     */
    private readonly versionsDir?: string,
    private readonly quietMs = 2000,
  ) {}

  /** The live version read last, with the `_versions` folder's modification time (ns) seen just before. */
  private confirmed?: { version: number; mtimeNs: bigint };

  /** The table's live version: from LanceDB, or the last one read while no commit has touched `_versions` since. */
  private async liveVersion(): Promise<number> {
    let mtimeNs: bigint | undefined;
    try {
      if (this.versionsDir) mtimeNs = statSync(this.versionsDir, { bigint: true }).mtimeNs;
    } catch {
      mtimeNs = undefined;
    }
    if (mtimeNs !== undefined && this.confirmed?.mtimeNs === mtimeNs) return this.confirmed.version;
    const nowNs = BigInt(Date.now()) * 1_000_000n;
    const version = await this.readLiveVersion();
    // An unchanged time proves nothing when it is recent: a commit within the same timestamp granule after the stat
    // leaves it as it was. Only a time already older than the coarsest granule (FAT's 2 s) when the version was read
    // is trusted later.
    this.confirmed = mtimeNs !== undefined && mtimeNs < nowNs - 3_000_000_000n ? { version, mtimeNs } : undefined;
    return version;
  }

  /** Loads (or reloads) the snapshot now; failures leave the slot empty (reads go to LanceDB). */
  load(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return (this.loading ??= TableSnapshot.load(this.db, this.spec)
      .then((s) => {
        if (this.closed) return s.close();
        if (this.current) retire(this.current);
        this.current = s;
      })
      .catch(() => this.drop())
      .finally(() => (this.loading = undefined)));
  }

  /** The snapshot when it holds the table's live version; otherwise undefined, and a reload is scheduled. */
  async fresh(): Promise<TableSnapshot | undefined> {
    if (this.closed || (!this.current && !this.timer && !this.loading && !this.wanted)) return undefined;
    const live = await this.liveVersion();
    if (this.current && this.current.version === live) return this.current;
    // versions only move forward: a stale snapshot never answers again, so its memory goes now (no two copies while
    // the next one loads)
    this.drop();
    // a load in flight answers for itself (the next read compares its version), so only an idle slot schedules one
    if (!this.loading) this.schedule();
    return undefined;
  }

  /** Whether the slot was loaded once (a stale or failed one then keeps trying to follow the table). */
  private wanted = false;

  /** Loads the snapshot and keeps it following the table. */
  async enable(): Promise<void> {
    this.wanted = true;
    await this.load();
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.load();
    }, this.quietMs);
    this.timer.unref?.();
  }

  /** Forgets the snapshot (a read from it failed: the store reads LanceDB, and a reload is scheduled). */
  drop(): void {
    if (this.current) retire(this.current);
    this.current = undefined;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.current?.close();
    this.current = undefined;
  }
}

/** A snapshot the slot no longer serves: see `TableSnapshot.closeLater`. */
function retire(snapshot: TableSnapshot): void {
  snapshot.closeLater();
}

/** Converted rows of one conversion: large rows (by position) and the most recently read others, with their text bytes. */
export interface ConvertedCache<T> {
  large: Map<number, T>;
  largeBytes: number;
  small: Map<number, { value: T; bytes: number }>;
  smallBytes: number;
}

/** Keeps a converted row within its budget: large rows start over when full, the others drop the oldest first. */
export function keepConverted<T>(cache: ConvertedCache<T>, position: number, bytes: number, value: T): void {
  if (bytes > LARGE_ROW_BYTES) {
    if (bytes > MAX_CONVERTED_BYTES) return;
    if (cache.largeBytes + bytes > MAX_CONVERTED_BYTES) {
      cache.large.clear();
      cache.largeBytes = 0;
    }
    cache.large.set(position, value);
    cache.largeBytes += bytes;
    return;
  }
  if (cache.small.has(position)) return;
  cache.small.set(position, { value, bytes });
  cache.smallBytes += bytes;
  for (const [oldest, entry] of cache.small) {
    if (cache.smallBytes <= MAX_CONVERTED_SMALL_BYTES) break;
    cache.small.delete(oldest);
    cache.smallBytes -= entry.bytes;
  }
}
