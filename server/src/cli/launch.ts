/**
 * `dist/cli.js`, the `quarry` command (scripts/build.mjs): a few lines that pick the bundle to load.
 *
 * - `quarry lsp [--stdio]` — how the VS Code client and every other editor start the language server — loads the
 *   language server's bundle (`dist/lsp.js`) and nothing else. Through the full command line (`dist/cli-main.js`), whose
 *   bundle holds the engine as well, a language server held the engine's code twice (issue 19: the CLI bundle's 4.7 MB
 *   of source text and its module state, about 8 MB of heap in a heap snapshot and 10–20 MB resident, for the whole
 *   life of the editor).
 * - Every other command (and `quarry lsp --help`) runs the full command line, `dist/cli-main.js` (`cli/main.ts`).
 *
 * Nothing here touches LanceDB: each bundle unpacks the native libraries itself, as its first import. LanceDB's native
 * log level is read when its library loads, that is while a bundle's imports run, before any of its own statements:
 * the quiet default (errors only; a user's LANCEDB_LOG wins) is set here, first.
 */
process.env.LANCEDB_LOG ??= 'error';

const args = process.argv.slice(2);

if (args[0] === 'lsp' && args.slice(1).every((a) => a === '--stdio')) {
  // the server owns the process from here; the protocol's `exit` ends it (vscode-languageclient adds its own --stdio)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./lsp.js') as { runStdioServer(): void }).runStdioServer();
} else {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./cli-main.js') as { main(argv: string[]): Promise<number> }).main(process.argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`Error: ${(e as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
