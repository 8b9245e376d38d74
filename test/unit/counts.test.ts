import assert from 'node:assert/strict';
import { tally } from '../../server/src/engine/counts';

describe('tally', () => {
  it('counts keys that collide with Object.prototype', () => {
    const rec: Record<string, number> = {};
    for (const k of ['constructor', 'constructor', '__proto__', 'toString', 'method']) tally(rec, k);
    assert.deepEqual(Object.entries(rec).sort(), [['__proto__', 1], ['constructor', 2], ['method', 1], ['toString', 1]]);
    assert.equal(JSON.stringify({ ...rec }).includes('function'), false);
  });
});
