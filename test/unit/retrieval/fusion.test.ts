import assert from 'node:assert/strict';
import { DEFAULT_STAGED_WEIGHTS, FusionConfigError, minMax, rrf, stageOne, stageTwo, validateStagedWeights, weightedSum } from '../../../server/src/engine/retrieval/fusion';

const corpus = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, bm25: (i * 37) % 101, semantic: ((i * 53) % 97) / 97, activation: 0 }));

describe('staged retrieval math (seed 003 UT-HYBRID-01..08, 11)', () => {
  it('UT-HYBRID-01 stage 1 returns exactly the top K by BM25, sorted', () => {
    const s1 = stageOne(corpus(200), 100);
    assert.equal(s1.length, 100);
    for (let i = 1; i < s1.length; i++) assert.ok(s1[i - 1].bm25 >= s1[i].bm25);
    const threshold = s1[99].bm25;
    assert.ok(corpus(200).filter((c) => c.bm25 > threshold).every((c) => s1.includes(s1.find((x) => x.id === c.id)!)));
  });
  it('UT-HYBRID-02 stage 2 ranks by semantic (+ activation), not BM25, when BM25 weight is 0', () => {
    const s2 = stageTwo(stageOne(corpus(200), 100), { bm25: 0, semantic: 1, activation: 0 });
    for (let i = 1; i < s2.length; i++) assert.ok(s2[i - 1].semantic >= s2[i].semantic);
  });
  it('UT-HYBRID-03 BM25 scores stay raw in stage 1 and in the result', () => {
    const cands = stageOne(corpus(50), 100);
    const s2 = stageTwo(cands, DEFAULT_STAGED_WEIGHTS);
    for (const r of s2) assert.equal(r.bm25, cands.find((c) => c.id === r.id)!.bm25);
    assert.ok(s2.some((r) => r.bm25 > 1), 'raw, not normalised');
  });
  it('UT-HYBRID-04 normalises within the candidates only', () => {
    const all = corpus(200);
    const cands = stageOne(all, 10);
    const s2 = stageTwo(cands, DEFAULT_STAGED_WEIGHTS);
    const sems = cands.map((c) => c.semantic);
    const best = s2.find((r) => r.semantic === Math.max(...sems))!;
    const worst = s2.find((r) => r.semantic === Math.min(...sems))!;
    assert.ok(Math.abs(best.semanticNorm - 1) < 1e-6);
    assert.equal(worst.semanticNorm, 0);
  });
  it('UT-HYBRID-06 a corpus smaller than K uses all of it', () => {
    assert.equal(stageOne(corpus(50), 100).length, 50);
  });
  it('UT-HYBRID-07 applies custom weights', () => {
    const cands = [
      { id: 'a', bm25: 10, semantic: 0.1, activation: 1 },
      { id: 'b', bm25: 1, semantic: 0.9, activation: 0 },
    ];
    const r = stageTwo(cands, { bm25: 0, semantic: 0.7, activation: 0.3 });
    const a = r.find((x) => x.id === 'a')!;
    const b = r.find((x) => x.id === 'b')!;
    assert.ok(Math.abs(a.final - 0.3 * (1 / (1 + 1e-8))) < 1e-9);
    assert.ok(Math.abs(b.final - 0.7 * (0.8 / (0.8 + 1e-8))) < 1e-9);
    assert.equal(r[0].id, 'b');
  });
  it('UT-HYBRID-08 rejects weights that do not sum to 1 or are negative', () => {
    assert.throws(() => validateStagedWeights({ bm25: 0, semantic: 0.6, activation: 0.6 }), FusionConfigError);
    assert.throws(() => stageTwo(corpus(3), { bm25: -0.2, semantic: 0.6, activation: 0.6 }), /non-negative/);
    assert.doesNotThrow(() => validateStagedWeights(DEFAULT_STAGED_WEIGHTS));
  });
  it('chunks without a vector score as the least similar candidate', () => {
    const r = stageTwo([{ id: 'a', bm25: 1, semantic: 0.5 }, { id: 'b', bm25: 1 }, { id: 'c', bm25: 1, semantic: 0.9 }], { bm25: 0, semantic: 1, activation: 0 });
    assert.deepEqual(r.map((x) => x.id), ['c', 'a', 'b']);
  });
  it('UT-HYBRID-11 top-N is a plain slice of the sorted result', () => {
    assert.equal(stageTwo(stageOne(corpus(200), 100), DEFAULT_STAGED_WEIGHTS).slice(0, 10).length, 10);
  });
});

describe('rank fusion', () => {
  it('min-max maps to [0, 1] and equal values to 0', () => {
    assert.deepEqual(minMax([5, 5, 5]), [0, 0, 0]);
    const n = minMax([2, 4, 6]);
    assert.equal(n[0], 0);
    assert.ok(Math.abs(n[2] - 1) < 1e-6);
  });
  it('RRF sums weight/(k + rank) and ignores zero-weight channels', () => {
    const s = rrf([{ channel: 'bm25', ids: ['a', 'b'], weight: 1 }, { channel: 'dense', ids: ['b', 'c'], weight: 1 }], 60);
    assert.ok(Math.abs(s.get('b')! - (1 / 62 + 1 / 61)) < 1e-12);
    assert.equal([...s.entries()].sort((x, y) => y[1] - x[1])[0][0], 'b');
    const lexOnly = rrf([{ channel: 'bm25', ids: ['a', 'b'], weight: 1 }, { channel: 'dense', ids: ['c'], weight: 0 }]);
    assert.deepEqual([...lexOnly.keys()], ['a', 'b'], 'a zero-weight channel changes nothing');
  });
  it('weighted sum normalises each channel over its own list', () => {
    const s = weightedSum([
      { channel: 'bm25', scores: new Map([['a', 10], ['b', 0]]), weight: 0.5 },
      { channel: 'dense', scores: new Map([['b', 0.9], ['c', 0.1]]), weight: 0.5 },
    ]);
    assert.ok(Math.abs(s.get('a')! - 0.5) < 1e-6);
    assert.ok(Math.abs(s.get('b')! - 0.5) < 1e-6);
    assert.equal(s.get('c'), 0);
  });
});
