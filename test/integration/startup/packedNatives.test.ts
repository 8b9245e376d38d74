import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { buildSync } from 'esbuild';
import { REPO_ROOT, removeDir, tempDir } from '../../support/workspace';

/**
 * The first-start unpack of native libraries shipped brotli-compressed in the .vsix (issue 19;
 * server/src/startup/packedNatives.ts). Each start is a real process running the startup hook as it is bundled
 * (server/src/startup/unpackNatives.ts built with esbuild into <package>/dist/, where the manifest lives), then
 * hashing the library where the loader would find it. As root, the children drop the capabilities that bypass file
 * permissions (setpriv), so a read-only folder is read-only for them too.
 */
const LIB = 'node_modules/@fake/native-linux-x64/native.linux-x64.node';
const ENV_VAR = 'NAPI_RS_NATIVE_LIBRARY_PATH';

/** A library-like payload: blocks from a small pool of random ones, so brotli has matches to find within its window. */
function payload(bytes: number): Buffer {
  const pool = Array.from({ length: 24 }, () => randomBytes(64 * 1024));
  const out = Buffer.alloc(bytes);
  for (let o = 0, i = 0; o < bytes; o += 64 * 1024, i++) pool[(i * 7919) % pool.length].copy(out, o);
  out.write(`unique-${Date.now()}`, 0);
  return out;
}

const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

interface Start {
  status: number;
  stdout: string;
  stderr: string;
  seen?: { path: string; ok: boolean; env: string | null };
}

