import assert from 'node:assert/strict';
import {
  CircuitBreaker, CircuitOpenError, ConcurrencyLimiter, HttpError, isRetryable, ResilientCaller, retry, TimeoutError, withTimeout,
} from '../../../server/src/engine/embedding/resilience';
import { ProviderUnavailableError } from '../../../server/src/engine/embedding/types';
import { FakeClock } from './fakeClock';

const fail500 = () => Promise.reject(new HttpError(500, 'boom'));
const ok = () => Promise.resolve('ok');

describe('resilience: error classification', () => {
  it('retries timeouts, 408/429/5xx and network errors, not 400/401/403/404', () => {
    assert.equal(isRetryable(new TimeoutError(10)), true);
    for (const s of [408, 429, 500, 502, 503, 504]) assert.equal(isRetryable(new HttpError(s, '')), true, `status ${s}`);
    for (const s of [400, 401, 403, 404, 422]) assert.equal(isRetryable(new HttpError(s, '')), false, `status ${s}`);
    const net = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
    assert.equal(isRetryable(net), true);
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    assert.equal(isRetryable(abort), false);
    assert.equal(isRetryable(new Error('some bug')), false);
  });
});

describe('resilience: withTimeout', () => {
  it('rejects with TimeoutError even when the task ignores its signal, and aborts the signal', async () => {
    let seen: AbortSignal | undefined;
    const t0 = Date.now();
    await assert.rejects(
      withTimeout((s) => { seen = s; return new Promise(() => {}); }, 50),
      (e: unknown) => e instanceof TimeoutError && e.timeoutMs === 50,
    );
    assert.ok(Date.now() - t0 < 1000);
    assert.equal(seen!.aborted, true);
  });
  it('passes results through and honours a parent abort', async () => {
    assert.equal(await withTimeout(async () => 7, 1000), 7);
    const ctl = new AbortController();
    const p = withTimeout(() => new Promise(() => {}), 10_000, ctl.signal);
    ctl.abort();
    await assert.rejects(p, (e: Error) => e.name === 'AbortError');
  });
});

describe('resilience: retry', () => {
  it('uses the backoff schedule 1,2,4,8,16 s and rethrows after exhaustion', async () => {
    const clock = new FakeClock();
    let calls = 0;
    await assert.rejects(
      retry(() => { calls++; return fail500(); }, { delaysMs: [1000, 2000, 4000, 8000, 16000], clock }),
      (e: unknown) => e instanceof HttpError && e.status === 500,
    );
    assert.equal(calls, 6);
    assert.deepEqual(clock.sleeps, [1000, 2000, 4000, 8000, 16000]);
  });
  it('succeeds after a burst of retryable failures', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const v = await retry(() => (++calls <= 2 ? Promise.reject(new HttpError(429, '')) : ok()), { delaysMs: [1, 2, 4], clock });
    assert.equal(v, 'ok');
    assert.equal(calls, 3);
  });
  it('does not retry 400/401', async () => {
    for (const status of [400, 401]) {
      const clock = new FakeClock();
      let calls = 0;
      await assert.rejects(retry(() => { calls++; return Promise.reject(new HttpError(status, '')); }, { delaysMs: [1, 2, 4], clock }));
      assert.equal(calls, 1, `status ${status}`);
      assert.deepEqual(clock.sleeps, []);
    }
  });
  it('honours Retry-After up to maxRetryAfterMs', async () => {
    const clock = new FakeClock();
    let calls = 0;
    await retry(() => (++calls === 1 ? Promise.reject(new HttpError(429, '', 5000)) : ok()), { delaysMs: [100], clock, maxRetryAfterMs: 3000 });
    assert.deepEqual(clock.sleeps, [3000]);
  });
});

