import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseEmbeddingProvider, chooseReranker, createEmbeddingProvider, createReranker } from '../../../server/src/engine/embedding/registry';
import { EmbeddingConfigSchema, RerankConfigSchema } from '../../../server/src/engine/embedding/config';
import { ProviderUnavailableError } from '../../../server/src/engine/embedding/types';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'models');

describe('embedding config', () => {
  it('has the seed defaults', () => {
    const e = EmbeddingConfigSchema.parse({});
    assert.equal(e.provider, 'auto');
    assert.equal(e.voyage.model, 'voyage-code-3');
    assert.equal(e.voyage.timeoutMs, 30_000);
    assert.deepEqual(e.voyage.retryDelaysMs, [1000, 2000, 4000, 8000, 16000]);
    assert.equal(e.voyage.maxConcurrency, 10);
    assert.deepEqual(e.voyage.circuitBreaker, { failureThreshold: 3, openMs: 30_000, reopenMs: 60_000 });
    const r = RerankConfigSchema.parse({});
    assert.equal(r.voyage.model, 'rerank-2.5');
    assert.throws(() => EmbeddingConfigSchema.parse({ voyage: { maxConcurrency: 11 } }));
    assert.throws(() => EmbeddingConfigSchema.parse({ provider: 'openai' }));
  });
});

describe('provider registry', () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'quarry-home-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('auto: voyage with a key, else a local onnx model, else the bundled static model (USE-lite only when configured)', () => {
    assert.equal(chooseEmbeddingProvider({}, { env: { VOYAGE_API_KEY: 'k' }, home }).provider, 'voyage');
    assert.equal(chooseEmbeddingProvider({ voyage: { apiKey: 'k' } }, { env: {}, home }).provider, 'voyage');
    assert.equal(chooseEmbeddingProvider({}, { env: {}, home }).provider, 'static');
    assert.equal(chooseEmbeddingProvider({}, { env: {}, home, autoOrder: ['voyage', 'onnx'] }).provider, null);
    assert.equal(chooseEmbeddingProvider({ provider: 'local-use' }, { env: {}, home }).provider, 'local-use');
    const cfgPath = chooseEmbeddingProvider({ onnx: { modelPath: join(FIXTURES, 'tiny-bert-embed') } }, { env: {}, home });
    assert.equal(cfgPath.provider, 'onnx');
    // Conventional location: ~/.cache/quarry/models/<name>
    const dir = join(home, '.cache', 'quarry', 'models', 'all-MiniLM-L6-v2');
    mkdirSync(dir, { recursive: true });
    assert.equal(chooseEmbeddingProvider({}, { env: {}, home }).provider, 'static', 'an empty directory is not a model');
    cpSync(join(FIXTURES, 'tiny-bert-embed'), dir, { recursive: true });
    const found = chooseEmbeddingProvider({}, { env: {}, home });
    assert.equal(found.provider, 'onnx');
    assert.equal(found.modelPath, dir);
    // <extension>/models/<name> is looked at before the home cache.
    const ext = join(home, 'ext');
    cpSync(join(FIXTURES, 'tiny-bert-embed'), join(ext, 'models', 'all-MiniLM-L6-v2'), { recursive: true });
    assert.equal(chooseEmbeddingProvider({}, { env: {}, home, extensionDir: ext }).modelPath, join(ext, 'models', 'all-MiniLM-L6-v2'));
    // The order is a decision the caller can make.
    assert.equal(chooseEmbeddingProvider({}, { env: { VOYAGE_API_KEY: 'k' }, home, autoOrder: ['local-use', 'voyage'] }).provider, 'local-use');
    rmSync(dir, { recursive: true, force: true });
  });

  it('explicit choices and none', async () => {
    assert.equal(chooseEmbeddingProvider({ provider: 'none' }).provider, null);
    assert.equal(await createEmbeddingProvider({ provider: 'none' }), null);
    await assert.rejects(createEmbeddingProvider({ provider: 'voyage' }, { env: {} }), (e: unknown) => e instanceof ProviderUnavailableError && /VOYAGE_API_KEY/.test(e.message));
    await assert.rejects(createEmbeddingProvider({ provider: 'onnx' }, { env: {}, home }), (e: unknown) => e instanceof ProviderUnavailableError && /modelPath/.test(e.message));
  });

  it('builds an onnx provider and a cross-encoder from configured directories', async () => {
    const p = await createEmbeddingProvider({ provider: 'onnx', onnx: { modelPath: join(FIXTURES, 'tiny-bert-embed') } }, { env: {}, home });
    assert.match(p!.id, /^onnx:tiny-bert-embed@/);
    await p!.close();
    const r = await createReranker({ crossEncoder: { modelPath: join(FIXTURES, 'tiny-bert-reranker') } }, { env: {}, home });
    assert.match(r!.id, /^cross-encoder:tiny-bert-reranker@/);
    await r!.close();
  });

  it('rerankers: voyage with a key, else a local cross-encoder, else the bundled quarry-rerank, else none', async () => {
    assert.equal(chooseReranker({}, { env: { VOYAGE_API_KEY: 'k' }, home }).provider, 'voyage');
    assert.equal(chooseReranker({}, { env: {}, home }).provider, 'quarry');
    assert.equal(chooseReranker({ quarry: { modelName: 'missing' } }, { env: {}, home }).provider, null);
    assert.equal(await createReranker({ quarry: { modelName: 'missing' } }, { env: {}, home }), null);
    const found = chooseReranker({ crossEncoder: { modelPath: join(FIXTURES, 'tiny-bert-reranker') } }, { env: {}, home });
    assert.equal(found.provider, 'cross-encoder');
    assert.equal(chooseReranker({ provider: 'none' }, { env: { VOYAGE_API_KEY: 'k' } }).provider, null);
    const r = await createReranker({}, { env: { VOYAGE_API_KEY: 'k' }, home });
    assert.equal(r!.id, 'voyage:rerank-2.5');
  });
});
