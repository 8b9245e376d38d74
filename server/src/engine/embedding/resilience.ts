/**
 * The failure contract for remote providers (seed 002):
 *   - FR-033: every external call times out (30 s default);
 *   - FR-009c / FR-008a: retry with exponential backoff, retryable errors only
 *     (timeouts, 429, 5xx, network errors; never 400/401/403);
 *   - FR-008a: circuit breaker — 3 consecutive failures → open 30 s → half-open lets 1 request through →
 *     success closes, failure reopens for 60 s;
 *   - FR-039: at most 10 requests in flight to external APIs.
 *
 * `ResilientCaller` composes them per attempt: retry( limiter( breaker( timeout( request ) ) ) ). A limiter slot is
 * held only while a request is on the wire, never during a backoff sleep.
 */
import { CircuitState, ProviderHealth, ProviderUnavailableError } from './types';

// ---------------------------------------------------------------------------------------------------------------
// Clock

/** Time source for the breaker and the backoff sleeps; tests inject a fake one. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(abortReason(signal));
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

function abortReason(signal: AbortSignal): Error {
  const r = signal.reason;
  if (r instanceof Error) return r;
  const e = new Error('The operation was aborted');
  e.name = 'AbortError';
  return e;
}

// ---------------------------------------------------------------------------------------------------------------
// Errors and classification

/** A request that did not answer within its time limit (FR-033). Retryable. */
export class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(readonly timeoutMs: number, what = 'request') {
    super(`${what} timed out after ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/** A non-2xx HTTP answer. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    /** From a `Retry-After` header, when the server sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 300)}` : ''}`);
    this.name = 'HttpError';
  }
}

/** Raised without calling the service while the breaker is open (or a half-open probe is already out). */
export class CircuitOpenError extends Error {
  constructor(readonly retryInMs: number) {
    super(`circuit breaker open; next attempt allowed in ${Math.max(0, Math.ceil(retryInMs / 1000))} s`);
    this.name = 'CircuitOpenError';
  }
}

const NETWORK_CODES = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH',
  'EHOSTUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** True for errors raised by the network layer (connection refused/reset/dropped, DNS), i.e. no HTTP answer. */
export function isNetworkError(err: unknown): boolean {
  for (let e: any = err, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return true;
    // undici: `TypeError: fetch failed` with the socket error as `cause`.
    if (e instanceof TypeError && /fetch failed|terminated|other side closed/i.test(e.message)) return true;
  }
  return false;
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** Retry only what can succeed on a second try: timeouts, 408/429/5xx, network errors, an open breaker. */
export function isRetryable(err: unknown): boolean {
  if (err instanceof TimeoutError) return true;
  if (err instanceof CircuitOpenError) return true;
  if (err instanceof HttpError) return err.status === 408 || err.status === 429 || err.status >= 500;
  if (isAbortError(err)) return false;
  if (err instanceof ProviderUnavailableError) return err.retryable;
  return isNetworkError(err);
}

/** How an attempt's outcome counts for the breaker: the service is reachable, failing, or neither (429). */
export function breakerVerdict(err: unknown): 'success' | 'failure' | 'neutral' {
  if (err instanceof TimeoutError) return 'failure';
  if (err instanceof HttpError) return err.status >= 500 ? 'failure' : err.status === 429 ? 'neutral' : 'success';
  if (isAbortError(err)) return 'neutral';
  if (isNetworkError(err)) return 'failure';
  return 'failure';
}

// ---------------------------------------------------------------------------------------------------------------
// Timeout

/**
 * Runs `fn` with a signal that aborts after `timeoutMs` (or when `parent` aborts). A timeout rejects with
 * `TimeoutError` even if `fn` ignores its signal; a parent abort rejects with the parent's reason.
 */
export function withTimeout<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  timeoutMs: number,
  parent?: AbortSignal,
  what?: string,
): Promise<T> {
  if (parent?.aborted) return Promise.reject(abortReason(parent));
  const ctl = new AbortController();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
      f();
    };
    const timer = setTimeout(() => {
      const err = new TimeoutError(timeoutMs, what);
      ctl.abort(err);
      finish(() => reject(err));
    }, timeoutMs);
    const onParentAbort = () => {
      const err = abortReason(parent!);
      ctl.abort(err);
      finish(() => reject(err));
    };
    parent?.addEventListener('abort', onParentAbort, { once: true });
    fn(ctl.signal).then(
      (v) => finish(() => resolve(v)),
      (e) => finish(() => reject(e)),
    );
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Retry

export interface RetryOptions {
  /** Delay before each retry; `delaysMs.length` is the number of retries (attempts = length + 1). */
  delaysMs: readonly number[];
  isRetryable?: (err: unknown) => boolean;
  clock?: Clock;
  signal?: AbortSignal;
  /** A server's Retry-After is honoured up to this long (it never shortens the scheduled delay). */
  maxRetryAfterMs?: number;
  onRetry?: (err: unknown, retry: number, delayMs: number) => void;
}

/** Calls `fn` until it succeeds, a non-retryable error occurs, or the delays are used up (then rethrows the last error). */
export async function retry<T>(fn: (attempt: number) => Promise<T>, opts: RetryOptions): Promise<T> {
  const clock = opts.clock ?? systemClock;
  const retryable = opts.isRetryable ?? isRetryable;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= opts.delaysMs.length || !retryable(err) || opts.signal?.aborted) throw err;
      let delay = opts.delaysMs[attempt]!;
      if (err instanceof HttpError && err.retryAfterMs !== undefined) {
        delay = Math.max(delay, Math.min(err.retryAfterMs, opts.maxRetryAfterMs ?? delay));
      }
      opts.onRetry?.(err, attempt + 1, delay);
      await clock.sleep(delay, opts.signal);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Circuit breaker (FR-008a)

export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold?: number;
  /** How long the circuit stays open after it first opens. */
  openMs?: number;
  /** How long it stays open after a failed half-open probe. */
  reopenMs?: number;
  clock?: Clock;
  onStateChange?: (from: CircuitState, to: CircuitState) => void;
}

export class CircuitBreaker {
  readonly failureThreshold: number;
  readonly openMs: number;
  readonly reopenMs: number;
  private readonly clock: Clock;
  private readonly onStateChange?: (from: CircuitState, to: CircuitState) => void;
  private consecutiveFailures = 0;
  private openUntil = 0;
  private isOpen = false;
  private probeInFlight = false;
  /** How many times the circuit has opened (FR-041 `circuit_breaker_open_count`). */
  openCount = 0;

  constructor(opts: CircuitBreakerOptions = {}) {
    this.failureThreshold = opts.failureThreshold ?? 3;
    this.openMs = opts.openMs ?? 30_000;
    this.reopenMs = opts.reopenMs ?? 60_000;
    this.clock = opts.clock ?? systemClock;
    this.onStateChange = opts.onStateChange;
  }

  get state(): CircuitState {
    if (!this.isOpen) return 'closed';
    return this.clock.now() >= this.openUntil ? 'half_open' : 'open';
  }

  /** Milliseconds until a request may be tried again (0 when closed or half-open). */
  get retryInMs(): number {
    return this.isOpen ? Math.max(0, this.openUntil - this.clock.now()) : 0;
  }

  get failures(): number {
    return this.consecutiveFailures;
  }

  /**
   * Runs one attempt through the breaker. Open → `CircuitOpenError` without calling `fn`; half-open → only one
   * probe at a time. `verdict` decides how an error counts (default: `breakerVerdict`).
   */
  async run<T>(fn: () => Promise<T>, verdict: (err: unknown) => 'success' | 'failure' | 'neutral' = breakerVerdict): Promise<T> {
    const state = this.state;
    if (state === 'open') throw new CircuitOpenError(this.retryInMs);
    const probe = state === 'half_open';
    if (probe) {
      if (this.probeInFlight) throw new CircuitOpenError(0);
      this.probeInFlight = true;
    }
    try {
      const v = await fn();
      this.onSuccess();
      return v;
    } catch (err) {
      const v = verdict(err);
      if (v === 'success') this.onSuccess();
      else if (v === 'failure' || probe) this.onFailure(probe);
      throw err;
    } finally {
      if (probe) this.probeInFlight = false;
    }
  }

  private onSuccess(): void {
    const from = this.state;
    this.consecutiveFailures = 0;
    if (this.isOpen) {
      this.isOpen = false;
      this.onStateChange?.(from, 'closed');
    }
  }

  private onFailure(probe: boolean): void {
    this.consecutiveFailures++;
    if (probe) {
      // A failed half-open probe reopens for the longer period.
      this.open(this.reopenMs, 'half_open');
    } else if (!this.isOpen && this.consecutiveFailures >= this.failureThreshold) {
      this.open(this.openMs, 'closed');
    }
  }

  private open(ms: number, from: CircuitState): void {
    this.isOpen = true;
    this.openUntil = this.clock.now() + ms;
    this.openCount++;
    this.onStateChange?.(from, 'open');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Concurrency limiter (FR-039)

export class ConcurrencyLimiter {
  private active = 0;
  private readonly queue: Array<{ start: () => void; signal?: AbortSignal; onAbort?: () => void }> = [];
  /** Highest number of tasks seen running at once (for tests and metrics). */
  maxObserved = 0;

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new RangeError('ConcurrencyLimiter: max must be ≥ 1');
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.queue.length;
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.active < this.max) {
      this.take();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry: { start: () => void; signal?: AbortSignal; onAbort?: () => void } = {
        signal,
        start: () => {
          signal?.removeEventListener('abort', entry.onAbort!);
          this.take();
          resolve();
        },
      };
      entry.onAbort = () => {
        const i = this.queue.indexOf(entry);
        if (i >= 0) this.queue.splice(i, 1);
        reject(abortReason(signal!));
      };
      signal?.addEventListener('abort', entry.onAbort, { once: true });
      this.queue.push(entry);
    });
  }

  private take(): void {
    this.active++;
    if (this.active > this.maxObserved) this.maxObserved = this.active;
  }

  private release(): void {
    this.active--;
    const next = this.queue.shift();
    if (next) next.start();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Composition

export interface RetryPolicy {
  timeoutMs: number;
  delaysMs: readonly number[];
  maxRetryAfterMs?: number;
  /**
   * Total time for the call, all attempts and backoff sleeps included (query time: a hung provider must not cost a
   * search more than this). Each attempt's time limit is cut to what is left; no retry starts that could not finish
   * in it; and a timed-out attempt is not retried (a service that did not answer once will not within the budget).
   */
  budgetMs?: number;
}

export interface ResilientCallerOptions {
  /** Provider name used in errors (`voyage`). */
  provider: string;
  breaker: CircuitBreaker;
  limiter: ConcurrencyLimiter;
  clock?: Clock;
  /** Turns the final error into an actionable message (cause and fix). */
  describe?: (err: unknown) => { message: string; retryable: boolean };
  onRetry?: (err: unknown, retry: number, delayMs: number) => void;
}

/** Runs requests under timeout + retry + breaker + limiter and keeps the health counters. */
export class ResilientCaller {
  readonly breaker: CircuitBreaker;
  readonly limiter: ConcurrencyLimiter;
  private readonly clock: Clock;
  private requests = 0;
  private errors = 0;
  private lastLatencyMs: number | null = null;
  private lastError?: string;
  /** Set by a non-retryable rejection (bad credentials): the provider is down until a call succeeds. */
  private fatal = false;

  constructor(private readonly opts: ResilientCallerOptions) {
    this.breaker = opts.breaker;
    this.limiter = opts.limiter;
    this.clock = opts.clock ?? systemClock;
  }

  /**
   * Calls `request` (given a signal that fires on timeout or caller abort). Failures end as
   * `ProviderUnavailableError` (the caller's own abort is rethrown as is).
   */
  async call<T>(request: (signal: AbortSignal) => Promise<T>, policy: RetryPolicy, signal?: AbortSignal): Promise<T> {
    const deadline = policy.budgetMs !== undefined ? this.clock.now() + policy.budgetMs : Number.POSITIVE_INFINITY;
    const left = () => deadline - this.clock.now();
    let attempt = 0;
    try {
      return await retry(
        (a) => {
          attempt = a;
          return this.limiter.run(
            () =>
              this.breaker.run(async () => {
                const t0 = performance.now();
                this.requests++;
                try {
                  const limit = Math.max(1, Math.min(policy.timeoutMs, left()));
                  const v = await withTimeout(request, limit, signal, `${this.opts.provider} request`);
                  this.lastLatencyMs = Math.round(performance.now() - t0);
                  this.fatal = false;
                  return v;
                } catch (err) {
                  if (!(isAbortError(err) && signal?.aborted)) {
                    this.errors++;
                    this.lastError = err instanceof Error ? err.message : String(err);
                  }
                  throw err;
                }
              }),
            signal,
          );
        },
        {
          delaysMs: policy.delaysMs,
          maxRetryAfterMs: policy.maxRetryAfterMs,
          clock: this.clock,
          signal,
          onRetry: this.opts.onRetry,
          // within a budget: no retry after a timeout, nor one whose backoff would leave under 100 ms to answer
          isRetryable:
            policy.budgetMs === undefined
              ? undefined
              : (err) => isRetryable(err) && !(err instanceof TimeoutError) && left() - (policy.delaysMs[attempt] ?? 0) > 100,
        },
      );
    } catch (err) {
      if (signal?.aborted && isAbortError(err)) throw err;
      if (err instanceof ProviderUnavailableError) throw err;
      const d = this.opts.describe?.(err) ?? {
        message: `${this.opts.provider}: ${err instanceof Error ? err.message : String(err)}`,
        retryable: isRetryable(err),
      };
      if (!d.retryable) this.fatal = true;
      const e = new ProviderUnavailableError(this.opts.provider, d.message, d.retryable);
      (e as Error & { cause?: unknown }).cause = err;
      throw e;
    }
  }

  health(): ProviderHealth {
    const circuit = this.breaker.state;
    return {
      status: circuit === 'closed' && !this.fatal ? 'up' : 'down',
      circuit,
      lastLatencyMs: this.lastLatencyMs,
      requests: this.requests,
      errors: this.errors,
      circuitOpenCount: this.breaker.openCount,
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
    };
  }
}
