import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { DEFAULT_HEAP_GROWING_PERCENT, DEFAULT_SEMI_SPACE_MB, heapGrowingPercent, semiSpaceMb } from '../../../server/src/startup/heapPolicy';

describe('heap policy (issues 19 and 21)', () => {
  it('sets the growing percentage by default, another one from QUARRY_HEAP_GROWING_PERCENT, none for 0', () => {
    assert.equal(heapGrowingPercent({}, []), DEFAULT_HEAP_GROWING_PERCENT);
    assert.equal(heapGrowingPercent({ QUARRY_HEAP_GROWING_PERCENT: '50' }, []), 50);
    assert.equal(heapGrowingPercent({ QUARRY_HEAP_GROWING_PERCENT: '0' }, []), undefined);
    // garbage is ignored (the default applies)
    assert.equal(heapGrowingPercent({ QUARRY_HEAP_GROWING_PERCENT: 'lots' }, []), DEFAULT_HEAP_GROWING_PERCENT);
    assert.equal(heapGrowingPercent({ QUARRY_HEAP_GROWING_PERCENT: '-5' }, []), DEFAULT_HEAP_GROWING_PERCENT);
  });

  it("leaves node's own --heap-growing-percent alone", () => {
    assert.equal(heapGrowingPercent({ QUARRY_HEAP_GROWING_PERCENT: '50' }, ['--heap-growing-percent=80']), undefined);
    assert.equal(heapGrowingPercent({}, ['--heap_growing_percent=80']), undefined);
  });

  it("sets no heap limit (the limit stays V8's own)", () => {
    // the policy only changes how often V8 collects; the heap limit stays V8's own
    const script = "require('./server/src/startup/heapPolicy'); const v8 = require('v8'); console.log(v8.getHeapStatistics().heap_size_limit)";
    const withPolicy = Number(execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8' }).trim());
    const without = Number(execFileSync(process.execPath, ['-e', "console.log(require('v8').getHeapStatistics().heap_size_limit)"], { encoding: 'utf8' }).trim());
    assert.equal(withPolicy, without);
  });

  it('caps the young generation of worker threads (QUARRY_SEMI_SPACE_MB; 0 or a command-line flag leave V8 alone)', () => {
    assert.equal(semiSpaceMb({}, []), DEFAULT_SEMI_SPACE_MB);
    assert.equal(semiSpaceMb({ QUARRY_SEMI_SPACE_MB: '8' }, []), 8);
    assert.equal(semiSpaceMb({ QUARRY_SEMI_SPACE_MB: '0' }, []), undefined);
    assert.equal(semiSpaceMb({ QUARRY_SEMI_SPACE_MB: 'big' }, []), DEFAULT_SEMI_SPACE_MB);
    assert.equal(semiSpaceMb({}, ['--max-semi-space-size=2']), undefined);
    // set at run time, the flag reaches the isolates created afterwards: a worker thread's new space
    const script =
      "require('./server/src/startup/heapPolicy'); const { Worker } = require('worker_threads');" +
      "new Worker(\"const a = []; for (let i = 0; i < 3e5; i++) a.push({ i }); console.log(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size)\", { eval: true });";
    const newSpace = Number(execFileSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', env: { ...process.env, QUARRY_SEMI_SPACE_MB: '' } }).trim());
    assert.ok(newSpace <= 2 * DEFAULT_SEMI_SPACE_MB * 1048576, `worker new space ${newSpace} bytes`);
  });
});
