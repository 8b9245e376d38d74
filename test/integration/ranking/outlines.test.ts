import assert from 'node:assert/strict';
import type { CodeMatch } from '../../../server/src/engine/api/results';
import { copyFixture } from '../../support/workspace';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';
import { indexedWorkspace } from '../../support/indexedWorkspace';

/**
 * Members over outlines (ranking/stages/membersOverOutlines.ts): a large class is an outline unit plus a unit per
 * member, and a description is answered by a member — the outline must not be listed before all of its members.
 */
const QUESTIONS = [
  'which events are emitted around running a command',
  'find a command by an abbreviation of its name',
  'list the namespaces of the registered commands',
  'remove a command and its aliases from the registry',
];

const isOutline = (m: CodeMatch) => m.content.symbol === 'CommandRegistry';
const isMember = (m: CodeMatch) => m.content.symbol.startsWith('CommandRegistry.');

for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`a description lands on a member, not on its class's outline (${cfg.label})`, function () {
    this.timeout(120_000);
    const ws = indexedWorkspace(() => copyFixture('outlines'), cfg.open);

    it('indexes the class as an outline and its members', async () => {
      const res = await ws.engine().search('CommandRegistry', { limit: 20, includeTests: false });
      const outline = res.matches.find(isOutline);
      assert.ok(outline, 'the outline unit of CommandRegistry');
      assert.ok(outline.span[1] - outline.span[0] > 100, 'the outline spans the whole class');
    });

    for (const q of QUESTIONS) {
      it(`"${q}": a member of CommandRegistry comes before its outline, which stays in the list`, async () => {
        const res = await ws.engine().search(q, { limit: 10, includeTests: false });
        const symbols = res.matches.map((m) => m.content.symbol);
        const outlineAt = res.matches.findIndex(isOutline);
        const firstMember = res.matches.findIndex(isMember);
        assert.ok(firstMember >= 0, `no member in ${symbols.join(', ')}`);
        if (outlineAt >= 0) assert.ok(firstMember < outlineAt, `outline #${outlineAt + 1} before its first member #${firstMember + 1}: ${symbols.join(', ')}`);
      });
    }

    it('a member that takes its outline\'s place says so, and the outline says to whom it gave it', async () => {
      let swaps = 0;
      for (const q of QUESTIONS) {
        const res = await ws.engine().search(q, { limit: 10, includeTests: false, explain: true });
        const outline = res.matches.find(isOutline);
        const taker = res.matches.find((m) => m.explanation.some((l) => l.startsWith('members over outlines: takes the place of CommandRegistry')));
        if (!taker) continue;
        swaps++;
        assert.ok(isMember(taker), taker.content.symbol);
        if (outline) assert.ok(outline.explanation.some((l) => l.includes(`gives its place to its member ${taker.content.symbol}`)), outline.explanation.join('\n'));
      }
      assert.ok(swaps >= 1, 'no outline gave its place to a member');
    });

    it('"which events are emitted around running a command": CommandRegistry.run first, its outline in the top 5', async () => {
      const res = await ws.engine().search(QUESTIONS[0]!, { limit: 10, includeTests: false });
      const symbols = res.matches.map((m) => m.content.symbol);
      const runAt = symbols.indexOf('CommandRegistry.run');
      assert.ok(runAt >= 0 && runAt <= 1, `CommandRegistry.run at #${runAt + 1}: ${symbols.join(', ')}`);
      assert.ok(symbols.slice(0, 5).includes('CommandRegistry'), `outline not in the top 5: ${symbols.join(', ')}`);
    });
  });
}
