/**
 * The static code model's int8 table (rows × dims bytes, 24 MB for quarry-code), resident while indexing and read
 * row by row otherwise (issue 19).
 *
 * Indexing embeds thousands of chunks, each summing hundreds of rows: it reads the whole table into memory
 * (`resident`). A search embeds one query and a few candidate names: tens to hundreds of rows, which `row` reads from
 * the file (positioned reads through the operating system's page cache, about a microsecond each, the most recent
 * kept) when the table is not resident. A long-running process releases the resident copy with the other indexing
 * memos after a large run (indexingMemos.ts), so a language server at rest does not hold 24 MB it reads a few
 * hundred bytes of per search. Either way a row's bytes are the file's: vectors are the same to the bit.
 */
import { closeSync, openSync, readSync, readFileSync } from 'node:fs';
import { registerIndexingMemo } from '../../indexingMemos';

/**
 * Rows read from the file that are kept (256 bytes each for quarry-code: 2 MB). A description search reads its
 * query's rows and those of ~50 candidate names (the learned scorer's name similarity): ~1,000 rows, most of them
 * again on the next search.
 */
const ROW_CACHE = 8_192;

export class ModelTable {
  private table: Int8Array | undefined;
  /** Kept rows: row → slot in `slab` (insertion order = eviction order). */
  private readonly cache = new Map<number, number>();
  private slab: Int8Array | undefined;
  /** Slots in use (they are reused once every slot has been). */
  private used = 0;
  private fd: number | undefined;

  constructor(
    readonly path: string,
    readonly rows: number,
    readonly dims: number,
  ) {
    registerIndexingMemo(this);
  }

  /** The whole table in memory (read once until `clear`). Throws when the file's size is not rows × dims. */
  resident(): Int8Array {
    if (!this.table) {
      const buf = readFileSync(this.path);
      if (buf.length !== this.rows * this.dims) throw new Error(`${this.path} has ${buf.length} bytes, expected ${this.rows * this.dims}`);
      this.table = new Int8Array(buf.buffer, buf.byteOffset, buf.length);
      this.cache.clear();
    }
    return this.table;
  }

  /** The resident table, or undefined when rows are read from the file. */
  get residentTable(): Int8Array | undefined {
    return this.table;
  }

  /**
   * Row `r` (dims bytes): a view of the resident table, or of the kept rows (read from the file when missing; the
   * least recently used row makes room). The view is valid until the next call.
   */
  row(r: number): Int8Array {
    if (this.table) return this.table.subarray(r * this.dims, (r + 1) * this.dims);
    const d = this.dims;
    const slab = (this.slab ??= new Int8Array(ROW_CACHE * d));
    let slot = this.cache.get(r);
    if (slot !== undefined) {
      // most recently used last
      this.cache.delete(r);
      this.cache.set(r, slot);
      return slab.subarray(slot * d, (slot + 1) * d);
    }
    if (this.used < ROW_CACHE) slot = this.used++;
    else {
      const [oldest, free] = this.cache.entries().next().value!;
      this.cache.delete(oldest);
      slot = free;
    }
    this.fd ??= openSync(this.path, 'r');
    const n = readSync(this.fd, slab, slot * d, d, r * d);
    if (n !== d) throw new Error(`${this.path}: row ${r} is cut short (${n} of ${d} bytes; the file was truncated)`);
    this.cache.set(r, slot);
    return slab.subarray(slot * d, (slot + 1) * d);
  }

  /** Drops the resident table and the kept rows (an indexing memo: released after a large run). */
  clear(): void {
    this.table = undefined;
    this.cache.clear();
    this.slab = undefined;
    this.used = 0;
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        /* already closed */
      }
      this.fd = undefined;
    }
  }

  /** Rows held in memory (the whole table when resident). */
  get size(): number {
    return this.table ? this.rows : this.cache.size;
  }
}
