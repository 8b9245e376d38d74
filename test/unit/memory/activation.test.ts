/** Activation (seed 003 FR-2/FR-6.4): the ACT-R base level, the access log, the ranking stage and its wording. */
import assert from 'node:assert/strict';
import { AccessLog, baseLevelActivation, normalizedActivation } from '../../../server/src/engine/memory/activation';
import { activationStage, describeActivation, relativeTime } from '../../../server/src/engine/ranking/stages/activation';
import type { Candidate, StageContext } from '../../../server/src/engine/ranking/candidate';
import { parseQuery } from '../../../server/src/engine/ranking/query';
import { RankingConfigSchema } from '../../../server/src/engine/config/schema';
import { removeDir, tempDir } from '../../support/workspace';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 21, 12);

describe('activation (seed 003 FR-2, FR-6.4)', () => {
  it('ACT-R base level: more and more recent uses are higher; no evidence is undefined', () => {
    assert.equal(baseLevelActivation({ accesses: [] }, NOW), undefined);
    const once = baseLevelActivation({ accesses: [NOW - DAY] }, NOW)!;
    const twice = baseLevelActivation({ accesses: [NOW - 2 * DAY, NOW - DAY] }, NOW)!;
    const old = baseLevelActivation({ accesses: [NOW - 30 * DAY] }, NOW)!;
    assert.ok(twice > once && once > old);
    assert.ok(Math.abs(once - Math.log((DAY / 1000) ** -0.5)) < 1e-9);
    const git = baseLevelActivation({ accesses: [], commits: 4, lastModifiedMs: NOW - DAY }, NOW)!;
    assert.ok(Math.abs(git - once) < 1e-9, 'four commits weigh one access at the same age');
  });

  it('the access log keeps each chunk\'s history across processes and caches until the file changes', () => {
    const root = tempDir('quarry-access-');
    try {
      const log = new AccessLog(root);
      assert.equal(log.history().size, 0);
      log.record(['a', 'b', 'a'], 'test', NOW - DAY);
      log.record(['a'], 'test', NOW);
      const h = new AccessLog(root).history();
      assert.deepEqual(h.get('a'), [NOW - DAY, NOW]);
      assert.deepEqual(h.get('b'), [NOW - DAY]);
    } finally {
      removeDir(root);
    }
  });

  const ranking = RankingConfigSchema.parse({});
  const ctx = (query: string, staged = false): StageContext => ({
    query: parseQuery(query), options: { limit: 10, includeTests: true }, ranking, stats: { identifierOccurrences: () => 0 }, stagedActivation: staged,
  });
  const cand = (id: string, score: number, raw?: number, accesses = 0): Candidate => ({ id, path: `${id}.ts`, score, explanation: [], activation: { raw, accesses } });

  it('maps activation onto a fixed 0..1 scale and boosts by at most ranking.activationBoost', () => {
    assert.equal(normalizedActivation(-10), 0);
    assert.equal(normalizedActivation(0), 1);
    assert.equal(normalizedActivation(-5), 0.5);
    assert.equal(normalizedActivation(-42), 0);
    const cs = [cand('hot', 1, 0, 3), cand('half', 1, -5, 1), cand('cold', 1), cand('ancient', 1, -20)];
    activationStage.apply(ctx('parse the config file'), cs);
    assert.deepEqual(cs.map((c) => c.activation!.normalized), [1, 0.5, 0, 0]);
    assert.equal(cs[0].score, 1 + ranking.activationBoost.natural);
    assert.equal(cs[1].score, 1 + ranking.activationBoost.natural / 2);
    assert.deepEqual(cs.slice(2).map((c) => c.score), [1, 1]);
    assert.match(cs[0].explanation[0], /^×1\.1 activation 1 \(accessed 3x, never opened from results\)$/);
    // one accessed chunk among many without evidence still stands out
    const lone = [cand('opened', 1, baseLevelActivation({ accesses: [Date.now() - DAY] })!, 1), cand('other', 1)];
    activationStage.apply(ctx('x y'), lone);
    assert.ok(lone[0].activation!.normalized! > 0.4 && lone[0].score > lone[1].score);
    // identifier queries get the smaller boost
    const id = [cand('a', 1, 0)];
    activationStage.apply(ctx('parseConfig'), id);
    assert.equal(id[0].score, 1 + ranking.activationBoost.identifier);
  });

  it('only annotates in staged fusion (stage 2 already weighed activation)', () => {
    const staged = [cand('a', 1, -1), cand('b', 1, -5)];
    activationStage.apply(ctx('x y', true), staged);
    assert.deepEqual(staged.map((c) => c.score), [1, 1]);
    assert.equal(staged[0].activation!.normalized, 0.9, 'still normalised for display');
  });

  it('describes activation as FR-6.4 asks', () => {
    assert.equal(describeActivation({ accesses: 3, lastAccessMs: NOW - 2 * DAY, git: { status: 'tracked', commits: 23 } }, NOW), 'accessed 3x, 23 commits, last used 2 days ago');
    assert.equal(describeActivation({ accesses: 0, git: { status: 'untracked', commits: -1 } }, NOW), 'accessed 0x, never opened from results');
    assert.equal(relativeTime(NOW - 3 * 7 * DAY, NOW), '3 weeks ago');
    assert.equal(relativeTime(NOW - 1000, NOW), 'just now');
    assert.equal(relativeTime(NOW - 400 * DAY, NOW), '1 year ago');
  });
});
