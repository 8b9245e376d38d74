/**
 * The dense phase of indexing: embeds chunks whose content has no vector yet for the current model, newest
 * files first, in batches, into the model's vector table (which doubles as the cache keyed by content
 * hash, so unchanged code is never embedded twice). The lexical index is searchable before and during this
 * phase; a provider failure stops the phase, never the index (seed 003 Q5, seed 002 FR-009c): the remaining
 * chunks stay BM25-searchable and are embedded by a later run.
 */
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
  durationMs: number;
  /** Why the phase stopped early, if it did. */
  stoppedBy?: string;
}

export interface EmbedOptions {
  signal?: AbortSignal;
  onProgress?: (p: EmbedProgress) => void;
  batchSize?: number;
}

export async function backfillEmbeddings(
  store: ChunkStore,
  provider: EmbeddingProvider,
  view: (chunk: Chunk) => string,
  options: EmbedOptions = {},
): Promise<EmbedSummary> {
  const started = Date.now();
  const vectors = await store.vectors(provider.id, provider.dims);
  const known = await vectors.knownHashes();
  const missing = await store.missingHashes(known);
  const files = await store.fileRecords();
  // Newest (most recently edited) files first: what the user is working on gets semantic search first.
  missing.sort((a, b) => (files.get(b.path)?.mtimeMs ?? 0) - (files.get(a.path)?.mtimeMs ?? 0));
  const summary: EmbedSummary = { model: provider.id, missing: missing.length, embedded: 0, cached: known.size, durationMs: 0 };
  const batchSize = options.batchSize ?? 32;
  const progress = (): void => options.onProgress?.({ model: provider.id, total: missing.length, done: summary.embedded });
  progress();
  for (let i = 0; i < missing.length; i += batchSize) {
    if (options.signal?.aborted) {
      summary.stoppedBy = 'interrupted';
      break;
    }
    const hashes = missing.slice(i, i + batchSize).map((m) => m.contentHash);
    const byHash = new Map<string, Chunk>();
    for (const c of await store.chunksByHashes(hashes)) if (!byHash.has(c.contentHash)) byHash.set(c.contentHash, c);
    const items = hashes.filter((h) => byHash.has(h)).map((h) => ({ hash: h, text: view(byHash.get(h)!) }));
    if (!items.length) continue;
    let vecs: Float32Array[];
    try {
      vecs = await traced('embedder', 'embed_batch', { model: provider.id, texts: items.length }, () => provider.embedDocuments(items.map((it) => it.text), options.signal), true);
    } catch (e) {
      summary.stoppedBy = `${provider.id}: ${(e as Error).message}`;
      break;
    }
    summary.embedded += await vectors.add(items.map((it, j) => ({ contentHash: it.hash, vector: vecs[j] })));
    progress();
  }
  await vectors.maintain();
  summary.durationMs = Date.now() - started;
  return summary;
}
