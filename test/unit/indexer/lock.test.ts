/** The index lock (indexer/lock.ts): one holder, dead holders taken over, a lock being written never stolen. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { acquireIndexLock, IndexLockedError } from '../../../server/src/engine/indexer/lock';
import { removeDir, tempDir } from '../../support/workspace';

describe('index lock', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir('quarry-lock-')));
  afterEach(() => removeDir(dir));

  it('admits one holder; release frees it', () => {
    const release = acquireIndexLock(dir);
    assert.throws(() => acquireIndexLock(dir), IndexLockedError);
    release();
    assert.ok(!existsSync(join(dir, 'index.lock')));
    acquireIndexLock(dir)();
  });

  it('takes over a lock whose process is dead', () => {
    writeFileSync(join(dir, 'index.lock'), JSON.stringify({ pid: 999999999, host: hostname(), startedAt: 'x' }));
    acquireIndexLock(dir)();
  });

  it('an empty lock (a holder between creating and filling it) is respected, unless it stays empty for seconds', () => {
    const lock = join(dir, 'index.lock');
    writeFileSync(lock, '');
    assert.throws(() => acquireIndexLock(dir), IndexLockedError, 'a just-created lock is not stale');
    const old = (Date.now() - 10_000) / 1000;
    utimesSync(lock, old, old);
    acquireIndexLock(dir)();
  });

  it('is never seen empty: the holder is written before the lock appears, and no file of the writer is left behind', () => {
    const release = acquireIndexLock(dir, { rebuild: true });
    const held = JSON.parse(readFileSync(join(dir, 'index.lock'), 'utf8')) as { pid: number; rebuild?: boolean };
    assert.equal(held.pid, process.pid);
    assert.equal(held.rebuild, true);
    assert.deepEqual(readdirSync(dir), ['index.lock'], 'only the lock itself');
    release();
    assert.deepEqual(readdirSync(dir), []);
  });
});
