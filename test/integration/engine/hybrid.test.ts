import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { OnnxEmbeddingProvider } from '../../../server/src/engine/embedding/providers/onnx';
import { VoyageEmbeddingProvider } from '../../../server/src/engine/embedding/providers/voyage';
import { CrossEncoderReranker } from '../../../server/src/engine/embedding/rerankers/crossEncoder';
import { VoyageReranker } from '../../../server/src/engine/embedding/rerankers/voyage';
import { defaultConfig, QuarryConfigSchema } from '../../../server/src/engine/config/schema';
import { startFakeVoyage, FAKE_VOYAGE_KEY, FakeVoyage } from '../../support/fakeVoyage';
import { REPO_ROOT, tempDir, writeFiles, removeDir } from '../../support/workspace';
import { FakeClock } from '../../unit/embedding/fakeClock';
import { currentGenerationDir } from '../../support/faultTrials';

const MODEL = join(REPO_ROOT, 'test', 'fixtures', 'models', 'tiny-bert-embed');

// Topic words of the generated tiny model: data (parse, json, file, ...), draw (draw, red, circle, canvas, paint,
// blue, square...), net (http, request, server, ...), auth (user, login, password, ...).
const FILES = {
  'src/settings.py': 'def load_settings(path):\n    """Parse the json config file."""\n    with open(path) as f:\n        return json.load(f)\n',
  'src/canvas.ts': '/** Draw a red circle on the canvas. */\nexport function drawCircle(ctx: Ctx, color: string): void {\n  ctx.render(color);\n}\n',
  'src/net.go': 'package net\n\n// Fetch sends an http request to the server.\nfunc Fetch(url string) Response {\n\treturn client.Send(url)\n}\n',
  'src/session.rb': '# Verify the user login with a password.\ndef verify_login(user, password)\n  session.check(user, password)\nend\n',
};

