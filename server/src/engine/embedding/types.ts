/**
 * The embedding and reranking provider contracts. Providers know nothing of the store or the index:
 * they turn texts into vectors (or scores) and report their health.
 */
import type { Candidate } from '../ranking/candidate';
import type { ParsedQuery } from '../ranking/query';

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface ProviderHealth {
  status: 'up' | 'down';
  /** Circuit breaker state (seed 002 FR-008a); local providers are always 'closed'. */
  circuit: CircuitState;
  /** Latency of the last successful call, ms. */
  lastLatencyMs: number | null;
  requests: number;
  errors: number;
  /** Times the circuit breaker has opened (FR-041 `circuit_breaker_open_count`); absent for local providers. */
  circuitOpenCount?: number;
  lastError?: string;
}

export interface EmbeddingProvider {
  /**
   * Stable model id stored with every vector (`local-use:use-lite-512`, `onnx:<dir name>@<sha>`,
   * `voyage:voyage-code-3`): a different id means every vector must be recomputed.
   */
  readonly id: string;
  readonly dims: number;
  /** Longest input (in the provider's own tokens) it reads; longer texts are truncated by the provider. */
  readonly maxInputTokens: number;
  /** 'remote' providers are subject to the failure contract (timeouts, retries, breaker). */
  readonly kind: 'local' | 'remote';
  /**
   * True when a text is embedded on the calling thread in microseconds (the static code model): a one-shot indexing
   * run then embeds committed chunks while its thread waits for the chunking worker (indexer/earlyEmbedder.ts).
   */
  readonly embedsWhileIndexing?: boolean;
  /**
   * The dense channel's fusion weight (BM25 = 1) by query form, as measured on the benchmark for this model;
   * used when `retrieval.channelWeights.dense` is `auto`. Absent: 1 for both.
   */
  readonly fusionWeights?: { identifier: number; natural: number };
  /**
   * When no keyword matches at all, dense neighbours below this cosine similarity are not shown (they are what any
   * unrelated text is near to). Absent: 0.
   */
  readonly minFallbackSimilarity?: number;
  /** Vectors for documents, L2-normalised, in input order. */
  embedDocuments(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /** Vector for a query (some models embed queries differently), L2-normalised. */
  embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array>;
  health(): ProviderHealth;
  close(): Promise<void>;
}

export interface RerankResult {
  /** Index into the documents passed in. */
  index: number;
  score: number;
}

export interface Reranker {
  readonly id: string;
  readonly kind: 'local' | 'remote';
  /** Scores for the documents, best first, at most topK. */
  rerank(query: string, documents: string[], topK: number, signal?: AbortSignal): Promise<RerankResult[]>;
  /**
   * For rerankers that read the candidates themselves (channel scores and ranks, matched index fields, chunk facts)
   * rather than only their text: one relevance score per candidate, in the order given. When present, the rerank
   * step uses it instead of `rerank`.
   */
  scoreCandidates?(query: ParsedQuery, candidates: readonly Candidate[]): number[];
  /**
   * True for a reranker trained on hybrid candidate lists (both channels served): a search that ran on one channel
   * only keeps its order (its search_strategy then has no SEMANTIC_RERANK).
   */
  readonly needsBothChannels?: boolean;
  health(): ProviderHealth;
  close(): Promise<void>;
}

/** Raised when a provider cannot serve (unreachable, breaker open, bad credentials); names cause and fix. */
export class ProviderUnavailableError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'ProviderUnavailableError';
  }
}
