/** Call counters and health of an in-process model (ONNX embedder, cross-encoder, USE-lite). */
import type { ProviderHealth } from './types';

export class LocalCallStats {
  requests = 0;
  errors = 0;
  lastLatencyMs: number | null = null;
  lastError?: string;
  closed = false;

  /** Records a successful call that started at `t0` (performance.now()). */
  ok(t0: number): void {
    this.lastLatencyMs = Math.round(performance.now() - t0);
  }

  /** Records a failed call. */
  fail(err: unknown): void {
    this.errors++;
    this.lastError = (err as Error).message;
  }

  health(): ProviderHealth {
    return {
      status: this.closed ? 'down' : 'up',
      circuit: 'closed',
      lastLatencyMs: this.lastLatencyMs,
      requests: this.requests,
      errors: this.errors,
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
    };
  }
}
