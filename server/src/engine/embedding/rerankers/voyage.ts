/**
 * rerank-2.5 through Voyage AI's `/rerank` endpoint (seed 002 FR-018). Reranking happens at query time, so it uses
 * the short query retry budget; on failure it throws ProviderUnavailableError and the caller keeps the fused order.
 */
import { ProviderHealth, ProviderUnavailableError, Reranker, RerankResult } from '../types';
import { VoyageRerankConfig, VoyageRerankConfigSchema } from '../config';
import { ConcurrencyLimiter, Clock } from '../resilience';
import { requireVoyageKey, VoyageClient } from '../voyageClient';

interface RerankResponse {
  object: 'list';
  data: Array<{ relevance_score: number; index: number; document?: string }>;
  model: string;
  usage?: { total_tokens: number };
}

export interface VoyageRerankerOptions {
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  limiter?: ConcurrencyLimiter;
}

export class VoyageReranker implements Reranker {
  readonly id: string;
  readonly kind = 'remote' as const;
  readonly client: VoyageClient;
  totalTokens = 0;
  private readonly cfg: VoyageRerankConfig;

  constructor(config: Partial<VoyageRerankConfig> = {}, opts: VoyageRerankerOptions = {}) {
    this.cfg = VoyageRerankConfigSchema.parse(config);
    const apiKey = requireVoyageKey(this.cfg.apiKey, opts.env ?? process.env, 'voyage rerank');
    this.id = `voyage:${this.cfg.model}`;
    this.client = new VoyageClient({
      apiKey,
      baseUrl: this.cfg.baseUrl,
      circuitBreaker: this.cfg.circuitBreaker,
      maxConcurrency: this.cfg.maxConcurrency,
      clock: opts.clock,
      limiter: opts.limiter,
    });
  }

  async rerank(query: string, documents: string[], topK: number, signal?: AbortSignal): Promise<RerankResult[]> {
    if (documents.length === 0 || topK <= 0) return [];
    const docs = documents.slice(0, this.cfg.maxDocuments).map((d) => d || ' ');
    const k = Math.min(topK, docs.length);
    const body = { query, documents: docs, model: this.cfg.model, top_k: k, truncation: true };
    const res = await this.client.caller.call(
      (sig) => this.client.post<RerankResponse>('/rerank', body, sig),
      { timeoutMs: this.cfg.queryTimeoutMs, delaysMs: this.cfg.queryRetryDelaysMs, maxRetryAfterMs: 1_000, budgetMs: this.cfg.queryBudgetMs },
      signal,
    );
    if (!Array.isArray(res?.data)) throw new ProviderUnavailableError('voyage', 'voyage: rerank answer has no data', false);
    this.totalTokens += res.usage?.total_tokens ?? 0;
    return res.data
      .filter((d) => Number.isInteger(d.index) && d.index >= 0 && d.index < docs.length)
      .map((d) => ({ index: d.index, score: d.relevance_score }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, k);
  }

  health(): ProviderHealth {
    return this.client.caller.health();
  }

  async close(): Promise<void> {}
}
