/**
 * Service health in seed 002's FR-010-Enhanced shape (served at `/health/` by `quarry serve`, shown by status
 * commands). Transport-free: the engine fills it; doors serialize it.
 */
import type { ProviderHealth } from './embedding/types';
import { latency } from './metrics';

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
