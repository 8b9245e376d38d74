import assert from 'node:assert/strict';
import { Engine } from '../../../server/src/engine/engine';
import { INTENT_TYPES } from '../../../server/src/engine/api/results';
import { REPO_ROOT, tempDir, removeDir } from '../../support/workspace';
import { copyRepository, loadReferenceSuite, runReferenceSuite } from '../../support/referenceSuite';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';

for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`reference query suite on Quarry's own code (seed 002 FR-036) (${cfg.label})`, function () {
    this.timeout(300_000);
    let root: string;
    let engine: Engine;
    before(async () => {
      root = tempDir('quarry-reference-');
      copyRepository(REPO_ROOT, root);
      engine = await Engine.open(root, cfg.open);
      await engine.index();
    });
    after(async () => {
      await engine?.close();
      removeDir(root);
    });

    it('has at least 20 queries covering every intent', () => {
      const { queries } = loadReferenceSuite(REPO_ROOT);
      assert.ok(queries.length >= 20);
      for (const intent of INTENT_TYPES) assert.ok(queries.some((q) => q.intent.toUpperCase() === intent), `no ${intent} query`);
    });

    // The seed's targets (70% / 80%) for the rule stages alone; as shipped, issue 17's (P@3 >= 90%, P@5 >= 95%).
    const [p3Target, p5Target] = cfg === RANKING_CONFIGURATIONS[0] ? [0.9, 0.95] : [0.7, 0.8];
    it(`reaches P@3 >= ${p3Target * 100}% and P@5 >= ${p5Target * 100}%`, async () => {
      const { results, p3, p5 } = await runReferenceSuite(engine, REPO_ROOT);
      const report = results.map((r) => `${r.rank || '>10'}\t${r.query.query}\t[${r.top.join(', ')}]`).join('\n');
      assert.ok(p3 >= p3Target, `P@3 ${(p3 * 100).toFixed(1)}%:\n${report}`);
      assert.ok(p5 >= p5Target, `P@5 ${(p5 * 100).toFixed(1)}%:\n${report}`);
    });
  });
}
