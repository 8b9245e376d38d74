/**
 * Service health in seed 002's FR-010-Enhanced shape (served at `/health/` by `quarry serve`, shown by status
 * commands). Transport-free: the engine fills it; doors serialize it.
 */
import type { ProviderHealth } from './embedding/types';
import { latency, type RollingLatency } from './metrics';

export interface HealthReport {
  status: 'healthy' | 'degraded' | 'unhealthy';
  timestamp: string;
  uptime_seconds: number;
  indexing: {
    state: 'idle' | 'indexing' | 'error';
    progress: {
      files_discovered: number;
      files_processed: number;
      chunks_created: number;
      errors: number;
      current_file: string | null;
      start_time: string | null;
      estimated_completion: string | null;
    };
    last_indexed: string | null;
  };
  services: {
    vector_store: { status: 'up' | 'down' | 'degraded'; latency_ms: number | null };
    embedding_provider: { status: 'up' | 'down' | 'none'; model: string | null; latency_ms: number | null; circuit_breaker_state: string };
    sparse_embedding: { status: 'up'; provider: string };
    reranking: { status: 'up' | 'down' | 'none'; model: string | null; latency_ms: number | null };
  };
  statistics: {
    total_chunks_indexed: number;
    total_files_indexed: number;
    languages_indexed: string[];
    index_size_mb: number;
    queries_processed: number;
    avg_query_latency_ms: number;
    search_query_latency_ms: { p50: number; p95: number; p99: number };
  };
  /** Seed 002 FR-041 metrics, for this process since it started. */
  metrics: {
    search_query_latency_ms: { p50: number; p95: number; p99: number };
    search_queries_total: number;
    search_results_returned: { avg: number; p50: number; p95: number };
    search_intent_distribution: Record<string, number>;
    indexing_files_per_second: number;
    indexing_chunks_created_total: number;
    indexing_errors_total: number;
    indexing_duration_seconds: number | null;
    embedding_api_requests_total: number;
    embedding_api_errors_total: number;
    /** Query-time embedding calls of this process (the provider's last call latency is under services). */
    embedding_api_latency_ms: { p50: number; p95: number; p99: number };
    /** LanceDB operations of searches: dense kNN and chunk hydration. */
    vector_store_operation_latency_ms: { p50: number; p95: number; p99: number };
    circuit_breaker_state: string;
    circuit_breaker_open_count: number;
  };
}

/** Live indexing progress as the engine sees it. */
export interface IndexingState {
  state: 'idle' | 'indexing' | 'error';
  /**
   * Where a run is: looking for changed files, indexing them, committing the last batch (the keyword phase), then
   * embedding the new chunks and refreshing their git history (the keyword index is complete by then).
   */
  phase?: 'discovering' | 'indexing' | 'finalizing' | 'embedding' | 'git';
  filesDiscovered: number;
  filesToProcess: number;
  filesProcessed: number;
  chunksCreated: number;
  errors: number;
  currentFile: string | null;
  startedAt: number | null;
  lastError?: string;
}

/** Estimated completion from the rate so far (null until there is a rate). */
export function estimateCompletion(s: IndexingState, now = Date.now()): string | null {
  if (s.state !== 'indexing' || !s.startedAt || s.filesProcessed <= 0 || s.filesToProcess <= 0) return null;
  const elapsed = now - s.startedAt;
  const remaining = ((s.filesToProcess - s.filesProcessed) * elapsed) / s.filesProcessed;
  return new Date(now + remaining).toISOString();
}

/** FR-010: healthy = everything up; degraded = core search works with something down; unhealthy = store down. */
export function overallStatus(storeUp: boolean, embedding: ProviderHealth | null, reranker: ProviderHealth | null, indexing: IndexingState): HealthReport['status'] {
  if (!storeUp) return 'unhealthy';
  if (indexing.state === 'error') return 'degraded';
  if (embedding && (embedding.status === 'down' || embedding.circuit !== 'closed')) return 'degraded';
  if (reranker && reranker.status === 'down') return 'degraded';
  return 'healthy';
}

export { latency };

