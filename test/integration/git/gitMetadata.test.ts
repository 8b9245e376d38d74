/**
 * Git metadata per chunk (seed 003 FR-5.3, FR-5.4, FR-10.3) against real git: real repositories in temp dirs with
 * commits at fixed dates, fake `git` scripts on PATH for failures.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBlamePorcelain, chunkBlameStats } from '../../../server/src/engine/git/blame';
import { computeGitMetadata, type ChunkGitInfo, type GitFileChunks } from '../../../server/src/engine/git/metadata';
import { changedFilesSince, currentHead, openGitWorkspace } from '../../../server/src/engine/git/repo';
import { requireSystemTool } from '../../support/systemTool';
import { fakeGit, isolatedGitEnv, removeGitHomes, TestRepo } from '../../support/gitRepo';
import { removeDir, tempDir } from '../../support/workspace';

const D1 = '2020-01-01T00:00:00Z';
const D2 = '2021-06-01T12:00:00Z';
const D3 = '2022-03-15T08:30:00Z';
const ms = (iso: string) => Date.parse(iso);

const CALC_V1 = 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n';
const CALC_V2 = 'def add(a, b):\n    return int(a) + int(b)\n\n\ndef sub(a, b):\n    return a - b\n';
const CALC_V3 = 'def add(a, b):\n    return int(a) + int(b)\n\n\ndef sub(a, b):\n    return int(a) - int(b)\n';

/** The chunks a chunker would make of calc.py: add (1-2), sub (5-6), and the whole file. */
const CALC: GitFileChunks = {
  path: 'src/calc.py',
  chunks: [
    { id: 'add', startLine: 1, endLine: 2 },
    { id: 'sub', startLine: 5, endLine: 6 },
    { id: 'whole', startLine: 1, endLine: 6 },
  ],
};

const byId = (rows: ChunkGitInfo[]) => new Map(rows.map((r) => [r.chunkId, r]));

