/**
 * Worker threads for the per-file work of a large indexing run (fileWork.ts: read, hash, parse, chunk), so that
 * chunking the next files runs beside the indexing thread's commits (LanceDB, the lexical index) and on the other
 * cores. Results are the same as in-process ones (the same code, structured-cloned back); the run applies them in
 * file order. A pool that cannot start, or a worker that fails, falls back to in-process work: never a lost file.
 */
import { existsSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DerivedFileChunks } from '../chunking/languages/types';
import { prepareFile, type FileJob, type FileWork } from './fileWork';

/**
 * Runs with fewer files than this chunk in-process. Starting a worker (its bundle, grammars and token table) costs
 * about 0.15 s of CPU on the other core; from a few dozen files on, chunking beside the indexing thread (which builds
 * each file's lexical documents and vectors as its chunks arrive) pays for it: 300 files of the Go tree indexed cold
 * in 2.4–2.6 s instead of 2.8–3.0 s, 100 files in 1.9–2.0 s instead of 2.1–2.2 s (2 cores; was 400 files when a worker
 * start cost about a second).
 */
export const POOL_MIN_FILES = 64;

/**
 * With `renew` (a long-running process), a worker that has parsed a file at least this large is replaced by a fresh
 * one once it has answered its jobs (issue 19): the parser's WebAssembly memory grows to hold the largest tree it
 * built and never shrinks — a 1 MB generated Go file leaves about 34 MB behind for the rest of the run. The worker
 * gets no new job meanwhile, so two never run at once. (256 KB lowered the peak no more, with more worker starts.)
 */
export const LARGE_PARSE_BYTES = 512 * 1024;

/** Requests a worker holds at once; the rest wait in the pool (so a worker can be drained and replaced at any time). */
const WINDOW = 16;

interface Slot {
  worker: Worker;
  inflight: number;
  /** The largest file (bytes) sent to this worker. */
  largest: number;
}

interface Request {
  id: number;
  message: object;
  /** The file job (redone in-process when the worker fails), or undefined for a derived-facts request. */
  job?: FileJob;
  size: number;
  resolve: (reply: { work?: FileWork; facts?: unknown[] } | undefined) => void;
}

interface Pending extends Request {
  slot: Slot;
}

export class ChunkPool {
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  /** Requests not yet sent to a worker, in order. */
  private readonly queue: Request[] = [];
  private nextId = 1;
  private closed = false;

  /** Workers stopped and replaced after a large file (see LARGE_PARSE_BYTES). */
  renewed = 0;

  private constructor(
    private readonly entry: WorkerEntry,
    count: number,
    /** Replace a worker that parsed a large file (see LARGE_PARSE_BYTES). */
    private readonly renewLarge: boolean,
  ) {
    for (let i = 0; i < count; i++) this.slots.push(this.start());
  }

  private start(): Slot {
    const { entry } = this;
    const worker = entry.evalCode ? new Worker(entry.evalCode, { eval: true }) : new Worker(entry.file);
    const slot: Slot = { worker, inflight: 0, largest: 0 };
    worker.on('message', (m: { id: number; work?: FileWork; facts?: unknown[]; failed?: string }) => this.settle(m.id, m.failed === undefined ? m : undefined));
    // a worker that fails takes no more jobs; what it held is done in-process
    worker.on('error', () => this.retire(slot));
    worker.on('exit', () => this.retire(slot));
    return slot;
  }

  /**
   * A pool of `count` workers (default: `QUARRY_INDEX_WORKERS`, else one per core but one, at most 4), or undefined
   * when there is no worker entry to start (a bundle built without dist/chunk-worker.js) or no spare core.
   */
  static open(count = defaultWorkers(), options: { renew?: boolean } = {}): ChunkPool | undefined {
    if (count < 1) return undefined;
    const entry = workerEntry();
    if (!entry) return undefined;
    try {
      return new ChunkPool(entry, count, options.renew === true);
    } catch {
      return undefined;
    }
  }

  /** The file's work (`size`: its bytes), from the least busy worker (in-process when none is left). */
  async run(job: FileJob, size = 0): Promise<FileWork> {
    const reply = await this.send({ job }, job, size);
    return reply?.work ?? prepareFile(job);
  }

