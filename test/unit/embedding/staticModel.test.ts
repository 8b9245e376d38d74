import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledModelDir, chooseEmbeddingProvider, createEmbeddingProvider } from '../../../server/src/engine/embedding/registry';
import { StaticEmbeddingProvider, STATIC_MODEL_FORMAT } from '../../../server/src/engine/embedding/providers/static';
import { featuresOf } from '../../../server/src/engine/embedding/static/features';
import { createHash } from 'node:crypto';
import { ProviderUnavailableError } from '../../../server/src/engine/embedding/types';
import type { ModelTable } from '../../../server/src/engine/embedding/static/table';
import { releaseIndexingMemos } from '../../../server/src/engine/indexingMemos';

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/**
 * The model's vector as its definition states it: the weighted rows summed one element at a time in f32 (each
 * weight × scale rounded to f32, each product rounded to f32, each sum rounded to f32: the SIMD kernel's arithmetic),
 * L2-normalised.
 */
function plainVector(model: StaticEmbeddingProvider, text: string): Float32Array {
  const { scales, spec } = (model as unknown as { weights(): { scales: Float32Array; spec: Parameters<typeof featuresOf>[1] } }).weights();
  const file = readFileSync(join(model.dir, model.meta.files.table.path));
  const table = new Int8Array(file.buffer, file.byteOffset, file.length);
  const { rows, weights } = featuresOf(text, spec);
  const v = new Float32Array(model.dims);
  rows.forEach((r, k) => {
    const w = Math.fround(weights[k]! * scales[r]!);
    for (let j = 0; j < model.dims; j++) v[j]! += Math.fround(w * table[r * model.dims + j]!);
  });
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return n > 0 ? v.map((x) => x / n) : v;
}

const SAMPLES = ['def read_lines(path): return open(path).read().splitlines()', 'ChunkStore.replacePaths', 'a', 'x'.repeat(3000) + ' fetchUserProfile(id) { return http.get(`/users/${id}`); }'];

