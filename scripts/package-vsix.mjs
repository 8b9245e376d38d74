// Platform-specific .vsix: `npm run package [-- --target T] [-- --check]`.
//
// The extension runs its language server from the bundled node_modules, and three of those carry native code built
// per platform: @lancedb/lancedb (one optional package per platform, e.g. @lancedb/lancedb-linux-x64-gnu),
// onnxruntime-node (binaries for every platform in one package) and sharp (@img/sharp-<platform>, used by
// @huggingface/transformers for the ONNX embedding provider). npm installs only the current platform's optional
// packages, so a .vsix built here works on this platform only: this script builds it for one target (default: this
// machine's), refuses when that target's LanceDB binary is not installed, and leaves out what the target cannot use
// (other platforms' onnxruntime binaries, onnxruntime-web which only browsers load, pino's 400 MB of test binaries).
// Build one .vsix per target on a machine of that platform (`npm ci && npm run package`), or install that target's
// optional packages first. --check unpacks the result and runs its CLI (index + search of test/fixtures/polyglot) with
// the packaged node_modules alone; only meaningful for this machine's target.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const NM = join(ROOT, 'node_modules');
const argv = process.argv.slice(2);
const opt = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const say = (...a) => console.log('[package]', ...a);
const fail = (msg) => {
  console.error(`[package] ${msg}`);
  process.exit(1);
};

// vsce target -> the native pieces it needs. LanceDB 0.39 ships no Intel macOS binary (no darwin-x64 target).
const TARGETS = {
  'linux-x64': { lancedb: 'lancedb-linux-x64-gnu', ort: 'linux/x64', sharp: ['sharp-linux-x64', 'sharp-libvips-linux-x64'] },
  'linux-arm64': { lancedb: 'lancedb-linux-arm64-gnu', ort: 'linux/arm64', sharp: ['sharp-linux-arm64', 'sharp-libvips-linux-arm64'] },
  'alpine-x64': { lancedb: 'lancedb-linux-x64-musl', ort: 'linux/x64', sharp: ['sharp-linuxmusl-x64', 'sharp-libvips-linuxmusl-x64'] },
  'alpine-arm64': { lancedb: 'lancedb-linux-arm64-musl', ort: 'linux/arm64', sharp: ['sharp-linuxmusl-arm64', 'sharp-libvips-linuxmusl-arm64'] },
  'darwin-arm64': { lancedb: 'lancedb-darwin-arm64', ort: 'darwin/arm64', sharp: ['sharp-darwin-arm64', 'sharp-libvips-darwin-arm64'] },
  'win32-x64': { lancedb: 'lancedb-win32-x64-msvc', ort: 'win32/x64', sharp: ['sharp-win32-x64'] },
  'win32-arm64': { lancedb: 'lancedb-win32-arm64-msvc', ort: 'win32/arm64', sharp: ['sharp-win32-arm64'] },
};

function hostTarget() {
  const musl = process.platform === 'linux' && !process.report?.getReport()?.header?.glibcVersionRuntime;
  const os = process.platform === 'linux' && musl ? 'alpine' : process.platform;
  return `${os}-${process.arch}`;
}

const target = opt('--target') ?? hostTarget();
const spec = TARGETS[target];
if (!spec) fail(`no .vsix for target "${target}": supported ${Object.keys(TARGETS).join(', ')} (LanceDB has no darwin-x64 binary)`);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const out = opt('--out') ?? join(ROOT, `${pkg.name}-${target}-${pkg.version}.vsix`);
const vsce = join(ROOT, 'test', 'e2e', 'editor', 'node_modules', '.bin', 'vsce');
if (!existsSync(vsce)) fail('vsce is installed with the end-to-end editor: npm run test:e2e:install -- --no-apt');

const lancedbDir = join(NM, '@lancedb', spec.lancedb);
if (!existsSync(lancedbDir)) {
  const installed = readdirSync(join(NM, '@lancedb')).filter((d) => d.startsWith('lancedb-'));
  fail(
    `node_modules has no @lancedb/${spec.lancedb} (installed: ${installed.join(', ') || 'none'}): the ${target} .vsix would not load LanceDB there. ` +
      `Build it on a ${target} machine (npm ci && npm run package), or add the package for that platform first ` +
      `(npm install --no-save --force @lancedb/${spec.lancedb}@${JSON.parse(readFileSync(join(NM, '@lancedb', 'lancedb', 'package.json'), 'utf8')).version}).`,
  );
}
const missingSharp = spec.sharp.filter((p) => !existsSync(join(NM, '@img', p)));
if (missingSharp.length) say(`warning: no ${missingSharp.map((p) => `@img/${p}`).join(', ')}: the ONNX embedding provider will not load on ${target} (the default quarry-code model does not need it)`);

