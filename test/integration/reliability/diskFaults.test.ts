/**
 * Issue 20: a full disk and a read-only `.quarry` are reported as what they are and leave the index as it was; a
 * read-only index stays searchable. Real file systems: a 2 MB tmpfs (full), the same remounted read-only (root
 * bypasses chmod, so permissions alone would prove nothing). Needs root and mount(8): without them the suite fails with the reason (CI runs as root).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, openSync, writeSync, closeSync, rmSync, writeFileSync, statSync, truncateSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { CLI, tempDir, removeDir } from '../../support/workspace';
import { cli, listing, mountTmpfs, remount, searchJson, unmount, writeSmallProject } from '../../support/reliability';

/** Fills the file system holding `dir` to the last byte. */
function fill(dir: string): string {
  const path = join(dir, 'filler.bin');
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(16 * 1024);
  try {
    for (;;) writeSync(fd, block);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  }
  // the last partial block too
  try {
    for (;;) writeSync(fd, Buffer.alloc(512));
  } catch {
    /* full */
  }
  closeSync(fd);
  return path;
}

describe('reliability: disk full and read-only index (issue 20)', function () {
  this.timeout(300_000);
  let mnt: string;
  let root: string;
  let q: string;

  before(function () {
    // never skipped (a skipped fault test proves nothing): where a tmpfs cannot be mounted, the suite fails saying so
    if (process.platform !== 'linux' || process.getuid?.() !== 0) {
      throw new Error('These tests mount a small tmpfs to fill a disk and make it read-only: run them as root on Linux (CI does).');
    }
    mnt = tempDir('quarry-mnt-');
    const m = mountTmpfs(mnt, '4m');
    if (!m.ok) {
      removeDir(mnt);
      mnt = '';
      throw new Error(`mount -t tmpfs is not permitted here (${m.why}): run these tests as root on a machine that allows mounts (CI does).`);
    }
  });
  after(() => {
    if (!mnt) return;
    unmount(mnt);
    removeDir(mnt);
  });
  beforeEach(() => {
    remount(mnt, 'rw');
    for (const e of ['p', 'filler.bin', 'fresh']) rmSync(join(mnt, e), { recursive: true, force: true });
    root = join(mnt, 'p');
    q = join(root, '.quarry');
    writeSmallProject(root);
    const r = cli(['index', '-p', root, '-q']);
    assert.equal(r.status, 0, r.stderr);
  });

  it('disk full: search answers from the index; index fails naming the cause and the fix; nothing deleted, no empty lock files', () => {
    const before = listing(q);
    // a new file to index (written while there is room): the next run has to write
    writeFileSync(join(root, 'src', 'grown.ts'), 'export const grown = 1;\n'.repeat(200));
    fill(mnt);
    const s = searchJson(root, 'parseConfig2');
    assert.equal(s.run.status, 0, s.run.stderr);
    assert.equal(s.paths[0], 'src/config2.ts');
    const ix = cli(['index', '-p', root, '-q']);
    assert.equal(ix.status, 1);
    assert.match(ix.stderr, /No space left on device while .*: free disk space and run the command again/);
    assert.doesNotMatch(ix.stderr, /damaged|locked for/);
    for (const lock of ['index.lock', 'store.lock']) assert.ok(!existsSync(join(q, lock)), `${lock} left behind`);
    const after = listing(q);
    for (const f of Object.keys(before)) if (f.startsWith('lancedb/') || f.startsWith('lexical/') || f === 'store.json') assert.ok(f in after, `${f} was deleted`);
    // still searchable, then heals once there is space again
    const again = searchJson(root, 'parseConfig1');
    assert.equal(again.paths[0], 'src/config1.ts');
    rmSync(join(mnt, 'filler.bin'));
    const healed = cli(['index', '-p', root, '-q']);
    assert.equal(healed.status, 0, healed.stderr);
    assert.equal(searchJson(root, 'grown').paths[0], 'src/grown.ts');
  });

  it('disk full before any index exists: the error names the cause, the operation and the fix (exit 1), no lock files', () => {
    const fresh = join(mnt, 'fresh');
    mkdirSync(join(fresh, 'src'), { recursive: true });
    writeFileSync(join(fresh, 'src', 'a.ts'), 'export function alpha() { return 1; }\n');
    fill(mnt);
    const r = cli(['search', 'alpha', '-p', fresh]);
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stderr, /No space left on device while .*free disk space and run the command again/);
    assert.doesNotMatch(r.stderr, /locked|damaged/);
    for (const lock of ['index.lock', 'store.lock']) assert.ok(!existsSync(join(fresh, '.quarry', lock)), `${lock} left behind`);
  });

  it('read-only file system: search and status work from the index, index refuses with the cause, nothing changes', () => {
    const before = listing(q);
    remount(mnt, 'ro');
    try {
      const s = searchJson(root, 'parseConfig3');
      assert.equal(s.run.status, 0, s.run.stderr);
      assert.equal(s.paths[0], 'src/config3.ts');
      const st = cli(['status', '-p', root, '--json']);
      assert.equal(st.status, 0, st.stderr);
      assert.equal(JSON.parse(st.stdout).chunks, 6);
      const ix = cli(['index', '-p', root, '-q']);
      assert.equal(ix.status, 1);
      assert.match(ix.stderr, /Read-only file system while .*to build or update it make the file system writable/);
      assert.doesNotMatch(ix.stderr, /rmdir|damaged/);
      assert.deepEqual(listing(q), before);
    } finally {
      remount(mnt, 'rw');
    }
  });

  it('disk full during `index --full`: the rebuild fails naming the cause, leaves no partial generation behind, and the old index answers in full', () => {
    const answer = searchJson(root, 'parse configuration file').paths;
    assert.ok(answer.length >= 6);
    const filler = fill(mnt);
    // room for the start of a new generation, not for all of it
    truncateSync(filler, statSync(filler).size - 16 * 1024);
    const ix = cli(['index', '-p', root, '--full', '-q']);
    assert.equal(ix.status, 1, `${ix.stdout}\n${ix.stderr}`);
    assert.match(ix.stderr, /No space left on device while .*: free disk space and run the command again/);
    const generations = existsSync(join(q, 'generations')) ? readdirSync(join(q, 'generations')) : [];
    assert.deepEqual(generations, [], 'the partial generation was removed at once');
    assert.ok(!existsSync(join(q, 'current.json')) && !existsSync(join(q, 'index_checkpoint.json')));
    const s = searchJson(root, 'parseConfig2');
    assert.equal(s.run.status, 0, s.run.stderr);
    assert.equal(s.paths[0], 'src/config2.ts');
    assert.deepEqual(s.warnings, []);
    assert.deepEqual(searchJson(root, 'parse configuration file').paths, answer, 'the old index answers in full');
    rmSync(filler);
    assert.equal(cli(['index', '-p', root, '--full', '-q']).status, 0);
    assert.ok(existsSync(join(q, 'current.json')), 'with room again, the rebuild switches');
  });

  it('read-only file system: quarry mcp (which would own the index) serves find_code from it as a reader', async () => {
    remount(mnt, 'ro');
    try {
      const child = spawn(process.execPath, [CLI, 'mcp', '-p', root], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, QUARRY_LOG_LEVEL: 'silent' } });
      let out = '';
      let err = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (err += d));
      const send = (m: unknown) => child.stdin!.write(JSON.stringify(m) + '\n');
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'find_code', arguments: { query: 'parseConfig4' } } });
      const t0 = Date.now();
      while (!/"id":2/.test(out) && Date.now() - t0 < 60_000 && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      child.stdin!.end();
      await new Promise((r) => child.once('exit', r));
      const reply = out.split('\n').find((l) => l.includes('"id":2'));
      assert.ok(reply, `no find_code answer; stderr: ${err}`);
      assert.match(reply!, /src\/config4\.ts/);
    } finally {
      remount(mnt, 'rw');
    }
  });

  it('read-only file system and no index yet: search exits 1 naming the cause, no stack of ENOENT', () => {
    const fresh = join(mnt, 'fresh');
    mkdirSync(join(fresh, 'src'), { recursive: true });
    writeFileSync(join(fresh, 'src', 'a.ts'), 'export function alpha() { return 1; }\n');
    remount(mnt, 'ro');
    try {
      const r = cli(['search', 'alpha', '-p', fresh]);
      assert.equal(r.status, 1, r.stdout);
      assert.match(r.stderr, /Read-only file system while creating the index folder at .*\.quarry/);
      assert.doesNotMatch(r.stderr, /ENOENT/);
    } finally {
      remount(mnt, 'rw');
    }
  });

  it('read-only file system with the lexical index missing: search still answers, with the problem named', () => {
    rmSync(join(q, 'lexical'), { recursive: true, force: true });
    remount(mnt, 'ro');
    try {
      const s = searchJson(root, 'parseConfig3');
      assert.equal(s.run.status, 0, s.run.stderr);
      assert.ok(s.warnings.some((w) => /lexical index .* is missing/.test(w)), s.warnings.join('\n'));
      const st = JSON.parse(cli(['status', '-p', root, '--json']).stdout);
      assert.notEqual(st.health.status, 'healthy');
    } finally {
      remount(mnt, 'rw');
    }
    // writable again: the next command rebuilds it
    assert.equal(searchJson(root, 'parseConfig3').paths[0], 'src/config3.ts');
  });
});
