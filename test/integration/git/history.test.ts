/**
 * The history replay (one `git log` for every file) against real git: the same rows as `git blame --first-parent` file
 * by file, over a history with a merge, renames, odd names, a deleted and re-added file, a binary diff, and
 * uncommitted edits; one process per pass, not per file; a failing `git log` falls back to blame.
 */
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeGitMetadata, type GitFileChunks } from '../../../server/src/engine/git/metadata';
import { replayHistory, verifyLineCounts } from '../../../server/src/engine/git/history';
import { requireSystemTool } from '../../support/systemTool';
import { realGit, removeGitHomes, TestRepo } from '../../support/gitRepo';
import { removeDir, tempDir } from '../../support/workspace';

const D = (day: number) => new Date(Date.UTC(2021, 0, day)).toISOString();
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i + 1}`).join('\n') + '\n';

/** Every line as its own chunk, plus the whole file: the strictest comparison. */
function chunksOf(repo: TestRepo, path: string, count: number): GitFileChunks {
  const chunks = Array.from({ length: count }, (_, i) => ({ id: `${path}#${i + 1}`, startLine: i + 1, endLine: i + 1 }));
  chunks.push({ id: `${path}#all`, startLine: 1, endLine: count });
  return { path, chunks };
}

describe('git history replay (real git)', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  let repo: TestRepo;
  let files: GitFileChunks[];
  let merge: string;

  before(() => {
    requireSystemTool('git', 'git');
    repo = TestRepo.init();
    dirs.push(repo.dir);
    repo.commit('one', D(1), { 'a.py': lines(30, 'a'), 'sp ace.py': lines(5, 's'), 'ünï/x.py': lines(4, 'u'), 'gone.py': lines(3, 'g'), 'nonl.py': 'x\ny' });
    repo.git('mv', 'a.py', 'b.py');
    repo.commit('rename + edit', D(2), { 'b.py': lines(30, 'a').replace('a10\n', 'a10\nten\n'), 'nonl.py': 'x\ny\nz' }, ['b.py', 'nonl.py']);
    repo.git('checkout', '-q', '-b', 'side');
    repo.commit('side 1', D(3), { 'b.py': lines(30, 'a').replace('a10\n', 'a10\nten\n').replace('a20\n', 'side20\n') });
    repo.commit('side 2', D(4), { 'ünï/x.py': lines(4, 'u') + 'more\n' });
    repo.git('checkout', '-q', 'main');
    repo.commit('main', D(5), { 'sp ace.py': 'top\n' + lines(5, 's') });
    repo.git('-c', 'user.name=T', 'merge', '-q', '--no-edit', '--no-ff', 'side');
    merge = repo.head();
    repo.git('rm', '-q', 'gone.py');
    repo.commit('delete', D(6));
    repo.commit('re-add', D(7), { 'gone.py': 'back\n', 'bin.py': 'bin\0ary\n' });
    // uncommitted: an edited line and a staged new file
    repo.write({ 'b.py': lines(30, 'a').replace('a10\n', 'a10\nten\n').replace('a20\n', 'side20\n').replace('a2\n', 'edited\n'), 'new.py': 'n\n' });
    repo.git('add', 'new.py');
    const counts: Record<string, number> = { 'b.py': 31, 'sp ace.py': 6, 'ünï/x.py': 5, 'gone.py': 1, 'nonl.py': 3, 'bin.py': 1, 'new.py': 1 };
    files = Object.entries(counts).map(([p, n]) => chunksOf(repo, p, n));
  });

  after(() => {
    for (const d of dirs) removeDir(d);
    removeGitHomes();
  });

  it('gives the rows of `git blame --first-parent`, file by file', async () => {
    const viaHistory = await computeGitMetadata(repo.dir, files, { env: repo.env, strategy: 'history' });
    const viaBlame = await computeGitMetadata(repo.dir, files, { env: repo.env, strategy: 'blame' });
    assert.deepEqual(viaHistory.rows, viaBlame.rows);
    assert.deepEqual(viaHistory.files, { tracked: 7, untracked: 0, unavailable: 0 });
    assert.deepEqual(viaHistory.warnings, []);
    const row = (id: string) => viaHistory.rows.find((r) => r.chunkId === id)!;
    // a merged line belongs to the merge commit (its author time: when it reached the branch)
    const mergeTime = Number(repo.git('show', '-s', '--format=%at', merge).trim()) * 1000;
    assert.equal(row('b.py#21').lastModifiedMs, mergeTime);
    // the rename kept the history of the lines; the edit after it is a second commit
    assert.equal(row('b.py#1').commits, 1);
    assert.equal(row('b.py#1').lastModifiedMs, Date.parse(D(1)));
    assert.equal(row('b.py#11').lastModifiedMs, Date.parse(D(2)));
    assert.equal(row('b.py#all').commits, 3);
    // uncommitted lines are no commit
    assert.equal(row('b.py#2').commits, 0);
    assert.equal(row('new.py#1').commits, 0);
    assert.equal(row('gone.py#all').lastModifiedMs, Date.parse(D(7)));
  });

  it("the user's diff and log settings do not change what is parsed", async () => {
    const settings: Array<[string, string]> = [
      ['diff.interHunkContext', '5'], ['diff.context', '7'], ['diff.noprefix', 'true'], ['diff.mnemonicPrefix', 'true'],
      ['color.ui', 'always'], ['log.follow', 'true'], ['diff.relative', 'false'], ['log.decorate', 'full'],
    ];
    for (const [k, v] of settings) repo.git('config', k, v);
    try {
      const history = await replayHistory(repo.dir, { env: repo.env });
      assert.deepEqual([...history.unreliable], ['bin.py']);
      const viaHistory = await computeGitMetadata(repo.dir, files, { env: repo.env, strategy: 'history' });
      const viaBlame = await computeGitMetadata(repo.dir, files, { env: repo.env, strategy: 'blame' });
      assert.deepEqual(viaHistory.rows, viaBlame.rows);
    } finally {
      for (const [k] of settings) repo.git('config', '--unset', k);
    }
  });

  it('replays every file in one pass; binary files and line-count mismatches are left to blame', async () => {
    const history = await replayHistory(repo.dir, { env: repo.env });
    assert.ok(history.unreliable.has('bin.py'));
    assert.equal(history.files.get('b.py')!.length, 31);
    // held as typed arrays once replayed (issue 21: 2 bytes a line, not 8)
    assert.ok([...history.files.values()].every((lines) => lines instanceof Uint16Array), 'compact line lists');
    assert.equal(history.commits.filter((c) => !c.uncommitted).length, 6, 'first-parent commits only');
    writeFileSync(join(repo.dir, 'nonl.py'), 'x\ny\nz\nunsaved?\n');
    try {
      // (a file changed after the replay: its count no longer matches, so it is blamed)
      assert.deepEqual(await verifyLineCounts(repo.dir, history, ['b.py', 'nonl.py']), ['nonl.py']);
    } finally {
      writeFileSync(join(repo.dir, 'nonl.py'), 'x\ny\nz');
    }
  });

  it('a workspace that is a subfolder: paths relative to it, history limited to it', async () => {
    const r = await computeGitMetadata(join(repo.dir, 'ünï'), [chunksOf(repo, 'x.py', 5)], { env: repo.env, strategy: 'history' });
    const b = await computeGitMetadata(join(repo.dir, 'ünï'), [chunksOf(repo, 'x.py', 5)], { env: repo.env, strategy: 'blame' });
    assert.deepEqual(r.rows, b.rows);
    assert.equal(r.rows.at(-1)!.commits, 2);
  });

  it('`git log` failing: every file blamed instead, same rows', async () => {
    const bin = tempDir('quarry-fake-git-');
    dirs.push(bin);
    writeFileSync(join(bin, 'git'), `#!/bin/sh\ncase " $* " in *" log "*) echo "fatal: simulated log failure" >&2; exit 1 ;; esac\nexec '${realGit()}' "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const env = { ...repo.env, PATH: `${bin}:${process.env.PATH}` };
    const failing = await computeGitMetadata(repo.dir, files, { env, strategy: 'history' });
    const viaBlame = await computeGitMetadata(repo.dir, files, { env: repo.env, strategy: 'blame' });
    assert.deepEqual(failing.rows, viaBlame.rows);
  });

  it('auto: many files take one replay (no blame process per file)', async () => {
    const many = TestRepo.init();
    dirs.push(many.dir);
    const content: Record<string, string> = {};
    for (let i = 0; i < 40; i++) content[`m/f${i}.py`] = lines(3, `f${i}_`);
    many.commit('many', D(1), content);
    many.commit('edit', D(2), { 'm/f7.py': 'changed\n' + lines(2, 'f7_') });
    const bin = tempDir('quarry-fake-git-');
    dirs.push(bin);
    const logFile = join(bin, 'calls');
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${logFile}'\nexec '${realGit()}' "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const list = Object.keys(content).map((p) => chunksOf(many, p, 3));
    const r = await computeGitMetadata(many.dir, list, { env: { ...many.env, PATH: `${bin}:${process.env.PATH}` } });
    const calls = (await import('node:fs')).readFileSync(logFile, 'utf8').trim().split('\n');
    assert.equal(calls.filter((c) => / blame /.test(` ${c} `)).length, 0, calls.join('\n'));
    assert.ok(calls.length <= 6, calls.join('\n'));
    const f7 = r.rows.filter((x) => x.path === 'm/f7.py');
    assert.deepEqual(f7.map((x) => x.commits), [1, 1, 1, 2]);
  });
});