describe('hybrid retrieval with a real ONNX embedder (generated tiny model)', function () {
  this.timeout(120_000);
  let root: string;
  let provider: OnnxEmbeddingProvider;
  let engine: Engine;
  before(async () => {
    provider = await OnnxEmbeddingProvider.load({ modelPath: MODEL });
  });
  beforeEach(async () => {
    root = tempDir();
    writeFiles(root, FILES);
    engine = await Engine.open(root, { embedding: provider, reranker: null });
  });
  afterEach(async () => {
    // The provider is shared across tests: close only the store side.
    await engine.close();
    removeDir(root);
  });
  after(async () => provider.close());

  it('embeds every chunk after the lexical phase and fuses both channels', async () => {
    const progress: Array<[number, number]> = [];
    const s = await engine.index({ onEmbedProgress: (p) => progress.push([p.done, p.total]) });
    assert.ok(s.embedding, 'dense phase ran');
    assert.equal(s.embedding!.embedded, s.totalChunks);
    assert.deepEqual(progress[0], [0, s.totalChunks], 'progress starts at 0 of all');
    assert.deepEqual(progress[progress.length - 1], [s.totalChunks, s.totalChunks], 'and ends complete');
    const res = await engine.search('draw a red circle on the canvas', { limit: 3 });
    assert.deepEqual(res.search_strategy, ['HYBRID_SEARCH']);
    assert.equal(res.matches[0].file.path, 'src/canvas.ts');
    assert.ok(res.matches[0].explanation.some((l) => l.startsWith('fusion weighted')), res.matches[0].explanation.join('\n'));
    assert.equal(res.warnings.length, 0, res.warnings.join('\n'));
    // FR-041: the search's LanceDB operations (kNN, hydration) and its query embedding are in the metrics.
    const m = (await engine.health()).metrics;
    assert.ok(m.vector_store_operation_latency_ms.p50 > 0 && m.vector_store_operation_latency_ms.p99 >= m.vector_store_operation_latency_ms.p50);
    assert.ok(m.embedding_api_latency_ms.p50 > 0);
    assert.equal(m.circuit_breaker_open_count, 0);
  });

  it('UT-HYBRID-05: no keyword match falls back to semantic search and says so', async () => {
    await engine.index();
    const res = await engine.search('paint blue square', { limit: 3 });
    assert.deepEqual(res.search_strategy, ['DENSE_ONLY']);
    assert.equal(res.matches[0].file.path, 'src/canvas.ts');
    assert.equal(res.matches[0].match_type, 'SEMANTIC');
    assert.ok(res.warnings.some((w) => /No keyword matches/.test(w)));
  });

  it('UT-HYBRID-12: an exact identifier keeps its match first', async () => {
    await engine.index();
    const res = await engine.search('verify_login', { limit: 3 });
    assert.equal(res.matches[0].content.symbol, 'verify_login');
    assert.ok(res.matches[0].explanation.some((l) => l.includes('keeps the BM25 order')));
  });

  it('staged mode follows seed 003 (explained per channel); weights that do not sum to 1 are rejected', async () => {
    await engine.index();
    const config = defaultConfig();
    config.retrieval.fusion = 'staged';
    const staged = await Engine.open(root, { config, embedding: provider, reranker: null });
    const res = await staged.search('parse the json config file', { limit: 3 });
    assert.equal(res.matches[0].file.path, 'src/settings.py');
    assert.match(res.matches[0].explanation.join('\n'), /staged [\d.]+ = 0\.3·bm25 [\d.]+ \+ 0\.4·semantic/);
    await staged.close();
    assert.throws(() => QuarryConfigSchema.parse({ retrieval: { stagedWeights: { bm25: 0.6, semantic: 0.6, activation: 0 } } }), /sum to 1/);
  });

  it('never re-embeds unchanged code: a rename is a cache hit', async () => {
    await engine.index();
    renameSync(join(root, 'src/canvas.ts'), join(root, 'src/drawing.ts'));
    const s = await engine.index();
    assert.equal(s.filesIndexed, 1);
    assert.equal(s.embedding!.embedded, 0);
    const res = await engine.search('paint blue square', { limit: 1 });
    assert.equal(res.matches[0].file.path, 'src/drawing.ts');
  });

  it('reranks natural-language queries with a local cross-encoder (and leaves identifier queries alone)', async () => {
    await engine.index();
    const reranker = await CrossEncoderReranker.load({ modelPath: join(REPO_ROOT, 'test', 'fixtures', 'models', 'tiny-bert-reranker') });
    const withRerank = await Engine.open(root, { embedding: provider, reranker });
    try {
      const res = await withRerank.search('verify the user password', { limit: 3 });
      assert.deepEqual(res.search_strategy, ['HYBRID_SEARCH', 'SEMANTIC_RERANK']);
      assert.equal(res.matches[0].file.path, 'src/session.rb');
      assert.ok(res.matches[0].explanation.some((l) => l.startsWith(`scorer ${reranker.id}`)), res.matches[0].explanation.join('\n'));
      const ident = await withRerank.search('drawCircle', { limit: 3 });
      assert.ok(!ident.search_strategy.includes('SEMANTIC_RERANK'));
      assert.equal(ident.matches[0].content.symbol, 'drawCircle');
    } finally {
      await withRerank.close();
      await reranker.close();
    }
  });

  it('a save embeds its own chunks, and what a --lexical-only run left without vectors before it', async () => {
    await engine.index();
    // a keyword-only run adds a function without its vector
    writeFiles(root, { 'src/canvas.ts': FILES['src/canvas.ts'] + '\n/** Paint a blue square. */\nexport function drawSquare(ctx: Ctx): void {\n  ctx.fill();\n}\n' });
    const lexicalOnly = await engine.index({ lexicalOnly: true });
    assert.equal(lexicalOnly.embedding, undefined);
    // then one file is saved: the phase looks further than that file, since a run since the last one left chunks unembedded
    writeFiles(root, { 'src/net.go': FILES['src/net.go'] + '\n// Close ends the http session.\nfunc Close() {}\n' });
    const save = await engine.updateFiles(['src/net.go']);
    // Close (the saved file's new function) and drawSquare (left by the keyword-only run)
    assert.equal(save.embedding?.embedded, 2, JSON.stringify(save.embedding));
    // everything has a vector now: the next save looks at its own file's chunks only and embeds its new one
    writeFiles(root, { 'src/session.rb': FILES['src/session.rb'] + '\n# End the user session.\ndef logout(user)\n  session.drop(user)\nend\n' });
    const next = await engine.updateFiles(['src/session.rb']);
    assert.equal(next.embedding?.missing, 1, JSON.stringify(next.embedding));
    assert.equal(next.embedding?.embedded, 1);
    const res = await engine.search('paint a blue square', { limit: 3 });
    assert.deepEqual(res.search_strategy, ['HYBRID_SEARCH']);
    assert.equal(res.warnings.length, 0, res.warnings.join('\n'));
  });

  it('a whole-workspace run after a few changes embeds their chunks, and what a --lexical-only run left before it', async () => {
    await engine.index();
    writeFiles(root, { 'src/canvas.ts': FILES['src/canvas.ts'] + '\n/** Paint a green triangle. */\nexport function drawTriangle(ctx: Ctx): void {\n  ctx.fill();\n}\n' });
    assert.equal((await engine.index({ lexicalOnly: true })).embedding, undefined);
    // a later run over the whole workspace, one more file changed: the keyword-only run's chunk is not forgotten
    writeFiles(root, { 'src/net.go': FILES['src/net.go'] + '\n// Reset drops the http session.\nfunc Reset() {}\n' });
    const run = await engine.index();
    assert.equal(run.embedding?.embedded, 2, JSON.stringify(run.embedding));
    // everything has a vector now: the next whole run looks at the files it replaced and embeds their new chunk only
    writeFiles(root, { 'src/session.rb': FILES['src/session.rb'] + '\n# Renew the user session.\ndef renew(user)\n  session.touch(user)\nend\n' });
    const next = await engine.index();
    assert.equal(next.embedding?.missing, 1, JSON.stringify(next.embedding));
    assert.equal(next.embedding?.embedded, 1);
    const res = await engine.search('paint a green triangle', { limit: 3 });
    assert.deepEqual(res.search_strategy, ['HYBRID_SEARCH']);
    assert.equal(res.warnings.length, 0, res.warnings.join('\n'));
  });

  it('a run killed between its keyword commits and its dense phase leaves no chunk unembedded for the next run', async () => {
    await engine.index();
    const dir = currentGenerationDir(root);
    const before = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { lastIndexed: string };
    writeFiles(root, { 'src/canvas.ts': FILES['src/canvas.ts'] + '\n/** Paint a purple hexagon. */\nexport function drawHexagon(ctx: Ctx): void {\n  ctx.fill();\n}\n' });
    await engine.index({ lexicalOnly: true });
    // what `kill -9` after the keyword phase leaves: its commits and the time it began writing (`lexicalSince`), but
    // not its own `lastIndexed` — the last complete run's state otherwise
    const killed = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as { lastIndexed: string; lexicalSince?: string };
    assert.ok(killed.lexicalSince && killed.lexicalSince > before.lastIndexed, JSON.stringify(killed));
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ ...killed, lastIndexed: before.lastIndexed }));
    // the next run re-indexes nothing (the killed run committed the file) and still embeds the chunk it left
    const run = await engine.index();
    assert.equal(run.filesIndexed, 0);
    assert.equal(run.embedding?.embedded, 1, JSON.stringify(run.embedding));
    const res = await engine.search('paint a purple hexagon', { limit: 3 });
    assert.equal(res.matches[0]?.content.symbol, 'drawHexagon');
    assert.ok(res.matches[0]?.score_breakdown?.semantic, 'the new function has its vector');
  });

  it('search works on the lexical index before anything is embedded, and says so', async () => {
    await engine.index({ lexicalOnly: true });
    const res = await engine.search('draw a red circle', { limit: 3 });
    assert.deepEqual(res.search_strategy, ['SPARSE_ONLY']);
    assert.ok(res.warnings.some((w) => /not available yet/.test(w)), res.warnings.join('\n'));
    assert.equal(res.matches[0].file.path, 'src/canvas.ts');
  });
});

