import assert from 'node:assert/strict';
import { copyFixture } from '../../support/workspace';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';
import { indexedWorkspace } from '../../support/indexedWorkspace';

/**
 * Test doubles below the code they stand in for (ranking/stages/testDoubles.ts): a library's mocks repeat the names
 * and words of its real code (test/fixtures/test-doubles, shaped as undici's `lib/mock/`); a description of the real
 * behaviour must find the real code first, and a question about the doubles must still find them.
 */
for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`a description of real behaviour lands on the real code, not its test double (${cfg.label})`, function () {
    this.timeout(120_000);
    const ws = indexedWorkspace(() => copyFixture('test-doubles'), cfg.open);

    for (const q of ['which pool serves a request for an origin', 'dispatch a request to the pool for its origin']) {
      it(`"${q}": the real code first, the doubles after it`, async () => {
        const res = await ws.engine().search(q, { limit: 10, explain: true });
        const files = res.matches.map((m) => `${m.file.path}#${m.content.symbol}`);
        assert.ok(['lib/agent.js', 'lib/pool.js'].includes(res.matches[0]!.file.path), files.join(', '));
        for (const m of res.matches.filter((x) => x.file.path.startsWith('lib/mock/'))) {
          assert.ok(m.explanation.some((l) => l.includes('a test double')), m.explanation.join('\n'));
        }
      });
    }

    it('a question about the doubles finds them first', async () => {
      const res = await ws.engine().search('mock agent that answers requests with recorded replies', { limit: 10, explain: true });
      const first = res.matches[0]!;
      assert.match(first.file.path, /^lib\/mock\//, res.matches.map((m) => `${m.file.path}#${m.content.symbol}`).join(', '));
      assert.ok(!first.explanation.some((l) => l.includes('a test double')));
    });
  });
}
