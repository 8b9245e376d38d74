import assert from 'node:assert/strict';
import { UseEmbeddingProvider } from '../../../server/src/engine/embedding/providers/use';
import { cosine } from '../../../server/src/engine/embedding/vector';

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('local-use provider (Universal Sentence Encoder lite, offline)', () => {
  let p: UseEmbeddingProvider;
  before(async () => {
    p = await UseEmbeddingProvider.load({ batchSize: 8 });
  });
  after(async () => {
    await p?.close();
  });

  it('loads the bundled model and embeds 512-d normalised vectors', async () => {
    assert.equal(p.id, 'local-use:use-lite-512');
    assert.equal(p.dims, 512);
    const [v] = await p.embedDocuments(['hello world']);
    assert.equal(v!.length, 512);
    assert.ok(Math.abs(norm(v!) - 1) < 1e-4);
  });

  it('puts "parse a json file" closer to "read JSON from disk" than to "draw a red circle"', async () => {
    const [a, b, c] = await p.embedDocuments(['parse a json file', 'read JSON from disk', 'draw a red circle']);
    const near = cosine(a!, b!);
    const far = cosine(a!, c!);
    assert.ok(near > far + 0.1, `near ${near.toFixed(3)} far ${far.toFixed(3)}`);
    const q = await p.embedQuery('parse a json file');
    assert.ok(cosine(q, a!) > 0.999, 'query and document embeddings agree for this symmetric model');
  });

  it('keeps order across batches and survives empty and very long inputs', async () => {
    const texts = Array.from({ length: 19 }, (_, i) => (i === 3 ? '' : `topic number ${i} about ${i % 2 ? 'databases' : 'graphics'}`));
    texts.push('x '.repeat(50_000));
    const all = await p.embedDocuments(texts);
    assert.equal(all.length, 20);
    const one = await p.embedQuery(texts[11]!);
    assert.ok(cosine(one, all[11]!) > 0.999);
    assert.ok(cosine(one, all[12]!) < 0.999);
    assert.equal(p.health().status, 'up');
  });
});
