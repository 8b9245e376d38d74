/**
 * LanceDB's native code can stop with a panic for reasons that are not damage: a malformed LANCE_* variable
 * (`LANCE_CPU_THREADS=""` makes its thread pool panic on the first call; every later call in that process then fails
 * with a "poisoned" lock). Such a failure was taken for a damaged chunk table and the store was reset — a 96k-chunk
 * index lost to an environment variable. It is now an environmental failure: the command stops with the cause, the
 * operation and the fix, and the index is left as it was (the real CLI, real LanceDB).
 */
import assert from 'node:assert/strict';
import { copyFixture, removeDir, runCli } from '../../support/workspace';

describe('a LanceDB panic is not damage (the index is left as it was)', function () {
  this.timeout(180_000);
  let root: string;
  before(() => {
    root = copyFixture('go-implicit');
    const r = runCli(['index', '--project', root, '-q'], { env: { QUARRY_LOG_LEVEL: 'silent' } });
    assert.equal(r.status, 0, r.stderr);
  });
  after(() => removeDir(root));

  const search = (env: NodeJS.ProcessEnv = {}) => runCli(['search', 'what implements Reader', '--project', root, '-o', 'json', '--no-explain'], { env: { QUARRY_LOG_LEVEL: 'silent', ...env } });
  const chunks = () => {
    const s = JSON.parse(runCli(['status', '--project', root, '--json']).stdout) as { files: number; chunks: number; conformances: number };
    return { files: s.files, chunks: s.chunks, conformances: s.conformances };
  };

  it('search and index with a malformed LANCE_CPU_THREADS fail with the cause and the fix; the next run answers as before', () => {
    const clean = search();
    assert.equal(clean.status, 0, clean.stderr);
    const before = chunks();
    for (const args of [['search', 'what implements Reader', '--project', root], ['index', '--project', root]]) {
      const r = runCli(args, { env: { QUARRY_LOG_LEVEL: 'silent', LANCE_CPU_THREADS: '' } });
      assert.notEqual(r.status, 0, `${args[0]} should fail: ${r.stdout}`);
      assert.match(r.stderr, /LanceDB's native library stopped with an internal error/);
      assert.match(r.stderr, /LANCE_CPU_THREADS and LANCE_IO_THREADS must be whole numbers/);
      assert.match(r.stderr, /the index was left as it was/);
    }
    assert.ok(before.chunks > 0);
    assert.deepEqual(chunks(), before, 'the store still holds every chunk');
    const again = search();
    assert.equal(again.status, 0, again.stderr);
    const ids = (out: string) => (JSON.parse(out) as { matches: Array<{ id: string }> }).matches.map((m) => m.id);
    assert.ok(ids(clean.stdout).length >= 3);
    assert.deepEqual(ids(again.stdout), ids(clean.stdout));
  });
});