describe('static code model (models/quarry-code)', () => {
  const dir = bundledModelDir('quarry-code');
  let model: StaticEmbeddingProvider;
  before(() => {
    assert.ok(dir, 'the model is committed under models/quarry-code');
    model = StaticEmbeddingProvider.load(dir!);
  });

  it('loads the committed artifact and names its version in the id', () => {
    const meta = JSON.parse(readFileSync(join(dir!, 'model.json'), 'utf8'));
    assert.equal(meta.format, STATIC_MODEL_FORMAT);
    assert.equal(model.dims, meta.dims);
    assert.equal(model.id, `static:quarry-code@${meta.files.table.sha256.slice(0, 12)}`);
    assert.equal(model.kind, 'local');
    assert.ok(meta.training.validation.int8.all.mrr10 > 0.2, 'held-out validation MRR@10 is recorded');
  });

  it('embeds to unit vectors, deterministically, the same for documents and queries', async () => {
    const [a, b] = await model.embedDocuments(['def read_lines(path): return open(path).read().splitlines()', '']);
    assert.equal(a!.length, model.dims);
    assert.ok(Math.abs(cos(a!, a!) - 1) < 1e-4);
    assert.ok(b!.every((x) => x === 0), 'an empty text has no features: the zero vector');
    const q = await model.embedQuery('def read_lines(path): return open(path).read().splitlines()');
    assert.deepEqual(Array.from(q), Array.from(a!));
  });

  it('computes exactly the vector of its definition (the unrolled sum is bit-identical), whatever the width', () => {
    for (const text of SAMPLES) assert.deepEqual(model.embed(text), plainVector(model, text));
    // a width that is not a multiple of the eight lanes: the same vocabulary over a 12-wide table
    const tmp = mkdtempSync(join(tmpdir(), 'quarry-static-'));
    try {
      const copy = join(tmp, 'narrow');
      cpSync(dir!, copy, { recursive: true });
      const meta = JSON.parse(readFileSync(join(copy, 'model.json'), 'utf8'));
      const table = Buffer.alloc(meta.rows * 12);
      for (let i = 0; i < table.length; i++) table[i] = (i * 37 + 11) % 256;
      const scales = Buffer.from(new Float32Array(meta.rows).fill(0.01).buffer);
      writeFileSync(join(copy, meta.files.table.path), table);
      writeFileSync(join(copy, meta.files.scales.path), scales);
      const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
      meta.dims = 12;
      meta.files.table.sha256 = sha(table);
      meta.files.scales.sha256 = sha(scales);
      writeFileSync(join(copy, 'model.json'), JSON.stringify(meta));
      const narrow = StaticEmbeddingProvider.load(copy);
      assert.equal(narrow.dims, 12);
      for (const text of SAMPLES) assert.deepEqual(narrow.embed(text), plainVector(narrow, text));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('embeds the same vectors with an indexing run\'s row cache and a search\'s (rows read from the file)', async () => {
    releaseIndexingMemos();
    const table = (model as unknown as { weights(): { table: ModelTable } }).weights().table;
    assert.equal(table.size, 0, 'released: no row kept');
    assert.equal(table.capacity, 8192);
    const paged = SAMPLES.map((t) => model.embed(t));
    assert.ok(table.size > 0 && table.size <= 8192, `${table.size} rows kept`);
    for (const [i, text] of SAMPLES.entries()) assert.deepEqual(paged[i], plainVector(model, text));
    // a batch as indexing sends them keeps more rows, until the memos are released
    const reads = table.reads;
    const batch = await model.embedDocuments(Array.from({ length: 40 }, (_, i) => SAMPLES[i % SAMPLES.length]!));
    assert.equal(table.capacity, 32768, 'the indexing cache after a large batch');
    assert.ok(table.reads > reads, 'the larger cache starts empty and reads its rows');
    for (const [i, v] of batch.entries()) assert.deepEqual(v, paged[i % SAMPLES.length]);
    const again = table.reads;
    await model.embedDocuments(Array.from({ length: 40 }, (_, i) => SAMPLES[i % SAMPLES.length]!));
    assert.equal(table.reads, again, 'rows seen once are kept');
    releaseIndexingMemos();
    assert.equal(table.capacity, 8192);
    assert.equal(table.size, 0);
    assert.deepEqual(model.embed(SAMPLES[0]!), paged[0]);
  });

  it('puts a question nearer to the code that answers it than to unrelated code', async () => {
    const code = [
      'func ReadLines(path string) ([]string, error) {\n  f, err := os.Open(path)\n  if err != nil { return nil, err }\n  defer f.Close()\n  var lines []string\n  s := bufio.NewScanner(f)\n  for s.Scan() { lines = append(lines, s.Text()) }\n  return lines, s.Err()\n}',
      'def sha256_digest(data: bytes) -> str:\n    h = hashlib.sha256()\n    h.update(data)\n    return h.hexdigest()',
      'export function debounce(fn, wait) {\n  let timer;\n  return (...args) => {\n    clearTimeout(timer);\n    timer = setTimeout(() => fn(...args), wait);\n  };\n}',
    ];
    const vecs = await model.embedDocuments(code);
    const best = async (q: string) => {
      const v = await model.embedQuery(q);
      return vecs.map((c) => cos(v, c)).reduce((bi, s, i, all) => (s > all[bi]! ? i : bi), 0);
    };
    assert.equal(await best('read a file line by line'), 0);
    assert.equal(await best('compute the hash of some bytes'), 1);
    assert.equal(await best('delay calling a function until input stops'), 2);
  });

  it('refuses a corrupted, truncated or foreign artifact with the cause and the fix', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'quarry-static-'));
    try {
      const copy = join(tmp, 'quarry-code');
      cpSync(dir!, copy, { recursive: true });
      const table = readFileSync(join(copy, 'table.i8'));
      table[12345] = (table[12345]! + 1) & 0xff;
      writeFileSync(join(copy, 'table.i8'), table);
      assert.throws(() => StaticEmbeddingProvider.load(copy), (e: unknown) => e instanceof ProviderUnavailableError && /corrupted/.test(e.message) && /Fix:/.test(e.message));
      // Opened lazily (as the engine does), the damage surfaces on the first embedding, as a provider failure.
      const lazy = StaticEmbeddingProvider.load(copy, { lazy: true });
      await assert.rejects(lazy.embedQuery('read a file'), (e: unknown) => e instanceof ProviderUnavailableError && /corrupted/.test(e.message));
      assert.equal(lazy.health().errors, 1);
      cpSync(join(dir!, 'table.i8'), join(copy, 'table.i8'));
      truncateSync(join(copy, 'scales.f32'), 100);
      assert.throws(() => StaticEmbeddingProvider.load(copy), /truncated/);
      const meta = JSON.parse(readFileSync(join(copy, 'model.json'), 'utf8'));
      writeFileSync(join(copy, 'model.json'), JSON.stringify({ ...meta, format: 'something-else/9' }));
      assert.throws(() => StaticEmbeddingProvider.load(copy), /format/);
      rmSync(join(copy, 'model.json'));
      assert.throws(() => StaticEmbeddingProvider.load(copy), /model\.json unreadable/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('is the default provider when there is no Voyage key and no ONNX model', async () => {
    const home = mkdtempSync(join(tmpdir(), 'quarry-home-'));
    try {
      const choice = chooseEmbeddingProvider({}, { env: {}, home });
      assert.equal(choice.provider, 'static');
      assert.equal(choice.modelPath, dir);
      const p = await createEmbeddingProvider({}, { env: {}, home });
      assert.equal(p!.id, model.id);
      assert.equal(chooseEmbeddingProvider({ provider: 'static', static: { modelPath: '/nowhere' } }, { env: {}, home }).modelPath, '/nowhere');
      await assert.rejects(createEmbeddingProvider({ provider: 'static', static: { modelPath: '/nowhere' } }, { env: {}, home }), ProviderUnavailableError);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
