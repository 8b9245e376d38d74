import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { FileLockedError, withFileLock, withFileLockAsync } from '../../../server/src/engine/fileLock';

describe('cross-process file lock (fileLock.ts)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'quarry-lock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('takes over an empty lock file a killed process left between creating and writing it', async () => {
    const lock = join(dir, 'store.lock');
    writeFileSync(lock, '');
    const old = new Date(Date.now() - 5_000);
    utimesSync(lock, old, old);
    const started = Date.now();
    assert.equal(await withFileLockAsync(lock, async () => 'ran', 10_000, 60_000), 'ran');
    assert.ok(Date.now() - started < 2_000, 'no wait for the stale period');
    assert.equal(existsSync(lock), false, 'released');
  });

  it('respects an empty lock file that was just created (its holder is writing it)', () => {
    const lock = join(dir, 'store.lock');
    writeFileSync(lock, '');
    assert.throws(() => withFileLock(lock, () => 'ran', 200, 60_000), FileLockedError);
  });

  it('respects a lock held by a live process, and takes over one whose process is gone', () => {
    const lock = join(dir, 'memory.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname() }));
    assert.throws(() => withFileLock(lock, () => 'ran', 100, 60_000), FileLockedError);
    writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname() }));
    assert.equal(withFileLock(lock, () => 'ran', 100, 60_000), 'ran');
  });
});