describe('packed native libraries: unpacked on first start (issue 19)', function () {
  this.timeout(180_000);
  let work: string;
  let hook: string;
  const lib = payload(12 * 1024 * 1024);
  const libSha = sha256(lib);
  // the packager's settings (scripts/package-vsix.mjs)
  const packed = brotliCompressSync(lib, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_LGWIN]: 24, [constants.BROTLI_PARAM_SIZE_HINT]: lib.length } });
  const asRoot = process.getuid?.() === 0;

  before(() => {
    work = tempDir('quarry-packed-natives-');
    chmodSync(work, 0o755);
    hook = join(work, 'start.js');
    buildSync({ entryPoints: [join(REPO_ROOT, 'server', 'src', 'startup', 'unpackNatives.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: hook, logLevel: 'warning' });
  });
  after(() => {
    if (!work) return;
    spawnSync('chmod', ['-R', 'u+w', work]);
    removeDir(work);
  });

  /** A package as the .vsix unpacks it: the hook and the manifest in dist/, the packed library, not the library itself. */
  function makePackage(name: string, manifest: Partial<{ sha256: string; size: number; env: string | undefined }> = {}, packedBytes = packed): string {
    const root = join(work, name);
    mkdirSync(join(root, 'dist'), { recursive: true });
    mkdirSync(join(root, LIB, '..'), { recursive: true });
    writeFileSync(join(root, 'dist', 'start.js'), readFileSync(hook));
    writeFileSync(join(root, `${LIB}.br`), packedBytes);
    writeFileSync(join(root, 'package.json'), '{}');
    const file = { path: LIB, packed: `${LIB}.br`, codec: 'brotli', size: lib.length, sha256: libSha, env: ENV_VAR, ...manifest };
    writeFileSync(join(root, 'dist', 'packed-natives.json'), JSON.stringify({ version: 1, files: [file] }));
    // what a start does after the hook: read the library where the loader looks (the env variable first, as napi-rs does)
    writeFileSync(
      join(root, 'check.js'),
      `const fs = require('fs'), path = require('path'), crypto = require('crypto');
const go = process.argv[2];
if (go) while (!fs.existsSync(go)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
require('./dist/start.js');
const p = process.env.${ENV_VAR} || path.join(__dirname, ${JSON.stringify(LIB)});
const ok = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex') === ${JSON.stringify(libSha)};
console.log(JSON.stringify({ path: p, ok, env: process.env.${ENV_VAR} ?? null }));
`,
    );
    spawnSync('chmod', ['-R', 'a+rX', root]);
    return root;
  }

  function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
    delete env[ENV_VAR];
    if (!extra.QUARRY_NATIVE_DIR) delete env.QUARRY_NATIVE_DIR;
    return env;
  }

  const command = (args: string[]): [string, string[]] =>
    asRoot ? ['setpriv', ['--bounding-set=-dac_override,-dac_read_search,-fowner', '--inh-caps=-dac_override,-dac_read_search,-fowner', process.execPath, ...args]] : [process.execPath, args];

  function parse(status: number | null, stdout: string, stderr: string): Start {
    const line = stdout.trim().split('\n').pop();
    return { status: status ?? -1, stdout, stderr, seen: status === 0 && line ? JSON.parse(line) : undefined };
  }

  function start(root: string, env = childEnv()): Start {
    const [cmd, args] = command([join(root, 'check.js')]);
    const r = spawnSync(cmd, args, { env, encoding: 'utf8', timeout: 60_000 });
    return parse(r.status, r.stdout, r.stderr);
  }

  function startAsync(root: string, go: string, env = childEnv()): Promise<Start> {
    const [cmd, args] = command([join(root, 'check.js'), go]);
    return new Promise((resolve) => {
      const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve(parse(code, stdout, stderr)));
    });
  }

  const leftovers = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

  it('brotli makes the test library much smaller (the packed copy is what ships)', () => {
    assert.ok(packed.length < lib.length / 4, `${packed.length} vs ${lib.length}`);
  });

  it('a development checkout (no manifest beside the bundle) does nothing', () => {
    const root = makePackage('dev');
    removeDir(join(root, 'dist', 'packed-natives.json'));
    const r = start(root);
    assert.equal(r.status, 1, 'no library is there, so the check itself fails to read it');
    assert.equal(r.stderr.includes('quarry:'), false, r.stderr);
    assert.equal(existsSync(join(root, LIB)), false);
  });

  it('the first start unpacks the library in place, checked and executable; the second finds it and writes nothing', () => {
    const root = makePackage('first');
    const first = start(root);
    assert.equal(first.status, 0, first.stderr);
    assert.deepEqual(first.seen, { path: join(root, LIB), ok: true, env: null });
    assert.match(first.stderr, /quarry: first start: unpacked node_modules\/@fake\/native-linux-x64\/native\.linux-x64\.node \(13 MB, sha256 checked\)/);
    assert.ok(statSync(join(root, LIB)).mode & 0o111, 'executable like the file npm installs');
    assert.deepEqual(leftovers(join(root, LIB, '..')), []);
    const before = statSync(join(root, LIB));
    const second = start(root);
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.stderr, '', 'no second unpack');
    const after = statSync(join(root, LIB));
    assert.equal(after.ino, before.ino);
    assert.equal(after.mtimeMs, before.mtimeMs);
  });

  it('six processes starting at once each load a whole library, and no temp file is left', async () => {
    const root = makePackage('concurrent');
    const go = join(work, 'go-concurrent');
    const starts = Array.from({ length: 6 }, () => startAsync(root, go));
    await new Promise((r) => setTimeout(r, 1500)); // all six are waiting at the line
    writeFileSync(go, '');
    const results = await Promise.all(starts);
    for (const r of results) {
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(r.seen, { path: join(root, LIB), ok: true, env: null });
    }
    const unpackers = results.filter((r) => /first start: unpacked/.test(r.stderr)).length;
    // they really raced: more than one decompressed and renamed its own temp file onto the same destination
    assert.ok(unpackers >= 2, `${unpackers} of 6 unpacked`);
    assert.equal(sha256(readFileSync(join(root, LIB))), libSha);
    assert.deepEqual(leftovers(join(root, LIB, '..')), []);
  });

  it('a checksum mismatch stops the start with an error naming the file and the fix, and writes nothing', () => {
    const root = makePackage('mismatch', { sha256: '0'.repeat(64) });
    const r = start(root);
    assert.equal(r.status, 1);
    assert.ok(r.stderr.includes(join(root, `${LIB}.br`)), r.stderr);
    assert.match(r.stderr, /is damaged: it unpacks to \d+ bytes with sha256 [0-9a-f]{64}, not the \d+ bytes with sha256 0{64} recorded when the package was built/);
    assert.match(r.stderr, /Fix: reinstall the Quarry extension/);
    assert.equal(existsSync(join(root, LIB)), false);
    assert.deepEqual(leftovers(join(root, LIB, '..')), []);
  });

  it('a truncated packed copy is reported as damaged (it does not decompress)', () => {
    const root = makePackage('truncated', {}, packed.subarray(0, packed.length >> 1));
    const r = start(root);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /native\.linux-x64\.node\.br is damaged: it does not decompress .*Fix: reinstall/);
    assert.equal(existsSync(join(root, LIB)), false);
  });

  it('a read-only package unpacks into the fallback folder and points the loader there; the next start reuses it', () => {
    const root = makePackage('readonly');
    spawnSync('chmod', ['-R', 'a-w', root]);
    const fallback = join(work, 'native-cache');
    mkdirSync(fallback, { mode: 0o777 });
    chmodSync(fallback, 0o777);
    const env = childEnv({ QUARRY_NATIVE_DIR: fallback });
    const first = start(root, env);
    assert.equal(first.status, 0, first.stderr);
    const expected = join(fallback, libSha.slice(0, 16), 'native.linux-x64.node');
    assert.deepEqual(first.seen, { path: expected, ok: true, env: expected });
    assert.match(first.stderr, new RegExp(`unpacked .* to ${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} in`));
    assert.equal(existsSync(join(root, LIB)), false);
    const second = start(root, env);
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.stderr, '');
    assert.deepEqual(second.seen, { path: expected, ok: true, env: expected });
  });

  it('a read-only package with no writable fallback stops with the cause and the fix', () => {
    const root = makePackage('nowhere');
    const ro = join(work, 'ro');
    for (const d of ['native', 'home', 'cache', 'tmp']) mkdirSync(join(ro, d), { recursive: true });
    spawnSync('chmod', ['-R', 'a-w', root, ro]);
    const env = childEnv({ QUARRY_NATIVE_DIR: join(ro, 'native'), HOME: join(ro, 'home'), XDG_CACHE_HOME: join(ro, 'cache'), TMPDIR: join(ro, 'tmp') });
    const r = start(root, env);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /cannot unpack node_modules\/@fake\/native-linux-x64\/native\.linux-x64\.node\.br \(13 MB, shipped compressed\) on first start: no folder could be written/);
    for (const d of [join(root, LIB, '..'), join(ro, 'native'), join(ro, 'cache'), join(ro, 'tmp')]) assert.ok(r.stderr.includes(d), `names ${d}: ${r.stderr}`);
    assert.match(r.stderr, /\((EACCES|EROFS|EPERM)\)/);
    assert.match(r.stderr, /Fix: start Quarry once as a user who can write .*--version.*or set QUARRY_NATIVE_DIR to a writable folder/);
  });

  it("LanceDB's loader loads the library named by NAPI_RS_NATIVE_LIBRARY_PATH instead of its own package (the fallback relies on it)", () => {
    const nm = join(REPO_ROOT, 'node_modules', '@lancedb');
    const pkg = readdirSync(nm).find((d) => d.startsWith('lancedb-') && readdirSync(join(nm, d)).some((f) => f.endsWith('.node')));
    // LanceDB is a dependency: its platform package with the native library is always installed by `npm ci`
    assert.ok(pkg, `no @lancedb/lancedb-<platform> package with a .node library under ${nm}: run \`npm ci\``);
    const real = join(nm, pkg, readdirSync(join(nm, pkg)).find((f) => f.endsWith('.node'))!);
    const elsewhere = join(work, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(real, join(elsewhere, 'lancedb.node'));
    const load = (path: string) =>
      spawnSync(process.execPath, ['-e', "require('@lancedb/lancedb'); console.log('loaded')"], { cwd: REPO_ROOT, env: { ...process.env, [ENV_VAR]: path }, encoding: 'utf8', timeout: 120_000 });
    const missing = load(join(elsewhere, 'missing.node'));
    assert.notEqual(missing.status, 0, 'a wrong path fails: the variable is what the loader used');
    assert.match(missing.stderr, /Cannot find native binding|missing\.node/);
    const found = load(join(elsewhere, 'lancedb.node'));
    assert.equal(found.status, 0, found.stderr);
    assert.match(found.stdout, /loaded/);
  });
});
