/**
 * voyage-code-3 through Voyage AI's `/embeddings` endpoint (seed 002 FR-007), under the failure contract of
 * `resilience.ts`: 30 s timeouts, backoff 1/2/4/8/16 s while indexing (short at query time), the FR-008a breaker,
 * and at most 10 requests in flight. Documents are packed into requests of ≤ `batchSize` texts and
 * ≤ `maxTokensPerBatch` estimated tokens; the requests run concurrently under the limiter.
 */
import { EmbeddingProvider, ProviderHealth, ProviderUnavailableError } from '../types';
import { VoyageEmbeddingConfig, VoyageEmbeddingConfigSchema } from '../config';
import { ConcurrencyLimiter, Clock } from '../resilience';
import { requireVoyageKey, VoyageClient } from '../voyageClient';
import { packBatches, toNormalizedFloat32 } from '../vector';

/** Default output dimensions and context length per model (tokens). */
const MODEL_INFO: Record<string, { dims: number; maxInputTokens: number }> = {
  'voyage-code-3': { dims: 1024, maxInputTokens: 32_000 },
  'voyage-3': { dims: 1024, maxInputTokens: 32_000 },
  'voyage-3-large': { dims: 1024, maxInputTokens: 32_000 },
  'voyage-3.5': { dims: 1024, maxInputTokens: 32_000 },
  'voyage-3.5-lite': { dims: 1024, maxInputTokens: 32_000 },
  'voyage-3-lite': { dims: 512, maxInputTokens: 32_000 },
};

interface EmbeddingsResponse {
  object: 'list';
  data: Array<{ object: 'embedding'; embedding: number[]; index: number }>;
  model: string;
  usage?: { total_tokens: number };
}

export interface VoyageProviderOptions {
  /** Environment to read VOYAGE_API_KEY from (default process.env). */
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** A limiter shared with the reranker (FR-039 counts all external requests). */
  limiter?: ConcurrencyLimiter;
  onRetry?: (err: unknown, retry: number, delayMs: number) => void;
}

export class VoyageEmbeddingProvider implements EmbeddingProvider {
  readonly id: string;
  readonly dims: number;
  readonly maxInputTokens: number;
  readonly kind = 'remote' as const;
  readonly client: VoyageClient;
  /** Tokens Voyage reported as used (for cost reporting). */
  totalTokens = 0;
  private readonly cfg: VoyageEmbeddingConfig;

  constructor(config: Partial<VoyageEmbeddingConfig> = {}, opts: VoyageProviderOptions = {}) {
    this.cfg = VoyageEmbeddingConfigSchema.parse(config);
    const apiKey = requireVoyageKey(this.cfg.apiKey, opts.env ?? process.env, 'voyage embeddings');
    const info = MODEL_INFO[this.cfg.model] ?? { dims: 1024, maxInputTokens: 32_000 };
    this.dims = this.cfg.outputDimension ?? info.dims;
    this.maxInputTokens = info.maxInputTokens;
    // The dimension is part of the id: vectors of another size are not comparable.
    this.id = `voyage:${this.cfg.model}${this.cfg.outputDimension ? `@${this.cfg.outputDimension}` : ''}`;
    this.client = new VoyageClient({
      apiKey,
      baseUrl: this.cfg.baseUrl,
      circuitBreaker: this.cfg.circuitBreaker,
      maxConcurrency: this.cfg.maxConcurrency,
      clock: opts.clock,
      limiter: opts.limiter,
      onRetry: opts.onRetry,
    });
  }

  async embedDocuments(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const cpt = this.cfg.charsPerToken;
    const maxChars = Math.floor(this.maxInputTokens * cpt);
    const inputs = texts.map((t) => (t.length > maxChars ? t.slice(0, maxChars) : t || ' '));
    const batches = packBatches(inputs, (t) => Math.ceil(t.length / cpt), this.cfg.batchSize, this.cfg.maxTokensPerBatch);
    const out = new Array<Float32Array>(texts.length);
    await Promise.all(
      batches.map(async (idx) => {
        const vecs = await this.request(
          idx.map((i) => inputs[i]!),
          'document',
          { timeoutMs: this.cfg.timeoutMs, delaysMs: this.cfg.retryDelaysMs, maxRetryAfterMs: 16_000 },
          signal,
        );
        idx.forEach((i, k) => (out[i] = vecs[k]!));
      }),
    );
    return out;
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [v] = await this.request(
      [text || ' '],
      'query',
      { timeoutMs: this.cfg.queryTimeoutMs, delaysMs: this.cfg.queryRetryDelaysMs, maxRetryAfterMs: 1_000, budgetMs: this.cfg.queryBudgetMs },
      signal,
    );
    return v!;
  }

  private async request(
    input: string[],
    inputType: 'document' | 'query',
    policy: { timeoutMs: number; delaysMs: readonly number[]; maxRetryAfterMs: number; budgetMs?: number },
    signal?: AbortSignal,
  ): Promise<Float32Array[]> {
    const body: Record<string, unknown> = { input, model: this.cfg.model, input_type: inputType, truncation: true };
    if (this.cfg.outputDimension) body.output_dimension = this.cfg.outputDimension;
    const res = await this.client.caller.call(
      async (sig) => {
        const r = await this.client.post<EmbeddingsResponse>('/embeddings', body, sig);
        if (!Array.isArray(r?.data) || r.data.length !== input.length) {
          throw new ProviderUnavailableError('voyage', `voyage: expected ${input.length} embeddings, got ${r?.data?.length ?? 'none'}`, false);
        }
        return r;
      },
      policy,
      signal,
    );
    this.totalTokens += res.usage?.total_tokens ?? 0;
    const out = new Array<Float32Array>(input.length);
    for (const d of res.data) {
      if (d.embedding.length !== this.dims) {
        throw new ProviderUnavailableError('voyage', `voyage: expected ${this.dims}-d vectors from ${this.cfg.model}, got ${d.embedding.length}-d`, false);
      }
      out[d.index] = toNormalizedFloat32(d.embedding);
    }
    return out;
  }

  health(): ProviderHealth {
    return this.client.caller.health();
  }

  async close(): Promise<void> {}
}
