/**
 * The static code model's int8 table (rows × dims bytes, 24 MB for quarry-code), read row by row from its file into a
 * cache of kept rows (issue 19; two-way set-associative): 8,192 rows for searches — a search embeds one query and a few candidate names, tens
 * to hundreds of rows — and 32,768 while indexing, which embeds thousands of chunks of hundreds of rows each, most of
 * them the same frequent words. A long-running process drops the larger cache with the other indexing memos after a
 * large run (indexingMemos.ts). A row's bytes are the file's: vectors are the same to the bit however they were read.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { registerIndexingMemo } from '../../indexingMemos';

/** Rows kept for searches (256 bytes each for quarry-code: 2 MB): a query's rows and ~50 candidate names' (~1,000 rows). */
const SEARCH_ROWS = 8_192;
/**
 * Rows kept while indexing (8 MB for quarry-code, a third of its 93k rows): code's words follow a steep frequency
 * curve, so nearly every row an indexing run sums is already kept (issue 19: the whole 24 MB table, resident, was the
 * language server's highest memory during its first index).
 */
const INDEXING_ROWS = 32_768;

export class ModelTable {
  /**
   * Kept rows, `slots` × dims bytes, in sets of two places (a two-way set-associative cache: a row's set is a hash of
   * its number; of the two places, a miss replaces the one used less recently).
   */
  private slab: Int8Array | undefined;
  /** The row held at each place (-1: none). */
  private tags: Int32Array | undefined;
  /** Per set, the place (0 or 1) used last. */
  private recent: Uint8Array | undefined;
  /** A power of two. */
  private slots = SEARCH_ROWS;
  /** 32 − log2(sets): the hash's bits that pick a set. */
  private shift = 0;
  private held = 0;
  private fd: number | undefined;
  /** Rows read from the file (cache misses), for tests and benchmarks. */
  reads = 0;

  constructor(
    readonly path: string,
    readonly rows: number,
    readonly dims: number,
  ) {
    registerIndexingMemo(this);
    const size = statSync(path).size;
    if (size !== rows * dims) throw new Error(`${path} has ${size} bytes, expected ${rows * dims}`);
  }

  /** Keeps more rows (an indexing run's batches) until `clear`. */
  forIndexing(): void {
    if (this.slots >= INDEXING_ROWS) return;
    this.drop();
    this.slots = INDEXING_ROWS;
  }

  /** Rows the cache can keep now. */
  get capacity(): number {
    return this.slots;
  }

  /**
   * Row `r` (dims bytes): a view of the kept copy, read from the file when it is not kept (positioned reads through
   * the operating system's page cache, about a microsecond each). The view is valid until the next call.
   */
  row(r: number): Int8Array {
    const d = this.dims;
    if (!this.slab) {
      this.slab = new Int8Array(this.slots * d);
      this.tags = new Int32Array(this.slots).fill(-1);
      this.recent = new Uint8Array(this.slots >>> 1);
      this.shift = 33 - Math.log2(this.slots);
    }
    const tags = this.tags!;
    // Fibonacci hashing (the product's high bits) spreads rows that share low bits (the model's vocabulary and its
    // 3-gram buckets do)
    const set = Math.imul(r, 0x9e3779b1) >>> this.shift;
    let place = set * 2;
    if (tags[place] === r) this.recent![set] = 0;
    else if (tags[place + 1] === r) {
      place++;
      this.recent![set] = 1;
    } else {
      if (this.recent![set] === 0) place++;
      this.recent![set] = place & 1;
      this.fd ??= openSync(this.path, 'r');
      const n = readSync(this.fd, this.slab, place * d, d, r * d);
      if (n !== d) throw new Error(`${this.path}: row ${r} is cut short (${n} of ${d} bytes; the file was truncated)`);
      if (tags[place] === -1) this.held++;
      tags[place] = r;
      this.reads++;
    }
    return this.slab.subarray(place * d, place * d + d);
  }

  /** Drops the kept rows and goes back to a search's cache (an indexing memo: released after a large run). */
  clear(): void {
    this.drop();
    this.slots = SEARCH_ROWS;
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        /* already closed */
      }
      this.fd = undefined;
    }
  }

  private drop(): void {
    this.slab = undefined;
    this.tags = undefined;
    this.recent = undefined;
    this.held = 0;
  }

  /** Rows held in memory. */
  get size(): number {
    return this.held;
  }
}
