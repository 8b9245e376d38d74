import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { indexingWarning } from '../../../server/src/engine/indexer/checkpoint';
import { acquireIndexLock } from '../../../server/src/engine/indexer/lock';
import type { IndexingState } from '../../../server/src/engine/health';

/**
 * What a search says while an index run holds the lock: this process's own run (a server's start-up run) says where
 * it is — looking for changed files, indexing N of them, or past its keyword phase (nothing to say); another
 * process's run, as before.
 */
describe('the indexing warning of a search (indexer/checkpoint.ts indexingWarning)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'quarry-warn-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = (phase: IndexingState['phase'], filesToProcess = 0, filesProcessed = 0): IndexingState => ({
    state: 'indexing', phase, filesDiscovered: 100, filesToProcess, filesProcessed, chunksCreated: 0, errors: 0, currentFile: null, startedAt: Date.now(),
  });

  it('says nothing when no run holds the lock', () => {
    assert.equal(indexingWarning(dir, run('discovering')), undefined);
  });

  it("this process's run: checking for changes, then the files it indexes, then nothing once its keyword phase is done", () => {
    const release = acquireIndexLock(dir);
    try {
      assert.match(indexingWarning(dir, run('discovering'))!, /^Checking the workspace for files changed since the last index \(started at .+\): the newest edits may not be searchable yet\.$/);
      assert.match(indexingWarning(dir, run('indexing', 12, 5))!, /^Results may be incomplete: indexing 12 new or changed file\(s\), 5 done \(started at .+\)\.$/);
      assert.equal(indexingWarning(dir, run('indexing', 0, 0)), undefined, 'nothing changed: nothing is missing');
      assert.equal(indexingWarning(dir, run('embedding', 12, 12)), undefined);
      assert.equal(indexingWarning(dir, run('git', 12, 12)), undefined);
      // without its progress (a caller that does not pass it), the general warning
      assert.match(indexingWarning(dir)!, /^Results may be incomplete: indexing in progress/);
    } finally {
      release();
    }
  });

  it("another process's run: the general warning, whatever this process's own state says", () => {
    // the parent process is alive on this host: a lock it holds is a live one
    writeFileSync(join(dir, 'index.lock'), JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2026-11-28T00:00:00.000Z' }));
    assert.equal(indexingWarning(dir, run('embedding')), 'Results may be incomplete: indexing in progress (started at 2026-11-28T00:00:00.000Z).');
    writeFileSync(join(dir, 'index.lock'), JSON.stringify({ pid: process.ppid, host: hostname(), startedAt: '2026-11-28T00:00:00.000Z', rebuild: true }));
    assert.match(indexingWarning(dir, run('embedding'))!, /^A full rebuild is in progress/);
  });
});