  /**
   * A derived-conformance pass's facts of these files (`DerivedConformances.factsOf`), computed by the least busy
   * worker; undefined when no worker could (the caller computes them itself).
   */
  async derive(language: string, files: DerivedFileChunks[]): Promise<unknown[] | undefined> {
    return (await this.send({ derive: { language, files } }))?.facts;
  }

  private send(message: object, job?: FileJob, size = 0): Promise<{ work?: FileWork; facts?: unknown[] } | undefined> {
    if (this.closed || this.slots.length === 0) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, message, job, size, resolve });
      this.pump();
    });
  }

  /** Hands queued requests to workers with room in their window; replaces a drained worker that parsed a large file. */
  private pump(): void {
    while (this.queue.length) {
      if (this.closed || this.slots.length === 0) {
        for (const r of this.queue.splice(0)) r.resolve(undefined);
        return;
      }
      for (const [i, slot] of this.slots.entries()) if (slot.largest >= LARGE_PARSE_BYTES && slot.inflight === 0) this.renew(i);
      const open = this.slots.filter((s) => s.largest < LARGE_PARSE_BYTES && s.inflight < WINDOW);
      if (!open.length) return; // a worker's answer pumps again
      const slot = open.reduce((a, b) => (b.inflight < a.inflight ? b : a));
      const r = this.queue.shift()!;
      if (this.renewLarge) slot.largest = Math.max(slot.largest, r.size);
      this.pending.set(r.id, { ...r, slot });
      slot.inflight++;
      try {
        slot.worker.postMessage({ id: r.id, ...r.message });
      } catch {
        this.settle(r.id, undefined);
      }
    }
  }

  /** A fresh worker in the place of the idle one at `i`, which stops (kept when no new one starts). */
  private renew(i: number): void {
    const old = this.slots[i]!;
    try {
      this.slots[i] = this.start();
    } catch {
      old.largest = 0;
      return;
    }
    this.renewed++;
    void old.worker.terminate().catch(() => undefined);
  }

  /** Stops the workers; work still pending (a run that stopped early) is answered as not done, never done here. */
  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    const stopped = (r: Request) => r.resolve(r.job ? { work: { kind: 'error', error: { path: r.job.path, operation: 'read', message: 'the indexing run stopped before this file' } } } : undefined);
    for (const [id, p] of [...this.pending]) {
      this.pending.delete(id);
      stopped(p);
    }
    for (const r of this.queue.splice(0)) stopped(r);
    await Promise.all(slots.map((s) => s.worker.terminate().catch(() => undefined)));
  }

  /** Answers a request: the worker's reply, or undefined when it failed (a file job is then done in-process by `run`). */
  private settle(id: number, reply: { work?: FileWork; facts?: unknown[] } | undefined): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.slot.inflight--;
    p.resolve(reply);
    this.pump();
  }

  private retire(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    for (const [id, p] of [...this.pending]) if (p.slot === slot) this.settle(id, undefined);
    this.pump();
  }
}

function defaultWorkers(): number {
  const env = Number(process.env.QUARRY_INDEX_WORKERS);
  if (process.env.QUARRY_INDEX_WORKERS !== undefined && Number.isFinite(env)) return Math.max(0, Math.floor(env));
  const cores = typeof availableParallelism === 'function' ? availableParallelism() : cpus().length;
  return Math.min(4, Math.max(0, cores - 1));
}

interface WorkerEntry {
  file: string;
  /** Code for an `eval` worker (running from TypeScript sources under tsx). */
  evalCode?: string;
}

/** dist/chunk-worker.js beside the bundle that holds this code; the TypeScript source under tsx; else none. */
function workerEntry(): WorkerEntry | undefined {
  const bundled = join(__dirname, 'chunk-worker.js');
  if (existsSync(bundled)) return { file: bundled };
  const source = join(__dirname, 'chunkWorker.ts');
  if (__filename.endsWith('.ts') && existsSync(source)) {
    return { file: source, evalCode: `require('tsx/cjs'); require(${JSON.stringify(source)});` };
  }
  return undefined;
}
