import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { openCurrentStore } from '../../../bench/systems';
import { createEmbeddingProvider } from '../../../server/src/engine/embedding/registry';
import { defaultConfig } from '../../../server/src/engine/config/schema';
import { copyFixture, removeDir } from '../../support/workspace';

/** Every vector of the workspace's default model, by content hash. */
async function vectorsOf(root: string): Promise<Map<string, number[]>> {
  const provider = (await createEmbeddingProvider(defaultConfig().embedding, { workspaceDir: root }))!;
  const store = await openCurrentStore(root);
  try {
    const vectors = await store.vectors(provider.id, provider.dims);
    const hashes = [...(await vectors.knownHashes())];
    const out = new Map<string, number[]>();
    for (const [h, v] of await vectors.vectorsOf(hashes)) out.set(h, Array.from(v));
    return out;
  } finally {
    await store.close();
  }
}

/**
 * Issue 21: a one-shot index run embeds committed chunks during its lexical phase (indexer/earlyEmbedder.ts) with the
 * static code model; the dense phase embeds the rest. The vectors must be those the dense phase alone computes (a
 * long-running engine does not embed early), and the summary must count every content once.
 */
describe('embedding during the lexical phase (one-shot runs, the static code model)', function () {
  this.timeout(240_000);
  const roots: string[] = [];
  const workspace = () => {
    const root = copyFixture('polyglot');
    // enough files for several committed batches
    mkdirSync(join(root, 'many'), { recursive: true });
    for (let i = 0; i < 240; i++) writeFileSync(join(root, 'many', `m${i}.ts`), `/** Computes the value number ${i}. */\nexport function compute${i}(x: number): number {\n  return x * ${i} + ${i % 7};\n}\n`);
    roots.push(root);
    return root;
  };
  after(() => roots.forEach(removeDir));

  it('gives the vectors the dense phase alone gives, counted once in the summary', async () => {
    const early = workspace();
    const oneShot = await Engine.open(early);
    const s1 = await oneShot.index();
    await oneShot.close();
    const late = workspace();
    const longRunning = await Engine.open(late, { longRunning: true });
    const s2 = await longRunning.index();
    await longRunning.close();

    assert.ok(s1.embedding && s2.embedding, 'both runs embedded');
    assert.ok((s1.embedding.duringLexical ?? 0) > 0, `the one-shot run embedded during its lexical phase: ${JSON.stringify(s1.embedding)}`);
    assert.equal(s2.embedding.duringLexical, undefined, 'a long-running engine leaves embedding to the dense phase');
    for (const s of [s1, s2]) {
      assert.equal(s.embedding!.cached, 0, 'a cold index has nothing cached');
      assert.equal(s.embedding!.embedded, s.embedding!.missing, 'every missing content embedded once');
    }
    assert.equal(s1.embedding.missing, s2.embedding.missing);
    const [a, b] = [await vectorsOf(early), await vectorsOf(late)];
    assert.equal(a.size, s1.embedding.embedded);
    assert.deepEqual([...a.keys()].sort(), [...b.keys()].sort());
    for (const [h, v] of a) assert.deepEqual(v, b.get(h), h);

    // a second run finds every vector cached
    const again = await Engine.open(early);
    await again.index();
    const s3 = await again.index({ full: false });
    await again.close();
    assert.equal(s3.embedding?.missing ?? 0, 0);
  });
});
