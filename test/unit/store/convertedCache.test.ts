import assert from 'node:assert/strict';
import { keepConverted, MAX_CONVERTED_SMALL_BYTES, type ConvertedCache } from '../../../server/src/engine/store/tableSnapshot';

const empty = (): ConvertedCache<string> => ({ large: new Map(), largeBytes: 0, small: new Map(), smallBytes: 0 });

describe('read snapshot: kept converted rows (tableSnapshot.ts keepConverted)', () => {
  it('keeps small rows within their budget, dropping the oldest first', () => {
    const cache = empty();
    const size = 1024;
    const fit = MAX_CONVERTED_SMALL_BYTES / size;
    for (let p = 0; p < fit; p++) keepConverted(cache, p, size, `row${p}`);
    assert.equal(cache.small.size, fit);
    assert.equal(cache.smallBytes, MAX_CONVERTED_SMALL_BYTES);
    keepConverted(cache, fit, size, 'one more');
    assert.equal(cache.small.has(0), false, 'the oldest went');
    assert.equal(cache.small.get(fit)?.value, 'one more');
    assert.equal(cache.small.size, fit);
  });
  it('large rows have a budget of their own: small rows never push them out', () => {
    const cache = empty();
    keepConverted(cache, 1, 100_000, 'generated table');
    for (let p = 10; p < 10_000; p++) keepConverted(cache, p, 2_000, `row${p}`);
    assert.equal(cache.large.get(1), 'generated table');
    assert.ok(cache.smallBytes <= MAX_CONVERTED_SMALL_BYTES);
  });
});
