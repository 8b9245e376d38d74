import assert from 'node:assert/strict';
import { copyFixture } from '../../support/workspace';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';
import { indexedWorkspace } from '../../support/indexedWorkspace';

/**
 * Constructors below the code that does the work (ranking/stages/constructors.ts): a class's constructor documents
 * and stores every setting the class uses, so it matches descriptions of what the class does; the method that does
 * it must come first. A question about the class's options still finds the constructor.
 */
const CTOR = 'SlidingWindowLimiter.__init__';
const BEHAVIOUR: Array<[question: string, answer: string]> = [
  ['where are requests rejected once a client sends too many within the time window', 'SlidingWindowLimiter.admit'],
  ['how many more requests may a client send before the window rejects it', 'SlidingWindowLimiter.remaining'],
];

for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`a description of behaviour lands on the method, not the constructor that stores its settings (${cfg.label})`, function () {
    this.timeout(120_000);
    const ws = indexedWorkspace(() => copyFixture('constructors'), cfg.open);

    it('indexes the constructor as a unit of its own', async () => {
      const res = await ws.engine().search(CTOR, { limit: 10, includeTests: false });
      const ctor = res.matches.find((m) => m.content.symbol === CTOR);
      assert.ok(ctor, res.matches.map((m) => m.content.symbol).join(', '));
    });

    for (const [q, answer] of BEHAVIOUR) {
      it(`"${q}": ${answer} before the constructor`, async () => {
        const res = await ws.engine().search(q, { limit: 10, includeTests: false, explain: true });
        const symbols = res.matches.map((m) => m.content.symbol);
        const at = symbols.indexOf(answer);
        const ctorAt = symbols.indexOf(CTOR);
        if (ctorAt >= 0) assert.ok(res.matches[ctorAt]!.explanation.some((l) => l.includes('constructor (the description asks about what the code does')), res.matches[ctorAt]!.explanation.join('\n'));
        // BM25 alone scores the constructor, whose doc names every setting, up to 3× the method: the factor does not
        // undo that, the learned scorer's order with it does
        if (cfg.open.reranker === null) return;
        assert.ok(at >= 0 && at <= 2, `${answer} at #${at + 1}: ${symbols.join(', ')}`);
        if (ctorAt >= 0) assert.ok(at < ctorAt, `constructor #${ctorAt + 1} before ${answer} #${at + 1}: ${symbols.join(', ')}`);
      });
    }

    it('"which options does the request limiter accept": the constructor in the top 5, not demoted', async () => {
      const res = await ws.engine().search('which options does the request limiter accept', { limit: 10, includeTests: false, explain: true });
      const symbols = res.matches.map((m) => m.content.symbol);
      const ctorAt = symbols.indexOf(CTOR);
      assert.ok(ctorAt >= 0 && ctorAt <= 4, `constructor at #${ctorAt + 1}: ${symbols.join(', ')}`);
      assert.ok(!res.matches[ctorAt]!.explanation.some((l) => l.includes('×') && l.includes('constructor (')), res.matches[ctorAt]!.explanation.join('\n'));
    });
  });
}