// What the target cannot use, relative to the repo root.
const leaveOut = new Set(['node_modules/onnxruntime-web', 'node_modules/pino/test']);
for (const d of readdirSync(join(NM, '@lancedb'))) if (d.startsWith('lancedb-') && d !== spec.lancedb) leaveOut.add(`node_modules/@lancedb/${d}`);
if (existsSync(join(NM, '@img'))) for (const d of readdirSync(join(NM, '@img'))) if (d.startsWith('sharp-') && !spec.sharp.includes(d)) leaveOut.add(`node_modules/@img/${d}`);
const ortBin = join(NM, 'onnxruntime-node', 'bin');
if (existsSync(ortBin)) {
  for (const napi of readdirSync(ortBin)) {
    for (const os of readdirSync(join(ortBin, napi))) {
      for (const arch of readdirSync(join(ortBin, napi, os))) {
        if (`${os}/${arch}` !== spec.ort) leaveOut.add(`node_modules/onnxruntime-node/bin/${napi}/${os}/${arch}`);
      }
    }
  }
}

// vsce keeps a file matched by ANY "!pattern" whatever the order, so "!node_modules/**" cannot be narrowed by later
// lines, and it matches every file against every pattern, so the re-includes must be few: per folder with something
// left out beneath it, its files ("dir/*"), its clean subfolders in one extglob ("dir/!(a|b)/**"), then the rest.
function includes(rel) {
  const dirty = readdirSync(join(ROOT, rel)).filter((c) => [...leaveOut].some((p) => p === `${rel}/${c}` || p.startsWith(`${rel}/${c}/`)));
  const out = [`!${rel}/*`, dirty.length ? `!${rel}/!(${dirty.join('|')})/**` : `!${rel}/**`];
  for (const c of dirty) if (!leaveOut.has(`${rel}/${c}`)) out.push(...includes(`${rel}/${c}`));
  return out;
}
const base = readFileSync(join(ROOT, '.vscodeignore'), 'utf8').split('\n').filter((l) => l.trim() && l.trim() !== '!node_modules/**');
const ignoreFile = join(mkdtempSync(join(tmpdir(), 'quarry-vscodeignore-')), '.vscodeignore');
writeFileSync(ignoreFile, [...base, ...includes('node_modules')].join('\n') + '\n');

if (argv.includes('--dry-run')) {
  // The files that would go in, with the generated ignore file; nothing is built or packed.
  console.log(readFileSync(ignoreFile, 'utf8'));
  const ls = spawnSync(vsce, ['ls', '--ignoreFile', ignoreFile], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 });
  rmSync(dirname(ignoreFile), { recursive: true, force: true });
  const files = ls.stdout.split('\n').filter(Boolean);
  const bytes = files.reduce((n, f) => n + (existsSync(join(ROOT, f)) ? statSync(join(ROOT, f)).size : 0), 0);
  say(`${files.length} files, ${(bytes / 1e6).toFixed(0)} MB before compression (vsce ls exit ${ls.status})`);
  process.exit(ls.status ?? 1);
}
const t0 = Date.now();
say(`building, then packaging ${out} for ${target}`);
execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
const r = spawnSync(vsce, ['package', '--no-rewrite-relative-links', '--allow-missing-repository', '--skip-license', '--target', target, '--ignoreFile', ignoreFile, '--out', out], {
  cwd: ROOT,
  stdio: 'inherit',
});
rmSync(dirname(ignoreFile), { recursive: true, force: true });
if (r.status !== 0) fail(`vsce package failed (exit ${r.status ?? r.signal})`);
say(`${out}: ${(statSync(out).size / 1e6).toFixed(0)} MB in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

if (argv.includes('--check')) {
  if (target !== hostTarget()) fail(`--check runs the packaged CLI, so it needs a ${target} machine (this is ${hostTarget()})`);
  const dir = mkdtempSync(join(tmpdir(), 'quarry-vsix-check-'));
  try {
    const unzip = spawnSync('unzip', ['-q', out, 'extension/*', '-d', dir], { stdio: 'inherit' });
    if (unzip.error || unzip.status !== 0) execFileSync('python3', ['-m', 'zipfile', '-e', out, dir], { stdio: 'inherit' });
    const ext = join(dir, 'extension');
    const ws = join(dir, 'ws');
    cpSync(join(ROOT, 'test', 'fixtures', 'polyglot'), ws, { recursive: true });
    const env = { ...process.env, NODE_PATH: '', LANCEDB_LOG: 'error', QUARRY_CONFIG_HOME: join(dir, 'no-user-config') };
    const cli = (args) => execFileSync(process.execPath, [join(ext, 'dist', 'cli.js'), ...args], { cwd: dir, env, encoding: 'utf8' });
    cli(['index', '--project', ws, '--quiet']);
    const res = JSON.parse(cli(['search', 'ChunkStore', '--project', ws, '--limit', '1', '--output-format', 'json']));
    if (res.matches?.[0]?.file?.path !== 'ios/ChunkStore.swift') fail(`the packaged CLI did not find ChunkStore: ${JSON.stringify(res.matches?.[0] ?? res).slice(0, 300)}`);
    execFileSync(process.execPath, ['-e', "require('@lancedb/lancedb'); require('onnxruntime-node'); require('@huggingface/transformers')"], { cwd: ext, env, stdio: 'inherit' });
    say(`check: the packaged CLI indexed and searched the fixture; LanceDB, onnxruntime-node and transformers load from the .vsix (${ext})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
