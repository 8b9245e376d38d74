/**
 * The git metadata pass (indexer/gitMetadata.ts) on a real index built by the real Engine, in real git repositories:
 * which files each pass recomputes, what it stores in `chunk_git`, and that git failures never fail it.
 */
import assert from 'node:assert/strict';
import { unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { defaultConfig, type QuarryConfig } from '../../../server/src/engine/config/schema';
import { ChunkStore, type ChunkGitRow } from '../../../server/src/engine/store/chunkStore';
import { resolveGeneration } from '../../../server/src/engine/store/generations';
import { prefetchHistory, refreshGitMetadata, type GitRefreshOptions, type HistoryPrefetch } from '../../../server/src/engine/indexer/gitMetadata';
import { HISTORY_MIN_FILES } from '../../../server/src/engine/git/metadata';
import { requireSystemTool } from '../../support/systemTool';
import { fakeGit, isolatedGitEnv, removeGitHomes, TestRepo } from '../../support/gitRepo';
import { removeDir, tempDir, writeFiles } from '../../support/workspace';

const D1 = '2020-01-01T00:00:00Z';
const D2 = '2021-06-01T12:00:00Z';
const D3 = '2022-03-15T08:30:00Z';
const ms = (iso: string) => Date.parse(iso);

const CALC = 'def add(a, b):\n    """Add two numbers."""\n    return a + b\n\n\ndef sub(a, b):\n    """Subtract b from a."""\n    return a - b\n';
const FILES = {
  'src/calc.py': CALC,
  'src/orders.ts': `/** An order line. */\nexport interface OrderLine {\n  sku: string;\n  quantity: number;\n}\n\n/** Sums the quantities of an order. */\nexport function totalQuantity(lines: OrderLine[]): number {\n  return lines.reduce((n, l) => n + l.quantity, 0);\n}\n`,
  'docs/guide.md': '# Guide\n\nSome text.\n\n## Setup\n\nMore text.\n',
  'notes.txt': 'hello\nworld\n',
};

function config(): QuarryConfig {
  const c = defaultConfig();
  c.chunking.minTokens = 1; // one chunk per function, so chunks can be told apart
  return c;
}

/** The git settings the tests' passes run with (metadata on). */
const ON = defaultConfig().git;
/** These tests drive refreshGitMetadata themselves: the engine's index runs leave git rows alone. */
const NO_GIT = { skipGit: true };

describe('git metadata pass over a real index', function () {
  this.timeout(180_000);
  let repo: TestRepo;
  let engine: Engine;
  let store: ChunkStore;
  let head: string | undefined;
  const dirs: string[] = [];

  const refresh = (options: Partial<GitRefreshOptions> = {}) =>
    refreshGitMetadata(store, repo.dir, { config: ON, env: repo.env, previousHead: head, ...options });

  /** Rows of a path, ordered by the chunks' start lines. */
  async function rowsOf(path: string): Promise<Array<ChunkGitRow & { startLine: number; kind: string }>> {
    const spans = (await store.chunkSpansOf([path])).sort((a, b) => a.startLine - b.startLine);
    const rows = new Map((await store.gitRowsOf(spans.map((s) => s.id))).map((r) => [r.chunkId, r]));
    return spans.filter((s) => rows.has(s.id)).map((s) => ({ ...rows.get(s.id)!, startLine: s.startLine, kind: s.kind }));
  }

  before(async () => {
    requireSystemTool('git', 'git');
    repo = TestRepo.init();
    dirs.push(repo.dir);
    repo.commit('first', D1, FILES);
    repo.write({ 'src/draft.py': 'def draft():\n    return 0\n' });
    engine = await Engine.open(repo.dir, { config: config(), embedding: null, reranker: null });
    await engine.index(NO_GIT);
    store = (await ChunkStore.open(join(repo.dir, '.quarry'))).store;
  });
  after(async () => {
    await store.close();
    await engine.close();
    dirs.forEach(removeDir);
    removeGitHomes();
  });

  it('first pass: every code file, knowledge chunks left out', async () => {
    const s = await refresh();
    head = s.head;
    assert.equal(s.head, repo.head());
    assert.equal(s.reason, 'all', 'no previous HEAD recorded');
    assert.deepEqual({ files: s.filesRefreshed, tracked: s.tracked, untracked: s.untracked, unavailable: s.unavailable }, { files: 3, tracked: 2, untracked: 1, unavailable: 0 });
    assert.deepEqual(s.warnings, []);
    const calc = await rowsOf('src/calc.py');
    assert.equal(calc.length, 2);
    for (const r of calc) assert.deepEqual([r.status, r.commits, r.lastModifiedMs], ['tracked', 1, ms(D1)]);
    assert.ok(calc[0].computedAt > 0 && Date.now() - calc[0].computedAt < 60_000);
    assert.deepEqual((await rowsOf('src/draft.py')).map((r) => [r.status, r.commits, r.lastModifiedMs]), [['untracked', -1, 0]]);
    assert.deepEqual(await rowsOf('docs/guide.md'), [], 'Markdown sections are knowledge');
    assert.deepEqual(await rowsOf('notes.txt'), [], 'text chunks are knowledge');
    assert.equal(await store.countGitRows(), 5);
    await store.maintain();
    const ix = await store.scalarIndexes();
    assert.ok(ix.chunk_git.includes('chunk_id') && ix.chunk_git.includes('path'), JSON.stringify(ix));
  });

  it('a second pass with nothing changed computes nothing', async () => {
    const s = await refresh();
    assert.equal(s.reason, 'none');
    assert.equal(s.filesRefreshed, 0);
    assert.equal(s.head, head);
  });

  it('a new commit: only the changed file is recomputed, with the new count and time', async () => {
    const before = await rowsOf('src/orders.ts');
    repo.commit('cast', D2, { 'src/calc.py': CALC.replace('return a + b', 'return int(a) + int(b)') });
    const indexed = await engine.index(NO_GIT);
    assert.equal(indexed.filesIndexed, 1);
    const s = await refresh({ paths: ['src/calc.py'] });
    assert.equal(s.filesRefreshed, 1);
    assert.equal(s.head, repo.head());
    head = s.head;
    const [add, sub] = await rowsOf('src/calc.py');
    assert.deepEqual([add.commits, add.lastModifiedMs], [2, ms(D2)]);
    assert.deepEqual([sub.commits, sub.lastModifiedMs], [1, ms(D1)]);
    assert.deepEqual(await rowsOf('src/orders.ts'), before, 'other files keep their rows (same computed_at)');
  });

  it('HEAD moved with no file re-indexed: the files in `git diff old HEAD` are recomputed', async () => {
    repo.git('add', 'src/draft.py');
    repo.commit('draft', D3);
    assert.equal((await engine.index(NO_GIT)).filesIndexed, 0, 'nothing changed on disk');
    const s = await refresh();
    assert.equal(s.filesRefreshed, 1);
    head = s.head;
    assert.deepEqual((await rowsOf('src/draft.py')).map((r) => [r.status, r.commits, r.lastModifiedMs]), [['tracked', 1, ms(D3)]]);
  });

  it('uncommitted edits: new lines do not count as commits, last modified is the file time', async () => {
    const file = join(repo.dir, 'src/calc.py');
    writeFileSync(file, CALC.replace('return a + b', 'return int(a) + int(b)').replace('def sub(a, b):\n', 'def sub(a, b):\n    # careful\n'));
    const mtime = ms('2023-07-07T00:00:00Z');
    utimesSync(file, mtime / 1000, mtime / 1000);
    assert.equal((await engine.index(NO_GIT)).filesIndexed, 1);
    const s = await refresh({ paths: ['src/calc.py'] });
    assert.equal(s.filesRefreshed, 1);
    const [add, sub] = await rowsOf('src/calc.py');
    assert.deepEqual([add.commits, add.lastModifiedMs], [2, ms(D2)], 'add() is unchanged');
    assert.deepEqual([sub.commits, sub.lastModifiedMs], [1, mtime], 'sub() has an uncommitted line');
    head = s.head;
  });

  it('committing those edits (nothing changes on disk) is picked up through HEAD alone', async () => {
    const D4 = '2024-01-01T00:00:00Z';
    const before = await rowsOf('src/orders.ts');
    repo.commit('careful', D4, {}, ['src/calc.py']);
    assert.equal((await engine.index(NO_GIT)).filesIndexed, 0);
    const s = await refresh();
    assert.equal(s.reason, 'changes');
    assert.equal(s.filesRefreshed, 1);
    head = s.head;
    const [add, sub] = await rowsOf('src/calc.py');
    assert.deepEqual([add.commits, add.lastModifiedMs], [2, ms(D2)]);
    assert.deepEqual([sub.commits, sub.lastModifiedMs], [2, ms(D4)]);
    assert.deepEqual(await rowsOf('src/orders.ts'), before);
  });

  it('`git add` of a new file (no commit) is noticed, and a new chunk without a row is computed', async () => {
    repo.write({ 'src/extra.py': 'def extra():\n    return 1\n' });
    await engine.index(NO_GIT);
    let s = await refresh();
    assert.deepEqual((await rowsOf('src/extra.py')).map((r) => r.status), ['untracked']);
    assert.equal(s.filesRefreshed, 1, 'only the file without rows');
    repo.git('add', 'src/extra.py');
    s = await refresh();
    assert.equal(s.filesRefreshed, 1);
    assert.deepEqual((await rowsOf('src/extra.py')).map((r) => [r.status, r.commits]), [['tracked', 0]]);
  });

  it('git blame failing (a fake git): unavailable rows and a warning, no exception; retried on the next pass', async () => {
    const fake = fakeGit('orders\\.ts', 'fail');
    dirs.push(fake.dir);
    const failing = await refresh({ env: { ...repo.env, PATH: `${fake.dir}:${process.env.PATH}` }, previousHead: 'f'.repeat(40) });
    assert.equal(failing.reason, 'all', 'an old HEAD that is not in the repository: everything');
    assert.equal(failing.unavailable, 1);
    assert.equal(failing.tracked + failing.untracked + failing.unavailable, failing.filesRefreshed);
    assert.match(failing.warnings.join('\n'), /Git blame failed for src\/orders\.ts/);
    assert.ok((await rowsOf('src/orders.ts')).every((r) => r.status === 'unavailable' && r.commits === -1 && r.lastModifiedMs === 0));
    assert.equal((await rowsOf('src/calc.py'))[0].status, 'tracked');
    const retried = await refresh();
    assert.equal(retried.filesRefreshed, 1);
    assert.ok((await rowsOf('src/orders.ts')).every((r) => r.status === 'tracked' && r.commits === 1));
  });

  it('git missing: every file unavailable, the pass still completes', async () => {
    const emptyBin = tempDir('quarry-empty-bin-');
    dirs.push(emptyBin);
    const s = await refresh({ env: { ...repo.env, PATH: emptyBin }, previousHead: head });
    assert.equal(s.head, undefined);
    assert.equal(s.reason, 'all');
    assert.equal(s.unavailable, s.filesRefreshed);
    assert.match(s.warnings.join('\n'), /git executable not found/);
    const back = await refresh({ previousHead: s.head });
    assert.equal(back.head, repo.head());
    assert.equal(back.unavailable, 0);
    assert.ok((await rowsOf('src/calc.py')).every((r) => r.status === 'tracked'));
    head = back.head;
  });

  it('a deleted file loses its rows; a full rebuild drops all and the next pass recomputes them', async () => {
    unlinkSync(join(repo.dir, 'src/orders.ts'));
    await engine.index(NO_GIT);
    assert.deepEqual((await store.gitRowIndex()).filter((r) => r.path === 'src/orders.ts'), []);
    await engine.index({ full: true, ...NO_GIT });
    // the rebuild wrote a new generation of the index and removed the old one (store/generations.ts): read the new one
    await store.close();
    store = (await ChunkStore.open(resolveGeneration(join(repo.dir, '.quarry')).generation.dir)).store;
    assert.equal(await store.countGitRows(), 0, 'a full rebuild starts without git rows');
    const s = await refresh();
    assert.equal(s.reason, 'changes');
    assert.equal(s.filesRefreshed, 3);
    assert.equal((await rowsOf('src/calc.py')).length, 2);
  });

  it('an aborted pass keeps the previous HEAD; git.metadata off drops every row', async () => {
    const controller = new AbortController();
    controller.abort();
    const aborted = await refresh({ signal: controller.signal, previousHead: 'a'.repeat(40) });
    assert.equal(aborted.aborted, true);
    assert.equal(aborted.head, 'a'.repeat(40));
    const off = await refresh({ config: { ...ON, metadata: false } });
    assert.equal(off.disabled, true);
    assert.equal(await store.countGitRows(), 0);
  });

  it('a workspace that is not a git repository: untracked rows, once', async () => {
    const root = tempDir('quarry-nogit-');
    dirs.push(root);
    writeFiles(root, { 'a.py': 'def a():\n    return 1\n', 'README.md': '# Readme\n\nText.\n' });
    const e = await Engine.open(root, { config: config(), embedding: null, reranker: null });
    try {
      await e.index(NO_GIT);
      const s2 = (await ChunkStore.open(join(root, '.quarry'))).store;
      try {
        const env = isolatedGitEnv();
        const first = await refreshGitMetadata(s2, root, { config: ON, env });
        assert.deepEqual([first.head, first.filesRefreshed, first.untracked], [undefined, 1, 1]);
        assert.deepEqual((await s2.gitRowIndex()).map((r) => [r.path, r.status]), [['a.py', 'untracked']]);
        const second = await refreshGitMetadata(s2, root, { config: ON, env, previousHead: first.head });
        assert.equal(second.filesRefreshed, 0);
      } finally {
        await s2.close();
      }
    } finally {
      await e.close();
    }
  });
});

describe('git metadata: the history replay started with the run (prefetchHistory)', function () {
  this.timeout(180_000);
  it('gives the rows a replay after the run gives; a HEAD that moved meanwhile is replayed again', async () => {
    requireSystemTool('git', 'git');
    const repo = TestRepo.init();
    const files: Record<string, string> = {};
    for (let i = 0; i < HISTORY_MIN_FILES + 6; i++) files[`src/m${i}.py`] = `def f${i}(x):\n    return x + ${i}\n\n\ndef g${i}(x):\n    return x * ${i}\n`;
    repo.commit('first', D1, files);
    repo.commit('second', D2, { 'src/m3.py': files['src/m3.py']!.replace('return x * 3', 'return x * 33') });
    const engine = await Engine.open(repo.dir, { config: config(), embedding: null, reranker: null });
    const store = (await ChunkStore.open(join(repo.dir, '.quarry'))).store;
    try {
      await engine.index(NO_GIT);
      const rows = async () => {
        const spans = await store.chunkSpansOf();
        return (await store.gitRowsOf(spans.map((sp) => sp.id))).map((r) => `${r.chunkId} ${r.status} ${r.commits} ${r.lastModifiedMs}`).sort();
      };
      const pass = (prefetched?: HistoryPrefetch) => refreshGitMetadata(store, repo.dir, { config: ON, env: repo.env, prefetched });

      const early = await pass(prefetchHistory(repo.dir, { env: repo.env }));
      assert.equal(early.history, 'prefetched');
      const withPrefetch = await rows();
      await store.clearGitRows();
      const late = await pass();
      assert.equal(late.history, 'replayed');
      assert.deepEqual(withPrefetch, await rows());
      assert.ok(withPrefetch.some((r) => r.endsWith(` 2 ${ms(D2)}`)), 'm3.py\'s g3 counts both commits');

      // a commit lands after the replay started: the pass sees another HEAD and replays it itself
      const stale = prefetchHistory(repo.dir, { env: repo.env });
      await stale.result;
      repo.commit('third', D3, { 'src/m5.py': files['src/m5.py']!.replace('return x + 5', 'return x + 55') });
      await engine.index(NO_GIT);
      await store.clearGitRows();
      const moved = await pass(stale);
      assert.equal(moved.history, 'replayed');
      assert.ok((await rows()).some((r) => r.endsWith(` 2 ${ms(D3)}`)), 'm5.py\'s f5 counts the third commit');

      // the engine starts the replay with a run that attributes every file (here a full rebuild)
      const full = await engine.index({ full: true });
      assert.equal(full.git?.history, 'prefetched', JSON.stringify(full.git));
      assert.equal(full.git?.filesRefreshed, HISTORY_MIN_FILES + 6);
      // a long-running door (the language server) replays after its phases: its memory target leaves no room for both
      await engine.close();
      const door = await Engine.open(repo.dir, { config: config(), embedding: null, reranker: null, longRunning: true });
      try {
        const doorFull = await door.index({ full: true });
        assert.equal(doorFull.git?.history, 'replayed', JSON.stringify(doorFull.git));
      } finally {
        await door.close();
      }
    } finally {
      await store.close();
      await engine.close();
      removeDir(repo.dir);
      removeGitHomes();
    }
  });
});

describe('the engine runs the git pass itself (index → search results)', function () {
  this.timeout(120_000);
  it('index() computes commits and last-modified per chunk, re-index picks up a new commit, search shows them', async () => {
    requireSystemTool('git', 'git');
    const repo = TestRepo.init();
    try {
      repo.commit('first', D1, FILES);
      repo.write({ 'src/draft.py': 'def draft():\n    return 0\n' });
      const engine = await Engine.open(repo.dir, { config: config(), embedding: null, reranker: null });
      try {
        const first = await engine.index();
        assert.equal(first.git?.reason, 'all');
        assert.equal(first.git?.filesRefreshed, 3);
        const res = await engine.search('draft');
        const draft = res.matches.find((m) => m.file.path === 'src/draft.py')!;
        assert.deepEqual(draft.git, { status: 'untracked', commits: null, last_modified: null });
        repo.git('add', 'src/draft.py');
        repo.commit('draft', D3);
        const second = await engine.index();
        assert.equal(second.git?.filesRefreshed, 1, 'only what changed since the recorded HEAD');
        const again = (await engine.search('draft')).matches.find((m) => m.file.path === 'src/draft.py')!;
        assert.deepEqual(again.git, { status: 'tracked', commits: 1, last_modified: new Date(ms(D3)).toISOString() });
        const guide = (await engine.search('guide setup')).matches.find((m) => m.file.path === 'docs/guide.md');
        assert.ok(guide && !guide.git, 'knowledge chunks carry no git columns');
        // an incremental run with HEAD unchanged checks only the file it re-indexed (quick mode)
        repo.write({ 'src/draft.py': 'def draft():\n    return 1\n' });
        const third = await engine.index();
        assert.equal(third.filesIndexed, 1);
        assert.deepEqual([third.git?.reason, third.git?.filesRefreshed], ['changes', 1]);
        const nothing = await engine.index();
        assert.deepEqual([nothing.git?.reason, nothing.git?.filesRefreshed], ['none', 0]);
        // rows out of step with the chunks (here: one deleted behind the engine's back) send it back to the full scan
        const { store } = await ChunkStore.open(join(repo.dir, '.quarry'));
        await store.deleteGitPaths(['src/calc.py']);
        await store.close();
        const healed = await engine.index();
        assert.deepEqual([healed.git?.reason, healed.git?.filesRefreshed], ['changes', 1]);
      } finally {
        await engine.close();
      }
    } finally {
      removeDir(repo.dir);
      removeGitHomes();
    }
  });
});
