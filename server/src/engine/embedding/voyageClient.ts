/**
 * Minimal Voyage AI HTTP client on Node's fetch. We use plain fetch rather than the `voyageai` SDK: the SDK retries
 * on its own (twice by default), declares @huggingface/transformers as a peer, and hides the HTTP status we need
 * to classify failures. Timeouts, retries, breaker and concurrency come from `resilience.ts`.
 */
import { ProviderUnavailableError } from './types';
import { CircuitBreaker, ConcurrencyLimiter, HttpError, isNetworkError, ResilientCaller, TimeoutError, CircuitOpenError, Clock } from './resilience';
import type { CircuitBreakerConfig } from './config';

export const VOYAGE_KEY_ENV = 'VOYAGE_API_KEY';

export interface VoyageClientOptions {
  apiKey: string;
  baseUrl: string;
  circuitBreaker: CircuitBreakerConfig;
  maxConcurrency: number;
  clock?: Clock;
  /** Share one limiter between the embedding provider and the reranker (FR-039 counts all requests). */
  limiter?: ConcurrencyLimiter;
  onRetry?: (err: unknown, retry: number, delayMs: number) => void;
}

/** The API key from config or environment, or undefined. */
export function resolveVoyageKey(configured: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const k = configured?.trim() || env[VOYAGE_KEY_ENV]?.trim();
  return k ? k : undefined;
}

/** The API key, or ProviderUnavailableError naming the cause and the fix (`what`: "voyage embeddings"...). */
export function requireVoyageKey(configured: string | undefined, env: NodeJS.ProcessEnv, what: string): string {
  const key = resolveVoyageKey(configured, env);
  if (!key) throw new ProviderUnavailableError('voyage', missingKeyMessage(what), false);
  return key;
}

export function missingKeyMessage(what: string): string {
  return (
    `${what}: no Voyage AI API key. Cause: neither the ${VOYAGE_KEY_ENV} environment variable nor ` +
    `the configured apiKey is set. Fix: export ${VOYAGE_KEY_ENV}=<your key> (https://dash.voyageai.com), ` +
    `or choose a local provider (embedding.provider: onnx | local-use) or none.`
  );
}

/** Turns the final failure of a Voyage call into a message that names cause and fix. */
export function describeVoyageError(err: unknown, baseUrl: string): { message: string; retryable: boolean } {
  if (err instanceof HttpError) {
    if (err.status === 401 || err.status === 403)
      return {
        message: `voyage: the API rejected the key (HTTP ${err.status}). Fix: check ${VOYAGE_KEY_ENV} / the configured apiKey.`,
        retryable: false,
      };
    if (err.status === 429)
      return { message: `voyage: rate limited (HTTP 429) after all retries. Fix: lower the request rate or raise your Voyage limits.`, retryable: true };
    if (err.status === 502 && err.body.startsWith('invalid JSON'))
      return { message: `voyage: ${baseUrl} answered with malformed JSON (${err.body.slice(0, 120)}) after all retries. Fix: check that embedding.voyage.baseUrl points at the Voyage API (or a proxy that passes its answers through).`, retryable: true };
    if (err.status >= 500) return { message: `voyage: service error (HTTP ${err.status}) after all retries; try again later.`, retryable: true };
    return { message: `voyage: request rejected (HTTP ${err.status}): ${err.body.slice(0, 300)}`, retryable: false };
  }
  if (err instanceof TimeoutError) return { message: `voyage: no answer from ${baseUrl} within ${err.timeoutMs} ms (after all retries).`, retryable: true };
  if (err instanceof CircuitOpenError) return { message: `voyage: unavailable (${err.message}) after repeated failures.`, retryable: true };
  if (isNetworkError(err)) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return {
      message: `voyage: cannot reach ${baseUrl} (${cause?.code ?? cause?.message ?? (err as Error).message}). Fix: check the network / proxy or embedding.voyage.baseUrl.`,
      retryable: true,
    };
  }
  return { message: `voyage: ${err instanceof Error ? err.message : String(err)}`, retryable: false };
}

function parseRetryAfter(v: string | null): number | undefined {
  if (!v) return undefined;
  const s = Number(v);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const t = Date.parse(v);
  return Number.isFinite(t) ? Math.max(0, t - Date.now()) : undefined;
}

export class VoyageClient {
  readonly caller: ResilientCaller;
  readonly baseUrl: string;
  private readonly apiKey: string;

  constructor(opts: VoyageClientOptions) {
    this.apiKey = opts.apiKey;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    const breaker = new CircuitBreaker({ ...opts.circuitBreaker, clock: opts.clock });
    const limiter = opts.limiter ?? new ConcurrencyLimiter(opts.maxConcurrency);
    this.caller = new ResilientCaller({
      provider: 'voyage',
      breaker,
      limiter,
      clock: opts.clock,
      describe: (err) => describeVoyageError(err, this.baseUrl),
      onRetry: opts.onRetry,
    });
  }

  /** One POST (no retries here); throws HttpError on non-2xx. */
  async post<T>(path: string, body: unknown, signal: AbortSignal): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.apiKey}`, accept: 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
    const text = await res.text();
    if (!res.ok) throw new HttpError(res.status, text, parseRetryAfter(res.headers.get('retry-after')));
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new HttpError(502, `invalid JSON from Voyage: ${text.slice(0, 200)}`);
    }
  }
}
