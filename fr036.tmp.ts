import { Engine } from './server/src/engine/engine';
import { REPO_ROOT, tempDir, removeDir } from './test/support/workspace';
import { copyRepository, runReferenceSuite } from './test/support/referenceSuite';
import { RANKING_CONFIGURATIONS } from './test/support/configurations';
(async () => {
  const cfg = RANKING_CONFIGURATIONS.find((c) => c.label.includes(process.env.CFG ?? 'default'))!;
  const root = tempDir('quarry-ref-');
  copyRepository(REPO_ROOT, root);
  const engine = await Engine.open(root, cfg.open);
  await engine.index();
  const { results, p3, p5 } = await runReferenceSuite(engine, REPO_ROOT);
  for (const r of results) console.log(`${r.rank || '>10'}\t${r.query.intent}\t${r.query.query}\t want ${r.query.expected.map((e) => e.path + '#' + e.symbol).join(' | ')}\n\t\t[${r.top.join(', ')}]`);
  console.log(cfg.label, 'P@3', (p3 * 100).toFixed(1), 'P@5', (p5 * 100).toFixed(1));
  await engine.close();
  removeDir(root);
})();
