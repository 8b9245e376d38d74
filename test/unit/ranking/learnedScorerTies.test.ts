import assert from 'node:assert/strict';
import { learnedScorerStage } from '../../../server/src/engine/ranking/stages/learnedScorer';
import type { CandidateScorer } from '../../../server/src/engine/ranking/candidate';
import { chunk, candidate, stageContext } from '../../support/chunks';

/** A scorer that answers fixed probabilities, in the candidates' order (a stand-in for a saturated model's output). */
function fixed(scores: number[]): CandidateScorer {
  return { id: 'fixed', needsBothChannels: false, scoreCandidates: () => scores } as unknown as CandidateScorer;
}

const fn = (name: string) => chunk({ kind: 'function', name, path: `src/${name}.ts`, language: 'typescript', content: `function ${name}() {}` });

async function order(scores: number[]): Promise<string[]> {
  const cands = [candidate(fn('fusedFirst'), 3), candidate(fn('fusedSecond'), 2), candidate(fn('fusedThird'), 1)];
  const strategy: Array<'HYBRID_SEARCH' | 'SEMANTIC_RERANK'> = ['HYBRID_SEARCH'];
  const ctx = { ...stageContext('merge index segments'), scorer: fixed(scores), scorerOptions: { candidates: 50, weight: 1 }, effects: { strategy, warnings: [] } };
  const out = await learnedScorerStage.apply(ctx, cands);
  return [...out].sort((a, b) => b.score - a.score).map((c) => c.chunk!.name);
}

describe('learned scorer: near-ties keep the fused order', () => {
  it('scores apart by more than 5% of the scored range reorder the list', async () => {
    assert.deepEqual(await order([0.2, 0.5, 0.9]), ['fusedThird', 'fusedSecond', 'fusedFirst']);
    // logits (quarry-rerank's scale): 2 apart over a range of 8
    assert.deepEqual(await order([-2, 4, 6]), ['fusedThird', 'fusedSecond', 'fusedFirst']);
  });
  it('logits within 5% of the scored range keep the fused order', async () => {
    const cands = [candidate(fn('fusedFirst'), 4), candidate(fn('fusedSecond'), 3), candidate(fn('fusedThird'), 2), candidate(fn('weak'), 1)];
    const strategy: Array<'HYBRID_SEARCH' | 'SEMANTIC_RERANK'> = ['HYBRID_SEARCH'];
    // 7.9, 8.0 and 8.1 over a range from -2: 1–2% apart
    const ctx = { ...stageContext('merge index segments'), scorer: fixed([7.9, 8.1, 8.0, -2]), scorerOptions: { candidates: 50, weight: 1 }, effects: { strategy, warnings: [] } };
    const out = await learnedScorerStage.apply(ctx, cands);
    assert.deepEqual([...out].sort((a, b) => b.score - a.score).map((c) => c.chunk!.name), ['fusedFirst', 'fusedSecond', 'fusedThird', 'weak']);
  });
  it('a saturated model (0.9990 vs 0.9995 vs 0.9992 over a range from 0.1) leaves those in the fused order', async () => {
    const cands = [candidate(fn('fusedFirst'), 4), candidate(fn('fusedSecond'), 3), candidate(fn('fusedThird'), 2), candidate(fn('weak'), 1)];
    const strategy: Array<'HYBRID_SEARCH' | 'SEMANTIC_RERANK'> = ['HYBRID_SEARCH'];
    const ctx = { ...stageContext('merge index segments'), scorer: fixed([0.999, 0.9995, 0.9992, 0.1]), scorerOptions: { candidates: 50, weight: 1 }, effects: { strategy, warnings: [] } };
    const out = await learnedScorerStage.apply(ctx, cands);
    assert.deepEqual([...out].sort((a, b) => b.score - a.score).map((c) => c.chunk!.name), ['fusedFirst', 'fusedSecond', 'fusedThird', 'weak']);
  });
});