describe('git metadata per chunk (real git)', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  let repo: TestRepo;
  let commits: string[];

  before(() => {
    requireSystemTool('git', 'git');
    repo = TestRepo.init();
    dirs.push(repo.dir);
    commits = [
      repo.commit('add calc', D1, { 'src/calc.py': CALC_V1, 'src/util.py': 'X = 1\n' }),
      repo.commit('add casts', D2, { 'src/calc.py': CALC_V2 }),
      repo.commit('sub casts', D3, { 'src/calc.py': CALC_V3 }),
    ];
  });
  after(() => {
    dirs.forEach(removeDir);
    removeGitHomes();
  });

  it('parses real `git blame --porcelain` and `--line-porcelain` output alike', () => {
    for (const mode of ['--porcelain', '--line-porcelain']) {
      const out = execFileSync('git', ['blame', mode, '--', 'src/calc.py'], { cwd: repo.dir, env: repo.env });
      const b = parseBlamePorcelain(out);
      assert.equal(b.lineCount, 6, mode);
      const sha = (line: number) => b.commits[b.lineCommit[line]].sha;
      assert.deepEqual([1, 2, 3, 4, 5, 6].map(sha), [commits[0], commits[1], commits[0], commits[0], commits[0], commits[2]], mode);
      const first = b.commits.find((c) => c.sha === commits[0])!;
      assert.equal(first.authorTimeMs, ms(D1));
      assert.equal(first.committerTimeMs, ms(D1) + 3_600_000);
      assert.deepEqual(chunkBlameStats(b, 1, 6), { commits: 3, lastModifiedMs: ms(D3), uncommittedLines: 0 });
    }
  });

  it('a tracked file: distinct commits per chunk and the latest author time', async () => {
    const r = await computeGitMetadata(repo.dir, [CALC], { env: repo.env });
    const rows = byId(r.rows);
    assert.deepEqual(rows.get('add'), { chunkId: 'add', path: 'src/calc.py', status: 'tracked', commits: 2, lastModifiedMs: ms(D2) });
    assert.deepEqual(rows.get('sub'), { chunkId: 'sub', path: 'src/calc.py', status: 'tracked', commits: 2, lastModifiedMs: ms(D3) });
    assert.deepEqual(rows.get('whole'), { chunkId: 'whole', path: 'src/calc.py', status: 'tracked', commits: 3, lastModifiedMs: ms(D3) });
    assert.deepEqual(r.files, { tracked: 1, untracked: 0, unavailable: 0 });
    assert.deepEqual(r.warnings, []);
    assert.equal(r.workspace.state, 'repo');
  });

  it('a file git does not track is untracked', async () => {
    repo.write({ 'src/scratch.py': 'print(1)\n' });
    const r = await computeGitMetadata(repo.dir, [CALC, { path: 'src/scratch.py', chunks: [{ id: 's', startLine: 1, endLine: 1 }] }], { env: repo.env });
    assert.deepEqual(byId(r.rows).get('s'), { chunkId: 's', path: 'src/scratch.py', status: 'untracked', commits: -1, lastModifiedMs: 0 });
    assert.deepEqual(r.files, { tracked: 1, untracked: 1, unavailable: 0 });
  });

  it('a workspace outside any repository: every file untracked, no HEAD, changes unknown', async () => {
    const dir = tempDir('quarry-nogit-');
    dirs.push(dir);
    writeFileSync(join(dir, 'a.py'), 'x = 1\n');
    const env = isolatedGitEnv();
    const r = await computeGitMetadata(dir, [{ path: 'a.py', chunks: [{ id: 'a', startLine: 1, endLine: 1 }] }], { env });
    assert.equal(r.workspace.state, 'none');
    assert.deepEqual(r.rows, [{ chunkId: 'a', path: 'a.py', status: 'untracked', commits: -1, lastModifiedMs: 0 }]);
    assert.deepEqual(r.warnings, []);
    assert.equal(await currentHead(dir, { env }), undefined);
    assert.equal(await changedFilesSince(dir, commits[0], { env }), undefined);
  });

  it('a workspace that is a subfolder of a repository: workspace-relative paths in and out', async () => {
    const outer = TestRepo.init();
    dirs.push(outer.dir);
    const first = outer.commit('one', D1, { 'pkg/app/main.py': 'def main():\n    pass\n', 'other/x.py': 'y = 2\n' });
    outer.commit('two', D2, { 'pkg/app/main.py': 'def main():\n    run()\n', 'other/x.py': 'y = 3\n' });
    outer.write({ 'pkg/app/new.py': 'z = 1\n' });
    const ws = join(outer.dir, 'pkg');
    const w = await openGitWorkspace(ws, { env: outer.env });
    assert.equal(w.state, 'repo');
    if (w.state === 'repo') {
      assert.equal(w.prefix, 'pkg/');
      assert.deepEqual([...w.tracked], ['app/main.py'], 'files outside the workspace are not listed');
    }
    const r = await computeGitMetadata(
      ws,
      [
        { path: 'app/main.py', chunks: [{ id: 'main', startLine: 1, endLine: 2 }, { id: 'body', startLine: 2, endLine: 2 }] },
        { path: 'app/new.py', chunks: [{ id: 'new', startLine: 1, endLine: 1 }] },
      ],
      { env: outer.env },
    );
    const rows = byId(r.rows);
    assert.deepEqual(rows.get('main'), { chunkId: 'main', path: 'app/main.py', status: 'tracked', commits: 2, lastModifiedMs: ms(D2) });
    assert.equal(rows.get('body')!.commits, 1);
    assert.equal(rows.get('new')!.status, 'untracked');
    assert.deepEqual(await changedFilesSince(ws, first, { env: outer.env }), ['app/main.py'], 'only workspace files, relative to it');
  });

  it('git missing (a git path that does not exist, or a PATH without git): unavailable with a warning', async () => {
    const r = await computeGitMetadata(repo.dir, [CALC], { env: repo.env, gitPath: join(repo.dir, 'no-such-git') });
    assert.equal(r.workspace.state, 'unavailable');
    assert.ok(r.rows.every((x) => x.status === 'unavailable' && x.commits === -1 && x.lastModifiedMs === 0));
    assert.deepEqual(r.files, { tracked: 0, untracked: 0, unavailable: 1 });
    assert.match(r.warnings.join('\n'), /git executable not found/);
    const emptyBin = tempDir('quarry-empty-bin-');
    dirs.push(emptyBin);
    const viaPath = await computeGitMetadata(repo.dir, [CALC], { env: { ...repo.env, PATH: emptyBin } });
    assert.ok(viaPath.rows.every((x) => x.status === 'unavailable'));
    assert.equal(await currentHead(repo.dir, { env: { ...repo.env, PATH: emptyBin } }), undefined);
  });

  it('git blame failing for one file (a fake git on PATH): that file unavailable with a warning, the others computed', async () => {
    const fake = fakeGit('util\\.py', 'fail');
    dirs.push(fake.dir);
    const env = { ...repo.env, PATH: `${fake.dir}:${process.env.PATH}` };
    const util: GitFileChunks = { path: 'src/util.py', chunks: [{ id: 'u', startLine: 1, endLine: 1 }] };
    const r = await computeGitMetadata(repo.dir, [CALC, util], { env });
    assert.deepEqual(byId(r.rows).get('u'), { chunkId: 'u', path: 'src/util.py', status: 'unavailable', commits: -1, lastModifiedMs: 0 });
    assert.equal(byId(r.rows).get('add')!.commits, 2);
    assert.deepEqual(r.files, { tracked: 1, untracked: 0, unavailable: 1 });
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0], /^Git blame failed for src\/util\.py: git blame failed \(exit 1\): fatal: simulated blame failure/);
  });

  it('git blame taking longer than the timeout is killed: unavailable', async () => {
    const fake = fakeGit('calc\\.py', 'hang');
    dirs.push(fake.dir);
    const env = { ...repo.env, PATH: `${fake.dir}:${process.env.PATH}` };
    const started = Date.now();
    const r = await computeGitMetadata(repo.dir, [CALC, { path: 'src/util.py', chunks: [{ id: 'u', startLine: 1, endLine: 1 }] }], { env, blameTimeoutMs: 500 });
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.ok(r.rows.filter((x) => x.path === 'src/calc.py').every((x) => x.status === 'unavailable'));
    assert.equal(byId(r.rows).get('u')!.status, 'tracked');
    assert.match(r.warnings.join('\n'), /Git blame failed for src\/calc\.py: git blame timed out after 500 ms/);
  });

  it('uncommitted edits: blame reads the working tree; new lines are not commits and date from the file', async () => {
    const edited = TestRepo.init();
    dirs.push(edited.dir);
    edited.commit('one', D1, { 'calc.py': CALC_V1 });
    edited.commit('two', D2, { 'calc.py': CALC_V2 });
    // Insert a line in add() and append a function: lines move, nothing committed.
    writeFileSync(join(edited.dir, 'calc.py'), CALC_V2.replace('def add(a, b):\n', 'def add(a, b):\n    """Adds."""\n') + '\n\ndef mul(a, b):\n    return a * b\n');
    const mtime = ms('2023-02-02T00:00:00Z');
    utimesSync(join(edited.dir, 'calc.py'), mtime / 1000, mtime / 1000);
    const r = await computeGitMetadata(
      edited.dir,
      [{ path: 'calc.py', chunks: [{ id: 'add', startLine: 1, endLine: 3 }, { id: 'sub', startLine: 6, endLine: 7 }, { id: 'mul', startLine: 10, endLine: 11 }] }],
      { env: edited.env },
    );
    const rows = byId(r.rows);
    assert.deepEqual(rows.get('add'), { chunkId: 'add', path: 'calc.py', status: 'tracked', commits: 2, lastModifiedMs: mtime });
    assert.deepEqual(rows.get('sub'), { chunkId: 'sub', path: 'calc.py', status: 'tracked', commits: 1, lastModifiedMs: ms(D1) }, 'moved lines keep their commit');
    assert.deepEqual(rows.get('mul'), { chunkId: 'mul', path: 'calc.py', status: 'tracked', commits: 0, lastModifiedMs: mtime });
  });

  it('a staged file not committed yet, and a repository before its first commit: tracked with 0 commits', async () => {
    const fresh = TestRepo.init();
    dirs.push(fresh.dir);
    fresh.write({ 'a.py': 'a = 1\n' });
    fresh.git('add', 'a.py');
    const mtime = ms('2024-01-01T00:00:00Z');
    utimesSync(join(fresh.dir, 'a.py'), mtime / 1000, mtime / 1000);
    const file = { path: 'a.py', chunks: [{ id: 'a', startLine: 1, endLine: 1 }] };
    const unborn = await computeGitMetadata(fresh.dir, [file], { env: fresh.env });
    assert.equal(unborn.workspace.state === 'repo' && unborn.workspace.head, undefined);
    assert.deepEqual(unborn.rows, [{ chunkId: 'a', path: 'a.py', status: 'tracked', commits: 0, lastModifiedMs: mtime }]);
    assert.equal(await currentHead(fresh.dir, { env: fresh.env }), undefined, 'unborn HEAD');
    fresh.commit('first', D1, { 'b.py': 'b = 1\n' });
    fresh.write({ 'c.py': 'c = 1\n' });
    fresh.git('add', 'c.py');
    utimesSync(join(fresh.dir, 'c.py'), mtime / 1000, mtime / 1000);
    const staged = await computeGitMetadata(fresh.dir, [{ path: 'c.py', chunks: [{ id: 'c', startLine: 1, endLine: 1 }] }], { env: fresh.env });
    assert.deepEqual(staged.rows, [{ chunkId: 'c', path: 'c.py', status: 'tracked', commits: 0, lastModifiedMs: mtime }]);
  });

  it('HEAD and the files changed since an earlier HEAD', async () => {
    assert.equal(await currentHead(repo.dir, { env: repo.env }), commits[2]);
    assert.deepEqual(await changedFilesSince(repo.dir, commits[2], { env: repo.env }), []);
    assert.deepEqual(await changedFilesSince(repo.dir, commits[0], { env: repo.env }), ['src/calc.py']);
    assert.equal(await changedFilesSince(repo.dir, 'f'.repeat(40), { env: repo.env }), undefined, 'a commit that is not there');
    assert.equal(await changedFilesSince(repo.dir, '--output=/tmp/x', { env: repo.env }), undefined, 'never an option');
    // A rename lists both names.
    const r2 = TestRepo.init();
    dirs.push(r2.dir);
    const before = r2.commit('one', D1, { 'old name.py': 'q = 1\n', 'keep.py': 'k = 1\n' });
    r2.git('mv', 'old name.py', 'new ünï.py');
    r2.commit('rename', D2);
    assert.deepEqual((await changedFilesSince(r2.dir, before, { env: r2.env }))!.sort(), ['new ünï.py', 'old name.py']);
    const w = await openGitWorkspace(r2.dir, { env: r2.env });
    assert.ok(w.state === 'repo' && w.tracked.has('new ünï.py'), 'unquoted non-ASCII paths');
  });

  it('the workspace probe: one answer for HEAD and the folders, the tracked set listed again only when git index changes', async () => {
    const r = TestRepo.init();
    dirs.push(r.dir);
    const first = r.commit('one', D1, { 'a.py': 'a = 1\n' });
    const w1 = await openGitWorkspace(r.dir, { env: r.env });
    assert.ok(w1.state === 'repo');
    assert.equal(w1.head, first);
    assert.equal(w1.prefix, '');
    const w2 = await openGitWorkspace(r.dir, { env: r.env });
    assert.ok(w2.state === 'repo');
    assert.equal(w2.tracked, w1.tracked, 'the same index file: the set listed before');
    r.write({ 'b.py': 'b = 1\n' });
    r.git('add', 'b.py');
    const w3 = await openGitWorkspace(r.dir, { env: r.env });
    assert.ok(w3.state === 'repo' && w3.tracked.has('b.py') && w3.head === first, 'git add: listed again; HEAD unmoved');
    const second = r.commit('two', D2);
    r.git('rm', '--cached', '-q', 'a.py');
    const w4 = await openGitWorkspace(r.dir, { env: r.env });
    assert.ok(w4.state === 'repo' && !w4.tracked.has('a.py') && w4.tracked.has('b.py') && w4.head === second);
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(computeGitMetadata(repo.dir, [CALC], { env: repo.env, signal: controller.signal }), /aborted/);
  });

  it('many files with bounded concurrency give the same rows as one at a time', async () => {
    const many = TestRepo.init();
    dirs.push(many.dir);
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`m/f${i}.py`] = `v = ${i}\n`;
    many.commit('many', D1, files);
    const list = Object.keys(files).map((path) => ({ path, chunks: [{ id: path, startLine: 1, endLine: 1 }] }));
    const parallel = await computeGitMetadata(many.dir, list, { env: many.env, concurrency: 8 });
    const serial = await computeGitMetadata(many.dir, list, { env: many.env, concurrency: 1 });
    assert.deepEqual(parallel.rows, serial.rows);
    assert.ok(parallel.rows.every((r) => r.status === 'tracked' && r.commits === 1 && r.lastModifiedMs === ms(D1)));
    assert.deepEqual(parallel.rows.map((r) => r.path), Object.keys(files), 'rows in the order of the files given');
  });
});
