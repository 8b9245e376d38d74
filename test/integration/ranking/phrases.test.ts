import assert from 'node:assert/strict';
import { Engine } from '../../../server/src/engine/engine';
import { tempDir, writeFiles, removeDir } from '../../support/workspace';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';

/** Seed 001 through the engine: phrase-complete results first, order kept within groups, nothing discarded. */
for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`phrase boosting through the engine (seed 001) (${cfg.label})`, function () {
    this.timeout(60_000);
    let root: string;
    let engine: Engine;
    before(async () => {
      root = tempDir();
      writeFiles(root, {
        'src/pool.ts': '/** Opens a connection pool with a retry policy. */\nexport function openPool(size: number) {\n  return new Pool({ size, retry: defaultRetry });\n}\n',
        'src/cache.ts': '/** Connection cache: keeps one connection per host; the pool is elsewhere. */\nexport function connectionCache() {\n  return new Map<string, Connection>();\n}\n',
        'src/retry.ts': '/** The retry policy of every connection pool client: backoff and jitter. */\nexport const defaultRetry = { attempts: 3 };\n',
        'src/other.ts': 'export function unrelated() {\n  return 42;\n}\n',
      });
      engine = await Engine.open(root, cfg.open);
      await engine.index();
    });
    after(async () => {
      await engine.close();
      removeDir(root);
    });

    it('puts results that contain every phrase first and keeps the others after them', async () => {
      const plain = await engine.search('connection pool retry policy', { limit: 10 });
      const phrased = await engine.search('"connection pool" "retry policy"', { limit: 10 });
      const paths = phrased.matches.map((m) => m.file.path);
      const complete = phrased.matches.filter((m) => /connection pool/i.test(m.content.content) && /retry policy/i.test(m.content.content)).map((m) => m.file.path);
      assert.deepEqual(paths.slice(0, complete.length).sort(), [...complete].sort());
      assert.ok(complete.length >= 2);
      assert.ok(paths.includes('src/cache.ts'), 'nothing is discarded');
      assert.equal(phrased.matches.length, plain.matches.length);
      assert.ok(phrased.matches[phrased.matches.length - 1].explanation.some((l) => l.startsWith('phrase: missing')));
    });

    it('unquoted words still rank: a single phrase plus free words', async () => {
      const res = await engine.search('"connection pool" jitter', { limit: 5 });
      const retry = res.matches.find((m) => m.file.path === 'src/retry.ts')!;
      const bm25 = retry.explanation.find((l) => l.startsWith('bm25 ')) ?? '';
      assert.ok(bm25.includes('body:jitter'), retry.explanation.join('\n'));
      const group0 = res.matches.filter((m) => m.explanation.some((l) => l.startsWith('phrase: contains')));
      for (let i = 1; i < group0.length; i++) assert.ok(group0[i - 1].score >= group0[i].score, 'score order within the group');
      assert.ok(!group0.some((m) => m.file.path === 'src/cache.ts'));
    });
  });
}
