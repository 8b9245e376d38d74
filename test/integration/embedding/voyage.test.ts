import assert from 'node:assert/strict';
import { FAKE_VOYAGE_KEY, FakeVoyage, startFakeVoyage } from '../../support/fakeVoyage';
import { VoyageEmbeddingProvider } from '../../../server/src/engine/embedding/providers/voyage';
import { VoyageReranker } from '../../../server/src/engine/embedding/rerankers/voyage';
import { ProviderUnavailableError } from '../../../server/src/engine/embedding/types';
import { VoyageEmbeddingConfig } from '../../../server/src/engine/embedding/config';
import { cosine } from '../../../server/src/engine/embedding/vector';
import { FakeClock } from '../../unit/embedding/fakeClock';

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('voyage embedding provider (against a fake Voyage server)', function () {
  let fake: FakeVoyage;
  before(async () => {
    fake = await startFakeVoyage();
  });
  after(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  const make = (cfg: Partial<VoyageEmbeddingConfig> = {}, clock?: FakeClock) =>
    new VoyageEmbeddingProvider(
      { apiKey: FAKE_VOYAGE_KEY, baseUrl: fake.baseUrl, retryDelaysMs: [5, 10, 20, 40, 80], queryRetryDelaysMs: [5, 10], ...cfg },
      { clock, env: {} },
    );

  it('embeds documents in input order across batches, normalised, with input_type document', async () => {
    const p = make({ batchSize: 128 });
    assert.equal(p.id, 'voyage:voyage-code-3');
    assert.equal(p.dims, 1024);
    assert.equal(p.kind, 'remote');
    const texts = Array.from({ length: 300 }, (_, i) => `function handler${i}(request) { return respond(${i}); }`);
    const vecs = await p.embedDocuments(texts);
    assert.equal(vecs.length, 300);
    assert.equal(fake.requests.length, 3);
    assert.deepEqual(fake.requests.map((r) => r.body.input.length).sort((a, b) => a - b), [44, 128, 128]);
    for (const r of fake.requests) {
      assert.equal(r.body.input_type, 'document');
      assert.equal(r.body.model, 'voyage-code-3');
      assert.equal(r.authorization, `Bearer ${FAKE_VOYAGE_KEY}`);
    }
    for (const v of vecs) assert.ok(Math.abs(norm(v) - 1) < 1e-5);
    // Order preserved: the vector of text i is the one the server computes for text i.
    const again = await p.embedDocuments([texts[137]!, texts[5]!]);
    assert.ok(cosine(again[0]!, vecs[137]!) > 0.9999);
    assert.ok(cosine(again[1]!, vecs[5]!) > 0.9999);
    assert.ok(cosine(vecs[137]!, vecs[5]!) < 0.9999);
  });

  it('sends queries with input_type query and honours output_dimension', async () => {
    const p = make({ outputDimension: 256 });
    assert.equal(p.id, 'voyage:voyage-code-3@256');
    const q = await p.embedQuery('parse json config');
    assert.equal(q.length, 256);
    assert.equal(fake.requests[0]!.body.input_type, 'query');
    assert.equal(fake.requests[0]!.body.output_dimension, 256);
  });

  it('splits requests by the estimated token budget', async () => {
    const p = make({ maxTokensPerBatch: 120_000, charsPerToken: 3 });
    const big = 'x '.repeat(45_000); // 90k chars: ~30k estimated tokens each
    const vecs = await p.embedDocuments([big, big, big, big, big, 'small']);
    assert.equal(vecs.length, 6);
    assert.deepEqual(fake.requests.map((r) => r.body.input.length).sort(), [2, 4]);
    // Longer than the model's context: cut to maxInputTokens × charsPerToken characters.
    fake.reset();
    await p.embedDocuments(['y'.repeat(200_000)]);
    assert.equal(fake.requests[0]!.body.input[0].length, 32_000 * 3);
  });

  it('names the cause and the fix when no API key is configured', () => {
    assert.throws(
      () => new VoyageEmbeddingProvider({ baseUrl: fake.baseUrl }, { env: {} }),
      (e: unknown) => e instanceof ProviderUnavailableError && /VOYAGE_API_KEY/.test(e.message) && /Fix/.test(e.message) && !e.retryable,
    );
    // The environment variable is read when config has no key.
    const p = new VoyageEmbeddingProvider({ baseUrl: fake.baseUrl }, { env: { VOYAGE_API_KEY: FAKE_VOYAGE_KEY } });
    assert.equal(p.kind, 'remote');
  });

  it('retries a burst of 429s and 500s, then succeeds', async () => {
    const p = make();
    fake.script('embeddings', { status: 429 }, { status: 500 }, { status: 503 });
    const vecs = await p.embedDocuments(['a', 'b']);
    assert.equal(vecs.length, 2);
    assert.equal(fake.requests.length, 4);
    const h = p.health();
    assert.equal(h.status, 'up');
    assert.equal(h.circuit, 'closed'); // the 429 in between keeps the 5xx failures from being 3 in a row
    assert.equal(h.errors, 3);
    assert.equal(h.requests, 4);
  });

  it('gives up after the retry schedule with a retryable ProviderUnavailableError', async () => {
    const p = make({ retryDelaysMs: [1, 1], circuitBreaker: { failureThreshold: 100, openMs: 30_000, reopenMs: 60_000 } });
    fake.always('embeddings', { status: 500 });
    await assert.rejects(p.embedDocuments(['a']), (e: unknown) => e instanceof ProviderUnavailableError && e.retryable && /500/.test(e.message));
    assert.equal(fake.requests.length, 3);
  });

  it('does not retry 401 and reports the provider down with a fix', async () => {
    const p = new VoyageEmbeddingProvider({ apiKey: 'wrong', baseUrl: fake.baseUrl, retryDelaysMs: [1, 1, 1] }, { env: {} });
    await assert.rejects(p.embedDocuments(['a']), (e: unknown) => e instanceof ProviderUnavailableError && !e.retryable && /401/.test(e.message) && /VOYAGE_API_KEY/.test(e.message));
    assert.equal(fake.requests.length, 1);
    assert.equal(p.health().status, 'down');
    assert.equal(p.health().circuit, 'closed');
  });

  it('does not retry 400', async () => {
    const p = make();
    fake.script('embeddings', { status: 400 });
    await assert.rejects(p.embedDocuments(['a']), (e: unknown) => e instanceof ProviderUnavailableError && !e.retryable);
    assert.equal(fake.requests.length, 1);
  });

  it('times out a slow answer (FR-033) and retries', async () => {
    const p = make({ timeoutMs: 100, retryDelaysMs: [1] });
    fake.script('embeddings', { delayMs: 400 });
    const t0 = Date.now();
    const v = await p.embedDocuments(['slow then fast']);
    assert.equal(v.length, 1);
    assert.equal(fake.requests.length, 2);
    assert.ok(Date.now() - t0 < 400, 'the first attempt was abandoned at the timeout');
    fake.reset();
    fake.always('embeddings', { delayMs: 400 });
    await assert.rejects(p.embedDocuments(['always slow']), (e: unknown) => e instanceof ProviderUnavailableError && /within 100 ms/.test(e.message));
    fake.always('embeddings', null);
  });

  it('retries a dropped connection', async () => {
    const p = make();
    fake.script('embeddings', { drop: true }, { drop: true });
    const v = await p.embedQuery('dropped');
    assert.equal(v.length, 1024);
    assert.equal(fake.requests.length, 3);
  });

  it('opens the breaker after 3 failures, fails fast, half-opens after 30 s, reopens for 60 s, closes on success', async () => {
    const clock = new FakeClock();
    const p = make({ retryDelaysMs: [], queryRetryDelaysMs: [] }, clock);
    fake.always('embeddings', { status: 500 });
    for (let i = 0; i < 3; i++) await assert.rejects(p.embedQuery('q'), ProviderUnavailableError);
    assert.equal(fake.requests.length, 3);
    assert.equal(p.health().circuit, 'open');
    assert.equal(p.health().status, 'down');
    await assert.rejects(p.embedQuery('q'), (e: unknown) => e instanceof ProviderUnavailableError && /circuit breaker open/.test(e.message));
    assert.equal(fake.requests.length, 3, 'an open breaker does not call the service');
    clock.advance(30_000);
    assert.equal(p.health().circuit, 'half_open');
    await assert.rejects(p.embedQuery('q'), ProviderUnavailableError); // probe fails
    assert.equal(fake.requests.length, 4);
    assert.equal(p.health().circuit, 'open');
    clock.advance(30_000);
    assert.equal(p.health().circuit, 'open', 'reopened for 60 s, not 30');
    clock.advance(30_000);
    assert.equal(p.health().circuit, 'half_open');
    fake.always('embeddings', null);
    const v = await p.embedQuery('q');
    assert.equal(v.length, 1024);
    assert.equal(p.health().circuit, 'closed');
    assert.equal(p.health().status, 'up');
  });

  it('keeps at most 10 requests in flight (FR-039)', async () => {
    const p = make({ batchSize: 5 });
    fake.always('embeddings', { delayMs: 30 });
    const texts = Array.from({ length: 400 }, (_, i) => `text ${i}`);
    const vecs = await p.embedDocuments(texts);
    fake.always('embeddings', null);
    assert.equal(vecs.length, 400);
    assert.equal(fake.requests.length, 80);
    assert.ok(fake.maxConcurrent <= 10, `max concurrent ${fake.maxConcurrent}`);
    assert.ok(fake.maxConcurrent >= 8, `requests did run concurrently (${fake.maxConcurrent})`);
  });
});

describe('voyage reranker (against a fake Voyage server)', () => {
  let fake: FakeVoyage;
  before(async () => {
    fake = await startFakeVoyage();
  });
  after(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('returns the best documents first, at most topK, with valid indexes', async () => {
    const r = new VoyageReranker({ apiKey: FAKE_VOYAGE_KEY, baseUrl: fake.baseUrl, queryRetryDelaysMs: [1] }, { env: {} });
    assert.equal(r.id, 'voyage:rerank-2.5');
    const docs = ['draw a red circle on the canvas', 'parse the json config file', 'open a socket', 'json parse error handling'];
    const res = await r.rerank('parse json config', docs, 2);
    assert.equal(res.length, 2);
    assert.equal(res[0]!.index, 1);
    assert.ok(res[0]!.score >= res[1]!.score);
    const body = fake.requests[0]!.body;
    assert.equal(body.model, 'rerank-2.5');
    assert.equal(body.top_k, 2);
    assert.deepEqual(body.documents, docs);
  });

  it('retries a 500 at query time and reports a missing key clearly', async () => {
    const r = new VoyageReranker({ apiKey: FAKE_VOYAGE_KEY, baseUrl: fake.baseUrl, queryRetryDelaysMs: [1, 1] }, { env: {} });
    fake.script('rerank', { status: 500 });
    const res = await r.rerank('q', ['a', 'b', 'c'], 10);
    assert.equal(res.length, 3);
    assert.equal(fake.requests.length, 2);
    assert.throws(() => new VoyageReranker({ baseUrl: fake.baseUrl }, { env: {} }), /VOYAGE_API_KEY/);
  });
});
