import assert from 'node:assert/strict';
import { discountProse } from '../../../server/src/engine/retrieval/hybrid';

describe('dense similarity of prose, discounted before fusion (retrieval.denseProseFactor)', () => {
  const hits = [
    { chunk: { kind: 'section' as const }, similarity: 0.62, id: 'guide#Retries' },
    { chunk: { kind: 'function' as const }, similarity: 0.6, id: 'lib/backoff.js#delayBeforeAttempt' },
    { chunk: { kind: 'text' as const }, similarity: 0.49, id: 'docs/notes.txt' },
    { chunk: { kind: 'method' as const }, similarity: 0.45, id: 'lib/retry.js#send' },
  ];

  it('multiplies the similarity of Markdown sections and text windows, not of code, and orders the hits again', () => {
    const out = discountProse(hits, 0.9);
    assert.deepEqual(out.map((h) => h.id), ['lib/backoff.js#delayBeforeAttempt', 'guide#Retries', 'lib/retry.js#send', 'docs/notes.txt']);
    assert.ok(Math.abs(out[1]!.similarity - 0.558) < 1e-9);
    assert.equal(out[0]!.similarity, 0.6);
    assert.equal(hits[0]!.similarity, 0.62, 'the input is not changed');
  });

  it('a factor of 1 changes nothing', () => {
    assert.deepEqual(discountProse(hits, 1), hits);
  });
});
