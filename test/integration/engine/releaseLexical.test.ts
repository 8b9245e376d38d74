import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import type { LexicalIndex } from '../../../server/src/engine/store/lexical/lexicalIndex';
import { removeDir, tempDir } from '../../support/workspace';

const lexicalOf = (engine: Engine): LexicalIndex => (engine as unknown as { ctx: { lexical: LexicalIndex } }).ctx.lexical;

/**
 * Issue 21: a one-shot run (`quarry index`) drops the lexical index's segments from memory once its last batch is
 * committed (its process searches nothing afterwards; the Go tree's peak fell from 720-750 to about 635 MB); a
 * long-running engine keeps them. Whatever asks afterwards reads them again and gets the same answers.
 */
describe('a one-shot run releases the lexical segments after its lexical phase', function () {
  this.timeout(240_000);
  const roots: string[] = [];
  const workspace = () => {
    const root = tempDir('quarry-release-');
    mkdirSync(join(root, 'src'));
    // 1,200 functions: past RELEASE_AFTER_CHUNKS
    for (let i = 0; i < 300; i++) {
      const fns = [0, 1, 2, 3].map((k) => `/** Scales reading ${i}.${k} by its factor. */\nexport function scaleReading${i}x${k}(x: number): number {\n  return x * ${i + k} + ${k};\n}\n`);
      writeFileSync(join(root, 'src', `r${i}.ts`), fns.join('\n'));
    }
    roots.push(root);
    return root;
  };
  after(() => roots.forEach(removeDir));

  it('one-shot: released, and a search afterwards reads the segments again with the same answers', async () => {
    const root = workspace();
    const engine = await Engine.open(root, { embedding: null, reranker: null });
    try {
      const summary = await engine.index();
      assert.ok(summary.chunksCreated >= 1_000, `${summary.chunksCreated} chunks`);
      assert.equal(lexicalOf(engine).isReleased, true, 'released after the lexical phase');
      const res = await engine.search('scaleReading123x2', { limit: 3 });
      assert.equal(lexicalOf(engine).isReleased, false, 'read again for the search');
      assert.equal(res.matches[0]?.content.symbol, 'scaleReading123x2');
      const fresh = await Engine.open(root, { embedding: null, reranker: null });
      try {
        const again = await fresh.search('scales reading by its factor', { limit: 10 });
        const here = await engine.search('scales reading by its factor', { limit: 10 });
        const ids = (r: typeof here) => r.matches.map((m) => `${m.file.path}#${m.content.symbol}`);
        assert.equal(ids(here).length, 10);
        assert.deepEqual(ids(here), ids(again));
      } finally {
        await fresh.close();
      }
    } finally {
      await engine.close();
    }
  });

  it('long-running: kept in memory (its searches need them)', async () => {
    const root = workspace();
    const engine = await Engine.open(root, { embedding: null, reranker: null, longRunning: true });
    try {
      await engine.index();
      assert.equal(lexicalOf(engine).isReleased, false);
    } finally {
      await engine.close();
    }
  });
});
