import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OnnxEmbeddingProvider } from '../../../server/src/engine/embedding/providers/onnx';
import { CrossEncoderReranker } from '../../../server/src/engine/embedding/rerankers/crossEncoder';
import { ProviderUnavailableError } from '../../../server/src/engine/embedding/types';
import { cosine } from '../../../server/src/engine/embedding/vector';
import { resolveModelDir, shortFileHash } from '../../../server/src/engine/embedding/localModel';
import { makeTinyModels } from '../../fixtures/models/make-tiny-model';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'models');
const EMBED_DIR = join(FIXTURES, 'tiny-bert-embed');
const RERANK_DIR = join(FIXTURES, 'tiny-bert-reranker');
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('onnx embedding provider (transformers.js + onnxruntime-node, generated tiny BERT)', () => {
  let p: OnnxEmbeddingProvider;
  before(async () => {
    p = await OnnxEmbeddingProvider.load({ modelPath: EMBED_DIR, batchSize: 4 });
  });
  after(async () => {
    await p?.close();
  });

  it('has a stable id from the directory name and the model file hash, and the model dims', () => {
    assert.match(p.id, /^onnx:tiny-bert-embed@[0-9a-f]{12}$/);
    assert.equal(p.dims, 16);
    assert.equal(p.kind, 'local');
    assert.equal(p.maxInputTokens, 128); // min(config 256, tokenizer model_max_length 128)
  });

  it('produces normalised vectors in input order; same topic is closer than another topic', async () => {
    const texts = ['parse a json file', 'read JSON from disk', 'draw a red circle', 'send an http request to the server', 'Parse a JSON file'];
    const v = await p.embedDocuments(texts);
    assert.equal(v.length, 5);
    for (const x of v) {
      assert.equal(x.length, 16);
      assert.ok(Math.abs(norm(x) - 1) < 1e-5);
    }
    assert.ok(cosine(v[0]!, v[4]!) > 0.9999, 'lower-casing normaliser: same tokens');
    const near = cosine(v[0]!, v[1]!);
    const far = cosine(v[0]!, v[2]!);
    assert.ok(near > far + 0.5, `near ${near} vs far ${far}`);
    assert.ok(cosine(v[3]!, v[1]!) < near);
    // Batched results equal one-at-a-time results (padding does not leak into mean pooling).
    const single = await p.embedQuery(texts[3]!);
    assert.ok(cosine(single, v[3]!) > 0.9999);
  });

  it('handles empty input lists, empty strings and inputs longer than the model max', async () => {
    assert.deepEqual(await p.embedDocuments([]), []);
    const [e] = await p.embedDocuments(['']);
    assert.equal(e!.length, 16);
    const long = Array(1000).fill('json file').join(' ');
    const [l] = await p.embedDocuments([long]);
    assert.ok(Math.abs(norm(l!) - 1) < 1e-5);
    assert.equal(p.health().status, 'up');
    assert.ok(p.health().requests > 0);
  });

  it('gives a clear error for a missing or incomplete model directory', async () => {
    await assert.rejects(
      OnnxEmbeddingProvider.load({ modelPath: join(FIXTURES, 'no-such-model') }),
      (e: unknown) => e instanceof ProviderUnavailableError && /does not exist/.test(e.message) && /Fix/.test(e.message),
    );
    const tmp = mkdtempSync(join(tmpdir(), 'quarry-onnx-'));
    try {
      const dir = join(tmp, 'broken');
      cpSync(EMBED_DIR, dir, { recursive: true });
      rmSync(join(dir, 'onnx', 'model.onnx'));
      await assert.rejects(OnnxEmbeddingProvider.load({ modelPath: dir }), (e: unknown) => e instanceof ProviderUnavailableError && /onnx\/model\.onnx/.test(e.message));
      writeFileSync(join(dir, 'onnx', 'model.onnx'), 'not a protobuf');
      await assert.rejects(OnnxEmbeddingProvider.load({ modelPath: dir }), (e: unknown) => e instanceof ProviderUnavailableError && /cannot load the model/.test(e.message));
      rmSync(join(dir, 'tokenizer.json'));
      await assert.rejects(OnnxEmbeddingProvider.load({ modelPath: dir }), /has no tokenizer\.json/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('changes id when the model file changes', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'quarry-onnx-'));
    try {
      const dir = join(tmp, 'tiny-bert-embed');
      cpSync(EMBED_DIR, dir, { recursive: true });
      cpSync(join(RERANK_DIR, 'onnx', 'model.onnx'), join(dir, 'onnx', 'model_quantized.onnx'));
      // 'auto' prefers model_quantized.onnx: a different file, a different id (it is the reranker graph, so loading
      // works but its output is not a hidden state — only the id matters here).
      const r = resolveModelDir(dir, 'auto', 'onnx');
      assert.equal(r.dtype, 'q8');
      assert.notEqual(await shortFileHash(r.onnxFile), p.id.split('@')[1]);
      assert.equal(resolveModelDir(dir, 'model.onnx', 'onnx').dtype, 'fp32');
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('tiny model fixtures', () => {
  it('are exactly what make-tiny-model.ts generates', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'quarry-gen-'));
    try {
      makeTinyModels(tmp);
      for (const m of ['tiny-bert-embed', 'tiny-bert-reranker']) {
        for (const f of [...readdirSync(join(tmp, m)).filter((x) => x !== 'onnx'), 'onnx/model.onnx']) {
          assert.ok(readFileSync(join(tmp, m, f)).equals(readFileSync(join(FIXTURES, m, f))), `${m}/${f} differs: rerun the generator`);
        }
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('cross-encoder reranker (generated tiny sequence-classification model)', () => {
  let r: CrossEncoderReranker;
  before(async () => {
    r = await CrossEncoderReranker.load({ modelPath: RERANK_DIR, batchSize: 3 });
  });
  after(async () => {
    await r?.close();
  });

  it('scores (query, document) pairs and returns the best first, at most topK', async () => {
    assert.match(r.id, /^cross-encoder:tiny-bert-reranker@[0-9a-f]{12}$/);
    const docs = ['draw a red circle', 'login with a password', 'read the yaml config file from disk', 'send a request to the server', 'parse json'];
    const res = await r.rerank('parse json config', docs, 3);
    assert.equal(res.length, 3);
    assert.deepEqual(new Set(res.slice(0, 2).map((x) => x.index)), new Set([2, 4]));
    assert.ok(res[0]!.score >= res[1]!.score && res[1]!.score >= res[2]!.score);
    const auth = await r.rerank('user password', docs, 1);
    assert.equal(auth[0]!.index, 1);
    assert.deepEqual(await r.rerank('q', [], 5), []);
  });
});
