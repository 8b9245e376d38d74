/**
 * Embedding during the lexical phase (issue 21). In a one-shot `quarry index` on two cores the chunking worker is the
 * lexical phase's bottleneck and the indexing thread waits for it about half of the time; with a provider that embeds
 * on this thread in microseconds a text (`EmbeddingProvider.embedsWhileIndexing`: the static code model), each file's
 * chunks, as they arrive from the worker (in-process: each committed batch's), are embedded in that waiting time, a few dozen at a time between the run's own steps, and
 * their vectors written a window at a time. The dense phase after the lexical one (embedder.ts) then finds them in the
 * vector table (the cache by content hash) and embeds only the rest, so the vectors are the same either way.
 *
 * It never holds up the run: it works only when the event loop has nothing else to do (one batch of texts at a time,
 * a few milliseconds), keeps at most `MAX_QUEUED` texts (`MAX_QUEUED_CHARS` characters) waiting (the rest are left to
 * the dense phase), and on any failure stops quietly, leaving what it did not embed to the dense phase, which reports the failure as it always has.
 * Long-running processes do not use it (their memory target leaves no room for the queue and the early writes).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Chunk } from '../types';
import type { ChunkStore } from '../store/chunkStore';
import type { EmbeddingProvider } from '../embedding/types';
import type { VectorStore } from '../store/vectorStore';
import { logger } from '../log';

/**
 * Texts waiting at most (about a batch and a half of a large run), and their characters at most (a generated file's
 * chunks are up to 16,000 characters each); more are left to the dense phase.
 */
const MAX_QUEUED = 1500;
const MAX_QUEUED_CHARS = 2_000_000;
/** Texts embedded per step (the dense phase's batch size). */
const STEP = 32;
/** Vectors written per table append (the dense phase's window: one fragment each). */
const WINDOW = 512;

export class EarlyEmbedder {
  /** Content hash and embedded text (the view: not the chunk, whose other fields would be kept alive too). */
  private readonly queue: Array<{ hash: string; text: string }> = [];
  private readonly seen = new Set<string>();
  private pending: Array<{ contentHash: string; vector: Float32Array }> = [];
  private queuedChars = 0;
  private wake?: () => void;
  private stopped = false;
  private readonly loop: Promise<void>;
  /** Vectors written. */
  embedded = 0;

  constructor(
    private readonly store: ChunkStore,
    private readonly provider: EmbeddingProvider,
    private readonly view: (chunk: Chunk) => string,
    private readonly signal?: AbortSignal,
  ) {
    this.loop = this.run().catch((e) => {
      logger('indexer').debug({ operation: 'early_embedding', error: { type: (e as Error).name, message: (e as Error).message } }, 'embedding during the lexical phase stopped; the dense phase embeds the rest');
    });
  }

  /**
   * Chunks of the run (those whose content is new to this run and has no vector are embedded). A vector written for a
   * chunk whose rows a failed run never wrote is only a cache entry by content hash: the next run uses it.
   */
  offer(chunks: readonly Chunk[]): void {
    if (this.stopped) return;
    for (const c of chunks) {
      if (this.seen.has(c.contentHash)) continue;
      this.seen.add(c.contentHash);
      // a full queue leaves the chunk to the dense phase
      if (this.queue.length >= MAX_QUEUED || this.queuedChars >= MAX_QUEUED_CHARS) continue;
      const text = this.view(c);
      this.queue.push({ hash: c.contentHash, text });
      this.queuedChars += text.length;
    }
    this.wake?.();
  }

  /** Stops taking chunks, writes the vectors computed so far, and returns how many it wrote in all. */
  async finish(): Promise<number> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    return this.embedded;
  }

  private async run(): Promise<void> {
    const vectors: VectorStore = await this.store.vectors(this.provider.id, this.provider.dims);
    try {
      while (!this.stopped && !this.signal?.aborted) {
        if (!this.queue.length) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          this.wake = undefined;
          continue;
        }
        const taken = this.queue.splice(0, STEP);
        for (const q of taken) this.queuedChars -= q.text.length;
        const absent = new Set(await vectors.missing(taken.map((q) => q.hash)));
        const step = taken.filter((q) => absent.has(q.hash));
        if (step.length) {
          const vecs = await this.provider.embedDocuments(step.map((q) => q.text), this.signal);
          step.forEach((q, i) => this.pending.push({ contentHash: q.hash, vector: vecs[i]! }));
          if (this.pending.length >= WINDOW) await this.flush(vectors);
        }
        // the run's own steps (a worker's answer, a commit) go first
        await nextTurn();
      }
    } finally {
      this.queue.length = 0;
      await this.flush(vectors);
    }
  }

  private async flush(vectors: VectorStore): Promise<void> {
    if (!this.pending.length) return;
    const rows = this.pending;
    this.pending = [];
    this.embedded += await vectors.add(rows);
  }
}
