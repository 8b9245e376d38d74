import assert from 'node:assert/strict';
import { sizedBatches } from '../../../server/src/engine/batches';

describe('sized batches (an indexing run\'s commits, a derived pass\'s reads)', () => {
  const files = (sizes: number[]) => sizes.map((size, i) => ({ path: `f${i}`, size }));
  const shape = (batches: Array<Array<{ size: number }>>) => batches.map((b) => b.map((f) => f.size));

  it('cuts at the item count', () => {
    assert.deepEqual(shape(sizedBatches(files([1, 1, 1, 1, 1]), 2, 100)), [[1, 1], [1, 1], [1]]);
  });

  it('cuts before the item that would pass the byte budget; a larger item is a batch of its own', () => {
    assert.deepEqual(shape(sizedBatches(files([40, 40, 40, 500, 10, 10]), 100, 100)), [[40, 40], [40], [500], [10, 10]]);
  });

  it('keeps every item once, in order, and makes no empty batch', () => {
    const input = files(Array.from({ length: 57 }, (_, i) => (i * 37) % 90));
    const out = sizedBatches(input, 8, 200);
    assert.deepEqual(out.flat(), input);
    assert.ok(out.every((b) => b.length > 0 && b.length <= 8 && (b.length === 1 || b.reduce((n, f) => n + f.size, 0) <= 200)));
    assert.deepEqual(sizedBatches([], 8, 200), []);
  });

  it('measures items with the given size function', () => {
    assert.deepEqual(sizedBatches(['aaa', 'bb', 'c', 'dddd'], 10, 5, (s) => s.length), [['aaa', 'bb'], ['c', 'dddd']]);
  });
});
