/**
 * The static code model's int8 table (rows × dims bytes, 24 MB for quarry-code), read row by row from its file into a
 * cache of kept rows (issue 19; two-way set-associative): 8,192 rows for searches — a search embeds one query and a few candidate names, tens
 * to hundreds of rows — and 32,768 while indexing, which embeds thousands of chunks of hundreds of rows each, most of
 * them the same frequent words. A long-running process drops the larger cache with the other indexing memos after a
 * large run (indexingMemos.ts). A row's bytes are the file's: vectors are the same to the bit however they were read.
 *
 * The kept rows live in a WebAssembly memory, where `weightedSum` adds them up with SIMD (weightedSum.wat: 3–4× the
 * speed of the JavaScript loop, which indexing spent a quarter of its main thread on). Its arithmetic is defined
 * element by element — out[j] = f32(out[j] + f32(f32(weight × scale) × row[j])), rows in order — so the JavaScript
 * fallback (a width that is not a multiple of 32, or no WebAssembly SIMD) gives the same bits.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { registerIndexingMemo } from '../../indexingMemos';
import { WEIGHTED_SUM_WASM } from './weightedSumWasm';

/** Rows one kernel call takes (a text has a few hundred distinct rows; more are summed in several calls). */
const BATCH = 4_096;

type SumFn = (rows: number, weights: number, n: number, out: number, dims: number) => void;

/** The part of the WebAssembly API used here (the project's TypeScript libraries do not declare its values). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer };
}
const Wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let kernelModule: object | null | undefined;
/** The compiled kernel, once per process; null where WebAssembly (with SIMD) is not available. */
function kernel(): object | null {
  if (kernelModule === undefined) {
    try {
      kernelModule = Wasm ? new Wasm.Module(Buffer.from(WEIGHTED_SUM_WASM, 'base64')) : null;
    } catch {
      kernelModule = null;
    }
  }
  return kernelModule;
}

/** The kept rows and the kernel's arguments in one WebAssembly memory: [slab | row addresses | weights | out]. */
interface KernelMemory {
  sum: SumFn;
  slab: Int8Array;
  rowsAt: number;
  weightsAt: number;
  outAt: number;
  addresses: Int32Array;
  weights: Float32Array;
  out: Float32Array;
}

function kernelMemory(slabBytes: number, dims: number): KernelMemory | undefined {
  const module = dims % 32 === 0 ? kernel() : null;
  if (!module) return undefined;
  const rowsAt = Math.ceil(slabBytes / 16) * 16;
  const weightsAt = rowsAt + BATCH * 4;
  const outAt = weightsAt + BATCH * 4;
  const memory = new Wasm!.Memory({ initial: Math.ceil((outAt + dims * 4) / 65_536) });
  const instance = new Wasm!.Instance(module, { env: { memory } });
  const buffer = memory.buffer;
  return {
    sum: instance.exports.sum as SumFn,
    slab: new Int8Array(buffer, 0, slabBytes),
    rowsAt,
    weightsAt,
    outAt,
    addresses: new Int32Array(buffer, rowsAt, BATCH),
    weights: new Float32Array(buffer, weightsAt, BATCH),
    out: new Float32Array(buffer, outAt, dims),
  };
}

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
  /** The memory the slab is part of, with the kernel (absent: the JavaScript sum over the same slab). */
  private wasm: KernelMemory | undefined;
  /** Per place, the batch of `weightedSum` that last referenced it (a place still to be summed is not replaced). */
  private pinned: Uint32Array | undefined;
  private batch = 1;
  /** Rows of the current batch not summed yet. */
  private pending = 0;
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
    const place = this.placeOf(r);
    return this.slab!.subarray(place * d, place * d + d);
  }

  /**
   * The weighted sum of rows (the model's vector before normalisation): out[j] = Σ_k f32(weights[k] × scales[rows[k]])
   * × row_k[j], in f32, rows in order (see the header). `weights` and `scales` as the model holds them.
   */
  weightedSum(rows: ArrayLike<number>, weights: ArrayLike<number>, scales: Float32Array): Float32Array {
    const d = this.dims;
    this.ensure();
    const wasm = this.wasm;
    if (!wasm) {
      const v = new Float32Array(d);
      for (let k = 0; k < rows.length; k++) {
        const r = rows[k]!;
        const w = Math.fround(weights[k]! * scales[r]!);
        const row = this.row(r);
        for (let j = 0; j < d; j++) v[j]! += Math.fround(w * row[j]!);
      }
      return v;
    }
    wasm.out.fill(0);
    this.batch = (this.batch + 1) >>> 0 || 1;
    this.pending = 0;
    for (let k = 0; k < rows.length; k++) {
      if (this.pending === BATCH) this.flush();
      const r = rows[k]!;
      const place = this.placeOf(r);
      this.pinned![place] = this.batch;
      wasm.addresses[this.pending] = place * d;
      wasm.weights[this.pending] = weights[k]! * scales[r]!;
      this.pending++;
    }
    this.flush();
    return wasm.out.slice();
  }

  /** Sums the rows of the batch so far into `out` (before one of their places is replaced, and at the end). */
  private flush(): void {
    const wasm = this.wasm!;
    if (this.pending > 0) wasm.sum(wasm.rowsAt, wasm.weightsAt, this.pending, wasm.outAt, this.dims);
    this.pending = 0;
    this.batch = (this.batch + 1) >>> 0 || 1;
  }

  private ensure(): void {
    if (this.slab) return;
    const d = this.dims;
    this.wasm = kernelMemory(this.slots * d, d);
    this.slab = this.wasm?.slab ?? new Int8Array(this.slots * d);
    this.tags = new Int32Array(this.slots).fill(-1);
    this.recent = new Uint8Array(this.slots >>> 1);
    this.pinned = new Uint32Array(this.slots);
    this.shift = 33 - Math.log2(this.slots);
  }

  /** The place (slab slot) of row `r`, read into it when it is not kept. */
  private placeOf(r: number): number {
    const d = this.dims;
    this.ensure();
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
      // the place's row is still to be summed by the current weightedSum: sum what is pending first
      if (this.pending > 0 && this.pinned![place] === this.batch) this.flush();
      this.fd ??= openSync(this.path, 'r');
      const n = readSync(this.fd, this.slab!, place * d, d, r * d);
      if (n !== d) throw new Error(`${this.path}: row ${r} is cut short (${n} of ${d} bytes; the file was truncated)`);
      if (tags[place] === -1) this.held++;
      tags[place] = r;
      this.reads++;
    }
    return place;
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
    this.wasm = undefined;
    this.pinned = undefined;
    this.pending = 0;
    this.tags = undefined;
    this.recent = undefined;
    this.held = 0;
  }

  /** Rows held in memory. */
  get size(): number {
    return this.held;
  }
}
