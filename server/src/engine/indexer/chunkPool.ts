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

/** Runs with fewer files than this chunk in-process (starting a worker and its grammars costs about a second). */
export const POOL_MIN_FILES = 400;

interface Slot {
  worker: Worker;
  inflight: number;
}

interface Pending {
  /** The file job (redone in-process when the worker fails), or undefined for a derived-facts request. */
  job?: FileJob;
  slot: Slot;
  resolve: (reply: { work?: FileWork; facts?: unknown[] } | undefined) => void;
}

export class ChunkPool {
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  private constructor(entry: WorkerEntry, count: number) {
    for (let i = 0; i < count; i++) {
      const worker = entry.evalCode ? new Worker(entry.evalCode, { eval: true }) : new Worker(entry.file);
      const slot: Slot = { worker, inflight: 0 };
      worker.on('message', (m: { id: number; work?: FileWork; facts?: unknown[]; failed?: string }) => this.settle(m.id, m.failed === undefined ? m : undefined));
      // a worker that fails takes no more jobs; what it held is done in-process
      worker.on('error', () => this.retire(slot));
      worker.on('exit', () => this.retire(slot));
      this.slots.push(slot);
    }
  }

  /**
   * A pool of `count` workers (default: `QUARRY_INDEX_WORKERS`, else one per core but one, at most 4), or undefined
   * when there is no worker entry to start (a bundle built without dist/chunk-worker.js) or no spare core.
   */
  static open(count = defaultWorkers()): ChunkPool | undefined {
    if (count < 1) return undefined;
    const entry = workerEntry();
    if (!entry) return undefined;
    try {
      return new ChunkPool(entry, count);
    } catch {
      return undefined;
    }
  }

  /** The file's work, from the least busy worker (in-process when none is left). */
  async run(job: FileJob): Promise<FileWork> {
    const reply = await this.send({ job }, job);
    return reply?.work ?? prepareFile(job);
  }

  /**
   * A derived-conformance pass's facts of these files (`DerivedConformances.factsOf`), computed by the least busy
   * worker; undefined when no worker could (the caller computes them itself).
   */
  async derive(language: string, files: DerivedFileChunks[]): Promise<unknown[] | undefined> {
    return (await this.send({ derive: { language, files } }))?.facts;
  }

  private send(request: object, job?: FileJob): Promise<{ work?: FileWork; facts?: unknown[] } | undefined> {
    if (this.closed || this.slots.length === 0) return Promise.resolve(undefined);
    const slot = this.slots.reduce((a, b) => (b.inflight < a.inflight ? b : a));
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { job, slot, resolve });
      slot.inflight++;
      try {
        slot.worker.postMessage({ id, ...request });
      } catch {
        this.settle(id, undefined);
      }
    });
  }

  /** Stops the workers; work still pending (a run that stopped early) is answered as not done, never done here. */
  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    for (const [id, p] of [...this.pending]) {
      this.pending.delete(id);
      p.resolve(p.job ? { work: { kind: 'error', error: { path: p.job.path, operation: 'read', message: 'the indexing run stopped before this file' } } } : undefined);
    }
    await Promise.all(slots.map((s) => s.worker.terminate().catch(() => undefined)));
  }

  /** Answers a request: the worker's reply, or undefined when it failed (a file job is then done in-process by `run`). */
  private settle(id: number, reply: { work?: FileWork; facts?: unknown[] } | undefined): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    p.slot.inflight--;
    p.resolve(reply);
  }

  private retire(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    for (const [id, p] of [...this.pending]) if (p.slot === slot) this.settle(id, undefined);
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
