/**
 * Issue 20: a fault that is not damage deletes nothing, and a real problem is never silent. Real LanceDB, real lexical
 * index, the real CLI.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, removeDir } from '../../support/workspace';
import { STORE_SCHEMA_VERSION } from '../../../server/src/engine/store/chunkStore';
import { cli, cliAsync, deadPid, listing, liveHolder, searchJson, writeSmallProject } from '../../support/reliability';

describe('reliability: store faults are reported, not "repaired" by deleting the index (issue 20)', function () {
  this.timeout(240_000);
  let root: string;
  let q: string;

  beforeEach(() => {
    root = tempDir('quarry-faults-');
    q = join(root, '.quarry');
    writeSmallProject(root);
    const r = cli(['index', '-p', root, '-q']);
    assert.equal(r.status, 0, r.stderr);
  });
  afterEach(() => removeDir(root));

  it('a live process holding store.lock: search answers at once and nothing is deleted', () => {
    const holder = liveHolder();
    try {
      const lock = holder.lock();
      writeFileSync(join(q, 'store.lock'), lock);
      const before = listing(join(q, 'lancedb'));
      const s = searchJson(root, 'parseConfig3');
      assert.equal(s.run.status, 0, s.run.stderr);
      assert.equal(s.paths[0], 'src/config3.ts');
      assert.ok(!s.warnings.some((w) => /damaged|reset/.test(w)), s.warnings.join('\n'));
      assert.deepEqual(listing(join(q, 'lancedb')), before);
      // opening an existing store takes no lock: the holder's lock is left exactly as it was
      assert.equal(readFileSync(join(q, 'store.lock'), 'utf8'), lock);
    } finally {
      holder.child.kill();
    }
  });

  it('a live indexer holding index.lock: search answers with a warning, index names the holder, nothing is deleted', () => {
    const holder = liveHolder();
    try {
      writeFileSync(join(q, 'index.lock'), holder.lock());
      const before = listing(q);
      const s = searchJson(root, 'parseConfig1');
      assert.equal(s.run.status, 0, s.run.stderr);
      assert.equal(s.paths[0], 'src/config1.ts');
      assert.ok(s.warnings.some((w) => /indexing in progress/.test(w)), s.warnings.join('\n'));
      const st = JSON.parse(cli(['status', '-p', root, '--json']).stdout);
      assert.equal(st.indexing.pid, holder.pid);
      const ix = cli(['index', '-p', root, '-q']);
      assert.equal(ix.status, 1);
      assert.match(ix.stderr, new RegExp(`Indexing already in progress .*process ${holder.pid}`));
      assert.deepEqual(listing(q), before);
    } finally {
      holder.child.kill();
    }
  });

  it('a dead indexer\'s lock is not "indexing in progress", and the next index run takes it over', () => {
    writeFileSync(join(q, 'index.lock'), JSON.stringify({ pid: deadPid(), host: require('node:os').hostname(), startedAt: '2020-01-01T00:00:00.000Z' }));
    const st = JSON.parse(cli(['status', '-p', root, '--json']).stdout);
    assert.equal(st.indexing, null);
    assert.doesNotMatch(cli(['status', '-p', root]).stdout, /State:\s+indexing/);
    const s = searchJson(root, 'parseConfig2');
    assert.ok(!s.warnings.some((w) => /indexing in progress/.test(w)), s.warnings.join('\n'));
    const ix = cli(['index', '-p', root, '-q']);
    assert.equal(ix.status, 0, ix.stderr);
    assert.ok(!existsSync(join(q, 'index.lock')));
  });

  it('the lexical index folder gone while the chunk store has rows: the answer says so (and it is rebuilt), status is not healthy', () => {
    rmSync(join(q, 'lexical'), { recursive: true, force: true });
    const st = cli(['status', '-p', root, '--json']);
    assert.equal(st.status, 0, st.stderr);
    const status = JSON.parse(st.stdout);
    assert.ok(status.problems.some((p: string) => /lexical index .* is missing while the chunk store holds 6 chunks/.test(p)), status.problems.join('\n'));
    assert.notEqual(status.health.status, 'healthy');
    // the open rebuilt it from the chunk store: the next search finds the code again
    const s = searchJson(root, 'parseConfig4');
    assert.equal(s.paths[0], 'src/config4.ts');
  });

  it('the lexical manifest gone on a store another process is not writing: search answers (rebuilt) with a warning', () => {
    rmSync(join(q, 'lexical', 'manifest.json'));
    const s = searchJson(root, 'parseConfig4');
    assert.equal(s.run.status, 0);
    assert.equal(s.paths[0], 'src/config4.ts');
    assert.ok(s.warnings.some((w) => /lexical index .*missing.*was rebuilt/.test(w)), s.warnings.join('\n'));
  });

  it('garbled state.json and store.json: every answer warns, status is not healthy, nothing is deleted, `quarry index` heals both', () => {
    writeFileSync(join(q, 'state.json'), '{"lastIndexed": ');
    writeFileSync(join(q, 'store.json'), 'garbage');
    const before = listing(join(q, 'lancedb'));
    const s = searchJson(root, 'parseConfig5');
    assert.equal(s.run.status, 0);
    assert.equal(s.paths[0], 'src/config5.ts', 'the tables were kept');
    assert.ok(s.warnings.some((w) => /store\.json is unreadable/.test(w)), s.warnings.join('\n'));
    assert.ok(s.warnings.some((w) => /state\.json is unreadable/.test(w)), s.warnings.join('\n'));
    assert.deepEqual(listing(join(q, 'lancedb')), before);
    const status = JSON.parse(cli(['status', '-p', root, '--json']).stdout);
    assert.equal(status.problems.length, 2, status.problems.join('\n'));
    assert.equal(status.health.status, 'degraded');
    assert.match(cli(['status', '-p', root]).stdout, /Health:\s+degraded[\s\S]*Problems:/);
    const ix = cli(['index', '-p', root, '-q']);
    assert.equal(ix.status, 0, ix.stderr);
    assert.deepEqual(JSON.parse(readFileSync(join(q, 'store.json'), 'utf8')), { schemaVersion: STORE_SCHEMA_VERSION });
    const after = JSON.parse(cli(['status', '-p', root, '--json']).stdout);
    assert.deepEqual(after.problems, []);
    assert.equal(after.health.status, 'healthy');
  });

  it('the whole LanceDB folder gone while the lexical index has documents: the answer and status say so, index heals', () => {
    rmSync(join(q, 'lancedb'), { recursive: true, force: true });
    const s = searchJson(root, 'parseConfig2');
    assert.equal(s.run.status, 0);
    assert.ok(s.warnings.some((w) => /chunk store .* is empty while the lexical index holds 6 documents/.test(w)), s.warnings.join('\n'));
    const st = JSON.parse(cli(['status', '-p', root, '--json']).stdout);
    assert.equal(st.health.status, 'degraded');
    assert.equal(cli(['index', '-p', root, '-q']).status, 0);
    const healed = searchJson(root, 'parseConfig2');
    assert.equal(healed.paths[0], 'src/config2.ts');
    assert.deepEqual(healed.warnings, []);
  });

  it('the chunk table\'s _versions gone (proven damage): the store is reset and rebuilt, and the user is told', () => {
    rmSync(join(q, 'lancedb', 'chunks.lance', '_versions'), { recursive: true, force: true });
    const s = searchJson(root, 'parseConfig0');
    assert.equal(s.run.status, 0, s.run.stderr);
    assert.match(s.run.stderr, /chunk store damaged .*chunks table .*cannot be opened.*reset/);
    assert.equal(s.paths[0], 'src/config0.ts', 'the search rebuilt the index before answering');
  });

  it('a search while the first index is being built answers (no IndexLockedError)', () => {
    const fresh = tempDir('quarry-first-');
    const holder = liveHolder();
    try {
      writeSmallProject(fresh);
      writeFileSync(join(fresh, '.quarry', 'index.lock'), holder.lock());
      const r = cli(['search', 'parseConfig1', '-p', fresh, '-o', 'json']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, new RegExp(`Another process \\(pid ${holder.pid}\\) is building the index: answering from what it has committed so far`));
      assert.doesNotMatch(r.stderr, /Error/);
      const res = JSON.parse(r.stdout);
      assert.ok(res.warnings.some((w: string) => /indexing in progress/.test(w)), res.warnings.join('\n'));
    } finally {
      holder.child.kill();
      removeDir(fresh);
    }
  });

  it('a search racing a real first index run exits 0 either way', async () => {
    const fresh = tempDir('quarry-race-');
    try {
      writeSmallProject(fresh, 400);
      const indexing = cliAsync(['index', '-p', fresh, '-q']);
      await new Promise((r) => setTimeout(r, 1500));
      const s = await cliAsync(['search', 'parseConfig7', '-p', fresh, '-o', 'json']);
      assert.equal(s.status, 0, s.stderr);
      assert.doesNotMatch(s.stderr, /^Error/m);
      const ix = await indexing;
      assert.equal(ix.status, 0, ix.stderr);
      const again = searchJson(fresh, 'parseConfig7');
      assert.equal(again.paths[0], 'src/config7.ts');
    } finally {
      removeDir(fresh);
    }
  });
});
