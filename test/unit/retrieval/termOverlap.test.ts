import assert from 'node:assert/strict';
import type { LexicalHit, TermMatch } from '../../../server/src/engine/store/lexical/lexicalIndex';
import { overlapScore, termWord, withWordOverlap } from '../../../server/src/engine/retrieval/termOverlap';

const m = (field: TermMatch['field'], token: string, contribution: number): TermMatch => ({ field, token, tf: 1, df: 1, idf: 1, contribution });

describe('keyword channel: one saturated share per query word (retrieval/termOverlap.ts)', () => {
  it('maps every field\'s token of a word to the same word', () => {
    const forms = [m('name', 'limiter', 1), m('name', '^limit', 1), m('symbols', 'limiter', 1), m('body', 'limiter', 1), m('stem', 'limit', 1)];
    assert.deepEqual(new Set(forms.map(termWord)), new Set(['limit']));
    assert.equal(termWord(m('name', '=concurrencylimiter', 1)), termWord(m('symbols', '=concurrencylimiter', 1)));
    assert.notEqual(termWord(m('body', 'provider', 1)), termWord(m('body', 'limiter', 1)));
  });

  it('counts each word\'s best field in full and its other fields by the overlap', () => {
    const matches = [m('body', 'provider', 6), m('name', 'provider', 5), m('stem', 'provid', 4), m('name', '^concurr', 3)];
    assert.equal(overlapScore(matches, 1), 18);
    assert.equal(overlapScore(matches, 0), 6 + 3);
    assert.equal(overlapScore(matches, 0.25), 6 + 0.25 * 9 + 3);
  });

  it('re-sorts the hits so that covering more of the query beats repeating one word in every field', () => {
    const hit = (id: string, matches: TermMatch[]): LexicalHit => ({ id, path: `${id}.ts`, score: matches.reduce((s, x) => s + x.contribution, 0), matches });
    // "limit concurrent requests to the embedding provider"
    const repeats = hit('createEmbeddingProvider', [m('body', 'provider', 6.8), m('name', 'provider', 6.6), m('symbols', 'provider', 6.3), m('stem', 'provid', 5.3), m('body', 'embedding', 6.1), m('name', 'embedding', 6), m('symbols', 'embedding', 5.9), m('stem', 'embed', 4.5)]);
    const covers = hit('ConcurrencyLimiter', [m('name', '^concurr', 4.9), m('stem', 'concurr', 4.1), m('name', '^limit', 4.3), m('stem', 'limit', 2.9), m('path', 'embedding', 2.9), m('body', 'requests', 2.5)]);
    assert.deepEqual(withWordOverlap([repeats, covers], 1).map((h) => h.id), ['createEmbeddingProvider', 'ConcurrencyLimiter']);
    const reordered = withWordOverlap([repeats, covers], 0);
    assert.deepEqual(reordered.map((h) => h.id), ['ConcurrencyLimiter', 'createEmbeddingProvider']);
    assert.ok(Math.abs(reordered[0].score - (4.9 + 4.3 + 2.9 + 2.5)) < 1e-9);
    // the hits keep their terms (the explanation lists them) and the input is not changed
    assert.equal(reordered[0].matches.length, 6);
    assert.equal(repeats.score, 47.5);
  });

  it('leaves the order and scores alone at overlap 1', () => {
    const hits: LexicalHit[] = [
      { id: 'b', path: 'b.ts', score: 3, matches: [m('body', 'x', 2), m('name', 'x', 1)] },
      { id: 'a', path: 'a.ts', score: 3, matches: [m('body', 'y', 3)] },
    ];
    assert.deepEqual(withWordOverlap(hits, 1), hits);
  });
});
