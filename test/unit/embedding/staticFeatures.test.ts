import assert from 'node:assert/strict';
import { featuresOf, fnv1a, subwords, trigrams } from '../../../server/src/engine/embedding/static/features';

describe('static model features', () => {
  it('FNV-1a matches the reference values', () => {
    assert.equal(fnv1a(''), 0x811c9dc5);
    assert.equal(fnv1a('a'), 0xe40c292c);
    assert.equal(fnv1a('foobar'), 0xbf9cf968);
  });

  it('splits identifiers into lower-case sub-words and reports the joined identifier once', () => {
    const seen: Array<[string, string | null]> = [];
    subwords('parseHTTPRequest_v2(x) + user_id', 100, (w, j) => seen.push([w, j]));
    assert.deepEqual(seen, [
      ['parse', 'parsehttprequestv2'],
      ['http', null],
      ['request', null],
      ['v', null],
      ['2', null],
      ['x', null],
      ['user', 'userid'],
      ['id', null],
    ]);
  });

  it('stops after maxWords sub-words', () => {
    const seen: string[] = [];
    subwords('one two three four', 2, (w) => seen.push(w));
    assert.deepEqual(seen, ['one', 'two']);
  });

  it('character 3-grams carry word boundaries', () => {
    assert.deepEqual(trigrams('parse'), ['<pa', 'par', 'ars', 'rse', 'se>']);
  });

  it('maps known words to vocabulary rows, every 3+ letter word to hashed buckets, repeats to 1 + ln(count)', () => {
    const vocab = new Map([
      ['read', 0],
      ['file', 1],
      ['readfile', 2],
    ]);
    const spec = { vocab, buckets: 16, maxWords: 100 };
    const f = featuresOf('readFile file zz', spec);
    const weightOf = new Map([...f.rows].map((r, i) => [r, f.weights[i]]));
    assert.equal(weightOf.get(0), 1);
    assert.ok(Math.abs(weightOf.get(1)! - (1 + Math.log(2))) < 1e-6, 'file appears twice');
    assert.equal(weightOf.get(2), 1, 'the joined identifier');
    for (const r of f.rows) assert.ok(r < 3 + 16);
    assert.ok([...f.rows].some((r) => r >= 3), '3-gram buckets are used');
    // "zz" is shorter than 3 letters and unknown: no row at all.
    const z = featuresOf('zz', spec);
    assert.equal(z.rows.length, 0);
  });

  it('is deterministic and ignores case and punctuation', () => {
    const spec = { vocab: new Map([['sort', 0]]), buckets: 64, maxWords: 100 };
    const a = featuresOf('Sort(items)', spec);
    const b = featuresOf('sort items', spec);
    assert.deepEqual([...a.rows].sort(), [...b.rows].sort());
  });
});