describe('degraded mode: the embedding service fails (fake Voyage server)', function () {
  this.timeout(60_000);
  let fake: FakeVoyage;
  let root: string;
  before(async () => {
    fake = await startFakeVoyage();
    root = tempDir();
    writeFiles(root, FILES);
  });
  after(async () => {
    await fake.close();
    removeDir(root);
  });

  it('indexing never stops: chunks stay BM25-searchable; a failing query embedding gives SPARSE_ONLY with a warning', async () => {
    const clock = new FakeClock();
    const voyage = new VoyageEmbeddingProvider(
      { apiKey: FAKE_VOYAGE_KEY, baseUrl: fake.baseUrl, outputDimension: 256, retryDelaysMs: [10], queryRetryDelaysMs: [10], timeoutMs: 2000, queryTimeoutMs: 500 },
      { clock },
    );
    const engine = await Engine.open(root, { embedding: voyage, reranker: null });
    try {
      fake.always('embeddings', { status: 500 });
      const s = await engine.index();
      assert.ok(s.embedding?.stoppedBy, 'the dense phase stopped');
      assert.equal(s.embedding!.embedded, 0);
      const res = await engine.search('draw a red circle', { limit: 3 });
      assert.deepEqual(res.search_strategy, ['SPARSE_ONLY']);
      assert.equal(res.matches[0].file.path, 'src/canvas.ts');
      assert.ok(res.warnings.length > 0);
      assert.equal(voyage.health().circuit, 'open', 'repeated failures opened the circuit breaker');
      // The service comes back; once the breaker lets a request through (30 s later), the next index run embeds.
      fake.always('embeddings', null);
      clock.advance(31_000);
      const again = await engine.index();
      assert.equal(again.embedding?.stoppedBy, undefined, JSON.stringify(again.embedding));
      assert.equal(again.embedding?.embedded, again.totalChunks);
      const hybrid = await engine.search('draw a red circle', { limit: 3 });
      assert.deepEqual(hybrid.search_strategy, ['HYBRID_SEARCH']);
    } finally {
      await engine.close();
    }
  });

  it('a failing reranker keeps the fused order and says so', async () => {
    const engine = await Engine.open(root, { embedding: null, reranker: new VoyageReranker({ apiKey: FAKE_VOYAGE_KEY, baseUrl: fake.baseUrl, queryRetryDelaysMs: [5] }) });
    try {
      await engine.index();
      fake.always('rerank', { status: 500 });
      const res = await engine.search('draw a red circle', { limit: 3 });
      assert.ok(!res.search_strategy.includes('SEMANTIC_RERANK'));
      assert.ok(res.warnings.some((w) => /Reranker voyage:rerank-2\.5 unavailable/.test(w)), res.warnings.join('\n'));
      assert.equal(res.matches[0].file.path, 'src/canvas.ts');
      fake.always('rerank', null);
    } finally {
      await engine.close();
    }
  });
});