/** What the engine knows when it is asked for its health (it gathers; `buildHealthReport` only formats). */
export interface HealthInputs {
  storeUp: boolean;
  storeLatencyMs: number | null;
  counts: { chunks: number; files: number };
  languages: string[];
  embedding: { id: string; health: ProviderHealth } | null;
  reranker: { id: string; health: ProviderHealth } | null;
  indexing: IndexingState;
  lastIndexed: string | null;
  /** Problems found when the index was opened: they make it degraded, never healthy. */
  problems: readonly string[];
  openedAt: number;
  indexSizeBytes: number;
  queryLatency: RollingLatency;
  resultsReturned: RollingLatency;
  embeddingLatency: RollingLatency;
  vectorStoreLatency: RollingLatency;
  intentCounts: Record<string, number>;
  indexTotals: { chunks: number; errors: number; lastDurationSeconds: number | null };
}

const pick3 = (l: { p50: number; p95: number; p99: number }) => ({ p50: l.p50, p95: l.p95, p99: l.p99 });

/** Seed 002 FR-010-Enhanced: the health report (indexing progress, services, statistics, FR-041 metrics). */
export function buildHealthReport(h: HealthInputs, now = Date.now()): HealthReport {
  const emb = h.embedding?.health ?? null;
  const rr = h.reranker?.health ?? null;
  const lat = h.queryLatency.summary();
  const results = h.resultsReturned.summary();
  const ix = h.indexing;
  const elapsedS = ix.startedAt ? (now - ix.startedAt) / 1000 : 0;
  const rate = ix.state === 'indexing' && elapsedS > 0 ? Math.round((ix.filesProcessed / elapsedS) * 10) / 10 : 0;
  const status = overallStatus(h.storeUp, emb, rr, ix);
  return {
    status: status === 'healthy' && h.problems.length ? 'degraded' : status,
    timestamp: new Date(now).toISOString(),
    uptime_seconds: Math.round((now - h.openedAt) / 1000),
    indexing: {
      state: ix.state,
      progress: {
        files_discovered: ix.filesDiscovered,
        files_processed: ix.filesProcessed,
        chunks_created: ix.chunksCreated,
        errors: ix.errors,
        current_file: ix.currentFile,
        start_time: ix.startedAt ? new Date(ix.startedAt).toISOString() : null,
        estimated_completion: estimateCompletion(ix, now),
      },
      last_indexed: h.lastIndexed,
    },
    services: {
      vector_store: { status: h.storeUp ? 'up' : 'down', latency_ms: h.storeLatencyMs },
      embedding_provider: emb
        ? { status: emb.status, model: h.embedding!.id, latency_ms: emb.lastLatencyMs, circuit_breaker_state: emb.circuit }
        : { status: 'none', model: null, latency_ms: null, circuit_breaker_state: 'closed' },
      sparse_embedding: { status: 'up', provider: 'quarry-bm25' },
      reranking: rr ? { status: rr.status, model: h.reranker!.id, latency_ms: rr.lastLatencyMs } : { status: 'none', model: null, latency_ms: null },
    },
    statistics: {
      total_chunks_indexed: h.counts.chunks,
      total_files_indexed: h.counts.files,
      languages_indexed: h.languages,
      index_size_mb: Math.round((h.indexSizeBytes / 1048576) * 10) / 10,
      queries_processed: h.queryLatency.total,
      avg_query_latency_ms: lat.mean,
      search_query_latency_ms: { p50: lat.p50, p95: lat.p95, p99: lat.p99 },
    },
    metrics: {
      search_query_latency_ms: { p50: lat.p50, p95: lat.p95, p99: lat.p99 },
      search_queries_total: h.queryLatency.total,
      search_results_returned: { avg: results.mean, p50: results.p50, p95: results.p95 },
      search_intent_distribution: { ...h.intentCounts },
      indexing_files_per_second: rate,
      indexing_chunks_created_total: h.indexTotals.chunks + (ix.state === 'indexing' ? ix.chunksCreated : 0),
      indexing_errors_total: h.indexTotals.errors,
      indexing_duration_seconds: h.indexTotals.lastDurationSeconds,
      embedding_api_requests_total: emb?.requests ?? 0,
      embedding_api_errors_total: emb?.errors ?? 0,
      embedding_api_latency_ms: pick3(h.embeddingLatency.summary()),
      vector_store_operation_latency_ms: pick3(h.vectorStoreLatency.summary()),
      circuit_breaker_state: emb?.circuit ?? 'closed',
      circuit_breaker_open_count: emb?.circuitOpenCount ?? 0,
    },
  };
}