describe("learned scorer: fusion's best stays on the page (rerank.keepFusedBest)", () => {
  const names = ['fusedFirst', 'fusedSecond', 'fusedThird', 'fusedFourth', 'fusedFifth'];
  async function run(keepFusedBest?: number) {
    const cands = names.map((n, i) => candidate(fn(n), names.length - i));
    const strategy: Array<'HYBRID_SEARCH' | 'SEMANTIC_RERANK'> = ['HYBRID_SEARCH'];
    // the model ranks the fused order backwards: fusion's best would end last
    const ctx = { ...stageContext('merge index segments'), scorer: fixed([0.1, 0.3, 0.5, 0.7, 0.9]), scorerOptions: { candidates: 50, weight: 1, keepFusedBest }, effects: { strategy, warnings: [] } };
    const out = await learnedScorerStage.apply(ctx, cands);
    return [...out].sort((a, b) => b.score - a.score);
  }
  it('by default, the fused best that the scorer put last is moved up to third; the rest keep the learned order', async () => {
    const out = await run();
    assert.deepEqual(out.map((c) => c.chunk!.name), ['fusedFifth', 'fusedFourth', 'fusedFirst', 'fusedThird', 'fusedSecond']);
    assert.match(out[2].explanation.join('\n'), /the scorer put it #5, fusion's best stays in the first 3/);
  });
  it('0 turns the floor off (the learned order alone)', async () => {
    const out = await run(0);
    assert.deepEqual(out.map((c) => c.chunk!.name), ['fusedFifth', 'fusedFourth', 'fusedThird', 'fusedSecond', 'fusedFirst']);
  });
  it('a fused best the scorer kept within the floor is not moved', async () => {
    const out = await run(5);
    assert.equal(out.at(-1)!.chunk!.name, 'fusedFirst');
  });
});

describe("learned scorer: the best keyword match stays on the page (rerank.keepKeywordBest)", () => {
  const names = ['fusedFirst', 'fusedSecond', 'fusedThird', 'fusedFourth', 'fusedFifth', 'fusedSixth', 'keywordBest'];
  async function run(opts: { keepKeywordBest?: number; keepFusedBest?: number } = {}) {
    const cands = names.map((n, i) => {
      const c = candidate(fn(n), names.length - i);
      c.bm25 = { score: n === 'keywordBest' ? 20 : 10 - i, matches: [] };
      return c;
    });
    const strategy: Array<'HYBRID_SEARCH' | 'SEMANTIC_RERANK'> = ['HYBRID_SEARCH'];
    // the model keeps the fused order, and rates the keyword channel's best last
    const ctx = { ...stageContext('keep mocks separate per async context'), scorer: fixed([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.1]), scorerOptions: { candidates: 50, weight: 1, ...opts }, effects: { strategy, warnings: [] } };
    const out = await learnedScorerStage.apply(ctx, cands);
    return [...out].sort((a, b) => b.score - a.score);
  }
  it('by default, the best BM25 match that the scorer put last is moved up to fifth, with a line saying so', async () => {
    const out = await run();
    assert.deepEqual(out.map((c) => c.chunk!.name), ['fusedFirst', 'fusedSecond', 'fusedThird', 'fusedFourth', 'keywordBest', 'fusedFifth', 'fusedSixth']);
    assert.match(out[4].explanation.join('\n'), /the scorer put it #7, the best keyword match stays in the first 5/);
  });
  it('0 turns the floor off', async () => {
    const out = await run({ keepKeywordBest: 0 });
    assert.equal(out.at(-1)!.chunk!.name, 'keywordBest');
  });
  it("never pushes fusion's best out of its own floor: kept at the same place, the keyword best comes after it", async () => {
    // a scorer that rates fusion's best and the keyword best lowest: both floors apply at 3
    const cands = names.map((n, i) => {
      const c = candidate(fn(n), names.length - i);
      c.bm25 = { score: n === 'keywordBest' ? 20 : 10 - i, matches: [] };
      return c;
    });
    const strategy: Array<'HYBRID_SEARCH' | 'SEMANTIC_RERANK'> = ['HYBRID_SEARCH'];
    const ctx = { ...stageContext('keep mocks separate per async context'), scorer: fixed([0.05, 0.8, 0.7, 0.6, 0.5, 0.4, 0.1]), scorerOptions: { candidates: 50, weight: 1, keepFusedBest: 3, keepKeywordBest: 3 }, effects: { strategy, warnings: [] } };
    const out = [...(await learnedScorerStage.apply(ctx, cands))].sort((a, b) => b.score - a.score).map((c) => c.chunk!.name);
    assert.equal(out[2], 'fusedFirst', out.join(', '));
    assert.equal(out[3], 'keywordBest', out.join(', '));
  });
});
