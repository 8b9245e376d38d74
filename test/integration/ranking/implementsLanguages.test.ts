import assert from 'node:assert/strict';
import { Engine } from '../../../server/src/engine/engine';
import type { CodeMatch } from '../../../server/src/engine/api/results';
import { copyFixture, removeDir } from '../../support/workspace';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';

/**
 * "What implements X" in Kotlin and C# (test/fixtures/implements/README.md): every implementation in the top 5 — the
 * direct ones first, the definition in the top 3, the indirect ones (through a sub-interface or a superclass) next —
 * and the sub-interface and usage sites after them, in every phrasing and in both configurations.
 */
const FIXTURES = [
  {
    language: 'kotlin', iface: 'EvictionPolicy', sub: 'DescribedPolicy',
    direct: ['LruPolicy', 'FifoPolicy', 'NoEviction'], indirect: ['RandomPolicy', 'PinningFifoPolicy'], usages: ['BoundedCache', 'policyNamed'],
  },
  {
    language: 'csharp', iface: 'IEvictionPolicy', sub: 'IDescribedPolicy',
    direct: ['LruPolicy', 'FifoPolicy', 'NoEviction'], indirect: ['RandomPolicy', 'PinningFifoPolicy'], usages: ['BoundedCache', 'PolicyNamed'],
  },
];
const PHRASINGS = ['what implements {X}', '{X} implementations', 'classes that implement {X}', 'which types implement the {X} interface'];

const bare = (m: CodeMatch) => m.content.symbol.split(/\.|::/).pop()!;

for (const cfg of RANKING_CONFIGURATIONS) for (const f of FIXTURES) {
  describe(`what implements X in ${f.language} (${cfg.label})`, function () {
    this.timeout(120_000);
    let root: string;
    let engine: Engine;
    before(async () => {
      root = copyFixture(`implements/${f.language}`);
      engine = await Engine.open(root, cfg.open);
      await engine.index();
    });
    after(async () => {
      await engine?.close();
      removeDir(root);
    });

    for (const phrasing of PHRASINGS) {
      it(`"${phrasing}": direct implementations in the top 5, indirect ones right after them, the definition in the top 3`, async () => {
        const query = phrasing.replace('{X}', f.iface);
        const res = await engine.search(query, { limit: 10, explain: true });
        const names = res.matches.map(bare);
        const rank = (n: string) => names.indexOf(n);
        const list = names.join(', ');
        for (const n of [...f.direct, ...f.indirect]) assert.ok(rank(n) >= 0 && rank(n) < (f.direct.length + f.indirect.length + 1), `${n} not in the top ${f.direct.length + f.indirect.length + 1}: ${list}`);
        for (const n of f.direct) assert.ok(rank(n) < 5, `${n} (direct) not in the top 5: ${list}`);
        assert.ok(rank(f.iface) >= 0 && rank(f.iface) < 3, `the definition of ${f.iface} not in the top 3: ${list}`);
        const lastDirect = Math.max(...f.direct.map(rank));
        for (const n of f.indirect) assert.ok(rank(n) > lastDirect, `${n} (indirect) ranks above a direct implementation: ${list}`);
        const lastImpl = Math.max(...[...f.direct, ...f.indirect].map(rank));
        for (const n of [f.sub, ...f.usages]) if (rank(n) >= 0) assert.ok(rank(n) > lastImpl, `${n} (not an implementation) ranks above an implementation: ${list}`);
        const random = res.matches.find((m) => bare(m) === 'RandomPolicy')!;
        assert.ok(random.explanation.some((l) => l.includes(`through ${f.sub}`) || l.includes(`${f.sub}, which conforms to ${f.iface}`)), random.explanation.join('\n'));
      });
    }
  });
}
