import assert from 'node:assert/strict';
import { Bm25Scorer, idf, tfWeight } from '../../../server/src/engine/retrieval/bm25';

describe('BM25 math (seed 003 UT-BM25-08..12, non-negative IDF of Appendix B)', () => {
  it('UT-BM25-08 IDF = ln(1 + (N - n + 0.5)/(n + 0.5))', () => {
    const s = new Bm25Scorer();
    s.buildIndex([['d1', 'auth user'], ['d2', 'auth token'], ['d3', 'config']]);
    assert.ok(Math.abs(s.idf.get('auth')! - Math.log(1 + 1.5 / 2.5)) < 1e-9);
    assert.ok(s.idf.get('auth')! > 0, 'IDF of a term in most documents stays positive');
    assert.ok(s.idf.get('config')! > s.idf.get('auth')!, 'rarer terms weigh more');
  });
  it('IDF never goes negative, even for a term in every document', () => {
    for (let n = 0; n <= 100; n++) assert.ok(idf(100, n) > 0);
  });
  it('UT-BM25-09 a query term in the document scores > 0', () => {
    const s = new Bm25Scorer({ k1: 1.5, b: 0.75 });
    s.buildIndex([['d1', 'authenticate user']]);
    assert.ok(s.score('authenticate', 'authenticate user') > 0);
  });
  it('UT-BM25-10 a query term not in the document scores 0', () => {
    const s = new Bm25Scorer();
    s.buildIndex([['d1', 'authenticate user']]);
    assert.equal(s.score('oauth', 'authenticate user'), 0);
  });
  it('UT-BM25-11 a shorter document scores higher (length normalisation)', () => {
    const s = new Bm25Scorer({ k1: 1.5, b: 0.75 });
    const long = 'auth ' + Array(100).fill('word').join(' ');
    s.buildIndex([['short', 'auth'], ['long', long]]);
    assert.ok(s.score('auth', 'auth') > s.score('auth', long));
  });
  it('UT-BM25-12 term frequency saturates (k1)', () => {
    const s = new Bm25Scorer({ k1: 1.5, b: 0 });
    const doc100 = Array(100).fill('auth').join(' ');
    s.buildIndex([['d1', 'auth'], ['d100', doc100]]);
    const ratio = s.score('auth', doc100) / s.score('auth', 'auth');
    assert.ok(ratio > 1 && ratio < 10, `ratio ${ratio}`);
    assert.ok(tfWeight(1e6, 1, 1, { k1: 1.5, b: 0 }) < 2.5 + 1e-9, 'bounded by k1 + 1');
  });
  it('matches the closed form on a worked example', () => {
    const s = new Bm25Scorer({ k1: 1.2, b: 0.5 });
    s.buildIndex([['a', 'alpha beta beta'], ['b', 'beta gamma'], ['c', 'delta']]);
    // avgdl = (3 + 2 + 1) / 3 = 2; beta in 2 of 3 docs; tf 2 in a (|a| = 3)
    const expected = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)) * ((2 * 2.2) / (2 + 1.2 * (1 - 0.5 + (0.5 * 3) / 2)));
    assert.ok(Math.abs(s.score('beta', 'alpha beta beta') - expected) < 1e-12);
  });
});
