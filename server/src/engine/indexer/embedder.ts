/**
 * The dense phase of indexing: embeds chunks whose content has no vector yet for the current model, newest
 * files first, in batches, into the model's vector table (which doubles as the cache keyed by content
 * hash, so unchanged code is never embedded twice). The lexical index is searchable before and during this
 * phase; a provider failure stops the phase, never the index (seed 003 Q5, seed 002 FR-009c): the remaining
 * chunks stay BM25-searchable and are embedded by a later run.
 */
import { releaseIndexingMemos } from '../indexingMemos';
import type { Chunk } from '../types';
import type { ChunkStore } from '../store/chunkStore';
import type { EmbeddingProvider } from '../embedding/types';
import { traced } from '../log';

export interface EmbedProgress {
  model: string;
  total: number;
  done: number;
}

export interface EmbedSummary {
  model: string;
  /** Distinct contents that needed a vector when the phase started. */
  missing: number;
  embedded: number;
  /** Contents already cached (embedded earlier, possibly under another path). */
  cached: number;
  /** Of `embedded`, those embedded during the lexical phase (earlyEmbedder.ts; one-shot runs with the static model). */
  duringLexical?: number;
  durationMs: number;
  /** Why the phase stopped early, if it did. */
  stoppedBy?: string;
  /**
   * When the provider failed (not an interruption): what the user must know — the cause, how many chunks have no
   * vector, what search does meanwhile and how to finish (issue 20: an index whose embeddings failed is never quiet).
   */
  warning?: string;
}

export interface EmbedOptions {
  signal?: AbortSignal;
  onProgress?: (p: EmbedProgress) => void;
  batchSize?: number;
  /** Chunks read from the store, and vectors written, per window (default 512). */
  windowSize?: number;
  /**
   * Only the chunks of these paths (a run over a few files, when no vector was missing before it: a save no longer
   * reads the content hash of every chunk of the index, 50 ms at 96k chunks); default every chunk.
   */
  paths?: readonly string[];
  /**
   * `paths` holds only while the vector table still has at least this many vectors (what the last complete phase left):
   * a table that lost vectors behind the index's back (data files deleted) has every chunk checked again.
   */
  pathsNeedVectors?: number;
  /**
   * A one-shot process: drop the indexing memos and collect the garbage before the vector index is built (a
   * long-running one keeps its memos for the next runs).
   */
  releaseMemory?: boolean;
}

export async function backfillEmbeddings(
  store: ChunkStore,
  provider: EmbeddingProvider,
  view: (chunk: Chunk) => string,
  options: EmbedOptions = {},
): Promise<EmbedSummary> {
  const started = Date.now();
  const vectors = await store.vectors(provider.id, provider.dims);
  // the vectors held (one per content hash: `add` never writes a hash twice)
  const held = await vectors.count();
  const trusted = options.paths !== undefined && held >= (options.pathsNeedVectors ?? 0);
  let missing: Array<{ contentHash: string; path: string }>;
  if (trusted) {
    // the files' chunks only, their hashes looked up (not every hash of the table decoded: see VectorStore.missing)
    const chunks = await store.missingHashes(new Set(), options.paths);
    const absent = new Set(await vectors.missing(chunks.map((c) => c.contentHash)));
    missing = chunks.filter((c) => absent.has(c.contentHash));
  } else {
    missing = await store.missingHashes(await vectors.knownHashes());
  }
  const files = await store.fileRecords();
  // Newest (most recently edited) files first: what the user is working on gets semantic search first.
  missing.sort((a, b) => (files.get(b.path)?.mtimeMs ?? 0) - (files.get(a.path)?.mtimeMs ?? 0));
  const summary: EmbedSummary = { model: provider.id, missing: missing.length, embedded: 0, cached: held, durationMs: 0 };
  const batchSize = options.batchSize ?? 32;
  // Chunks are read and vectors written a window at a time (a store query and a table append per window, not per
  // embedding batch: on a cold index of 70k chunks, thousands of small LanceDB round trips and fragments otherwise).
  const window = Math.max(batchSize, options.windowSize ?? 512);
  const progress = (): void => options.onProgress?.({ model: provider.id, total: missing.length, done: summary.embedded });
  progress();
  outer: for (let w = 0; w < missing.length; w += window) {
    if (options.signal?.aborted) {
      summary.stoppedBy = 'interrupted';
      break;
    }
    const windowHashes = missing.slice(w, w + window).map((m) => m.contentHash);
    const byHash = new Map<string, Chunk>();
    for (const c of await store.chunksByHashes(windowHashes)) if (!byHash.has(c.contentHash)) byHash.set(c.contentHash, c);
    const pending: Array<{ contentHash: string; vector: Float32Array }> = [];
    const flush = async () => {
      if (pending.length) summary.embedded += await vectors.add(pending.splice(0));
      progress();
    };
    for (let i = 0; i < windowHashes.length; i += batchSize) {
      if (options.signal?.aborted) {
        summary.stoppedBy = 'interrupted';
        await flush();
        break outer;
      }
      const items = windowHashes.slice(i, i + batchSize).filter((h) => byHash.has(h)).map((h) => ({ hash: h, text: view(byHash.get(h)!) }));
      if (!items.length) continue;
      let vecs: Float32Array[];
      try {
        vecs = await traced('embedder', 'embed_batch', { model: provider.id, texts: items.length }, () => provider.embedDocuments(items.map((it) => it.text), options.signal), true);
      } catch (e) {
        summary.stoppedBy = `${provider.id}: ${(e as Error).message}`;
        await flush();
        break outer;
      }
      items.forEach((it, j) => pending.push({ contentHash: it.hash, vector: vecs[j] }));
      // Progress between writes counts what is embedded but not yet written.
      options.onProgress?.({ model: provider.id, total: missing.length, done: summary.embedded + pending.length });
    }
    await flush();
  }
  // A one-shot run collects its garbage before LanceDB builds the vector index (IVF_FLAT held the vectors about twice
  // for half a second, the highest moment of a cold index — issue 21: 552 against 596 MB on average over 4 pairs on
  // the Go tree; IVF_RQ holds about 130 MB). Only when the index is built: a small run pays nothing.
  await vectors.maintain({ beforeAnnBuild: options.releaseMemory ? () => releaseIndexingMemos(true) : undefined });
  if (summary.stoppedBy && summary.stoppedBy !== 'interrupted') {
    const without = summary.missing - summary.embedded;
    summary.warning =
      `Embedding stopped after ${summary.embedded} of ${summary.missing} chunks (${summary.stoppedBy}). ` +
      `Search finds the ${without} chunk${without === 1 ? '' : 's'} without a vector by keywords (BM25) only until they are embedded; ` +
      'the keyword index is complete (exit code 0), and the next `quarry index` embeds what is missing.';
  }
  summary.durationMs = Date.now() - started;
  return summary;
}