describe('resilience: circuit breaker (FR-008a)', () => {
  it('opens after 3 consecutive failures for 30 s, half-opens for one probe, a failed probe reopens for 60 s, success closes', async () => {
    const clock = new FakeClock();
    const transitions: string[] = [];
    const b = new CircuitBreaker({ clock, onStateChange: (f, t) => transitions.push(`${f}->${t}`) });
    for (let i = 0; i < 2; i++) await assert.rejects(b.run(fail500));
    assert.equal(b.state, 'closed');
    await assert.rejects(b.run(fail500));
    assert.equal(b.state, 'open');
    assert.equal(b.openCount, 1);

    // Open: fails fast without calling the service.
    let called = 0;
    await assert.rejects(b.run(() => { called++; return ok(); }), CircuitOpenError);
    assert.equal(called, 0);
    clock.advance(29_999);
    assert.equal(b.state, 'open');
    clock.advance(1);
    assert.equal(b.state, 'half_open');

    // Half-open: one probe at a time; a failed probe reopens for 60 s.
    let release!: (v: unknown) => void;
    const probe = b.run(() => new Promise((_, rej) => { release = () => rej(new HttpError(503, '')); }));
    await assert.rejects(b.run(ok), CircuitOpenError); // second request while the probe is out
    release(undefined);
    await assert.rejects(probe, HttpError);
    assert.equal(b.state, 'open');
    clock.advance(59_999);
    assert.equal(b.state, 'open');
    clock.advance(1);
    assert.equal(b.state, 'half_open');

    // Successful probe closes.
    assert.equal(await b.run(ok), 'ok');
    assert.equal(b.state, 'closed');
    assert.equal(b.failures, 0);
    assert.deepEqual(transitions, ['closed->open', 'half_open->open', 'half_open->closed']);
  });
  it('needs consecutive failures: a success in between resets the count; 4xx answers count as reachable, 429 is neutral', async () => {
    const clock = new FakeClock();
    const b = new CircuitBreaker({ clock });
    await assert.rejects(b.run(fail500));
    await assert.rejects(b.run(fail500));
    await b.run(ok);
    await assert.rejects(b.run(fail500));
    await assert.rejects(b.run(fail500));
    assert.equal(b.state, 'closed');
    await assert.rejects(b.run(() => Promise.reject(new HttpError(400, ''))));
    assert.equal(b.failures, 0);
    await assert.rejects(b.run(fail500));
    await assert.rejects(b.run(fail500));
    await assert.rejects(b.run(() => Promise.reject(new HttpError(429, ''))));
    assert.equal(b.state, 'closed');
    assert.equal(b.failures, 2);
    await assert.rejects(b.run(() => Promise.reject(new TimeoutError(5))));
    assert.equal(b.state, 'open');
  });
});

describe('resilience: concurrency limiter', () => {
  it('never runs more than max tasks at once and runs them all', async () => {
    const lim = new ConcurrencyLimiter(10);
    let active = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        lim.run(async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 2 + (i % 5)));
          active--;
          return i;
        }),
      ),
    );
    assert.equal(results.length, 60);
    assert.deepEqual(results, Array.from({ length: 60 }, (_, i) => i));
    assert.equal(peak, 10);
    assert.equal(lim.maxObserved, 10);
    assert.equal(lim.inFlight, 0);
  });
  it('drops a queued task whose signal aborts', async () => {
    const lim = new ConcurrencyLimiter(1);
    let release!: () => void;
    const first = lim.run(() => new Promise<void>((r) => (release = r)));
    const ctl = new AbortController();
    const second = lim.run(async () => 'ran', ctl.signal);
    assert.equal(lim.queued, 1);
    ctl.abort();
    await assert.rejects(second, (e: Error) => e.name === 'AbortError');
    assert.equal(lim.queued, 0);
    release();
    await first;
    assert.equal(await lim.run(async () => 'next'), 'next');
  });
});

describe('resilience: ResilientCaller', () => {
  it('wraps exhaustion in ProviderUnavailableError and reports health', async () => {
    const clock = new FakeClock();
    const caller = new ResilientCaller({ provider: 'x', breaker: new CircuitBreaker({ clock }), limiter: new ConcurrencyLimiter(2), clock });
    await assert.rejects(caller.call(fail500, { timeoutMs: 1000, delaysMs: [1, 1] }), (e: unknown) => e instanceof ProviderUnavailableError && e.retryable);
    const h = caller.health();
    assert.equal(h.requests, 3);
    assert.equal(h.errors, 3);
    assert.equal(h.circuit, 'open');
    assert.equal(h.status, 'down');
    clock.advance(30_000);
    assert.equal(await caller.call(ok, { timeoutMs: 1000, delaysMs: [] }), 'ok');
    assert.equal(caller.health().status, 'up');
    assert.equal(caller.health().circuit, 'closed');
  });
});
