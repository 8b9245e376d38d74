/**
 * Per-file failures (seed 002 FR-009a/b) with real files: 30 files the indexer cannot read (permission denied) are
 * retried once, reported in the summary, and from 25 on a warning goes to stderr; the run still succeeds with what it
 * could read, and the next run indexes them once they are readable again.
 * As root, the CLI runs under `setpriv` without the capabilities that bypass file permissions (as a user would).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, removeDir, tempDir, writeFiles } from '../../support/workspace';
import { noEmbeddingConfig } from '../../support/config';

const CLI = join(REPO_ROOT, 'dist/cli.js');

function cli(args: string[]): { status: number; stdout: string; stderr: string } {
  const asRoot = process.getuid?.() === 0;
  const drop = '-dac_override,-dac_read_search';
  const cmd = asRoot ? 'setpriv' : process.execPath;
  const argv = asRoot ? [`--bounding-set=${drop}`, `--inh-caps=${drop}`, process.execPath, CLI, ...args] : [CLI, ...args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', timeout: 120_000 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('per-file failures: retried, listed, warned about from 25 on (seed 002 FR-009a/b)', function () {
  this.timeout(120_000);
  let root: string;
  const locked = Array.from({ length: 30 }, (_, i) => `src/locked_${String(i).padStart(2, '0')}.py`);
  before(() => {
    root = tempDir('quarry-failing-files-');
    noEmbeddingConfig(root);
    writeFiles(root, Object.fromEntries([...locked.map((p, i) => [p, `def locked_${i}():\n    return ${i}\n`]), ['src/open_file.py', 'def open_file():\n    return 1\n']]));
    for (const p of locked) chmodSync(join(root, p), 0o000);
  });
  after(() => {
    for (const p of locked) chmodSync(join(root, p), 0o644);
    removeDir(root);
  });

  it('reports 30 unreadable files as failures with a stderr warning, indexes the rest, and retries them next run', () => {
    const first = cli(['index', '-p', root]);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /^Warning: 30 files failed to index \(seed 002 FR-009b\)/m);
    assert.match(first.stdout, /^Errors \(30\):$/m);
    assert.match(first.stdout, /^ {2}src\/locked_00\.py: read failed: EACCES: permission denied/m);
    assert.match(first.stdout, /… and 10 more/);
    assert.match(first.stdout, /1 indexed/);
    for (const p of locked) chmodSync(join(root, p), 0o644);
    const second = cli(['index', '-p', root, '--json']);
    assert.equal(second.status, 0, second.stderr);
    const s = JSON.parse(second.stdout) as { filesIndexed: number; errors: unknown[]; totalFiles: number };
    assert.equal(s.filesIndexed, 30, 'the failed files are retried');
    assert.deepEqual(s.errors, []);
    assert.equal(s.totalFiles, 31);
  });
});
