import assert from 'node:assert/strict';
import { asEnvironmentError, environmentCause, IndexUnavailableError, StoreDamagedError } from '../../../server/src/engine/store/storeErrors';
import { FileLockedError } from '../../../server/src/engine/fileLock';

const errno = (code: string, message = `${code}: something`) => Object.assign(new Error(message), { code });

describe('store errors: environment vs damage (issue 20)', () => {
  it('classifies Node errno codes and the native (LanceDB) messages, and a lock timeout', () => {
    assert.equal(environmentCause(errno('ENOSPC')), 'ENOSPC');
    assert.equal(environmentCause(errno('EROFS')), 'EROFS');
    assert.equal(environmentCause(errno('EACCES')), 'EACCES');
    assert.equal(environmentCause(errno('EPERM')), 'EPERM');
    assert.equal(environmentCause(new Error('LanceError(IO): Generic LocalFileSystem error: No space left on device (os error 28)')), 'ENOSPC');
    assert.equal(environmentCause(new Error('Read-only file system (os error 30)')), 'EROFS');
    assert.equal(environmentCause(new Error('failed to open: Permission denied (os error 13)')), 'EACCES');
    assert.equal(environmentCause(new FileLockedError('/x/store.lock', 30000, { pid: 1, host: 'h', alive: true })), 'LOCKED');
  });

  it('does not call damage an environment problem', () => {
    assert.equal(environmentCause(new Error("Table 'chunks' was not found  Caused by: Dataset at path x was not found: Not found: x/_versions")), undefined);
    assert.equal(environmentCause(errno('ENOENT')), undefined);
    assert.equal(environmentCause(new StoreDamagedError('the chunks table cannot be opened')), undefined);
  });

  it('names the cause, the operation, the path and the fix, and says nothing was changed', () => {
    const e = asEnvironmentError(errno('ENOSPC'), 'opening the index', '/p/.quarry/lancedb');
    assert.ok(e instanceof IndexUnavailableError);
    assert.equal(
      (e as Error).message,
      'No space left on device while opening the index at /p/.quarry/lancedb: free disk space and run the command again; the index was left as it was.',
    );
    const other = new Error('boom');
    assert.equal(asEnvironmentError(other, 'x', 'y'), other);
  });

  it('a lock timeout names the holder and whether it still runs', () => {
    assert.match(new FileLockedError('/q/store.lock', 30000, { pid: 42, host: 'h', alive: true }).message, /Quarry process 42 on h kept \/q\/store\.lock locked/);
    assert.match(new FileLockedError('/q/store.lock', 30000, { pid: 42, host: 'h', alive: false }).message, /\(no longer running\)/);
  });
});
