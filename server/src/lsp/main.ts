/**
 * Entry of the language server over stdio: `quarry lsp --stdio` calls `runStdioServer()`; tests run this file
 * directly (`node --import tsx server/src/lsp/main.ts --stdio`).
 *
 * stdout carries the protocol only: LanceDB's native logger is kept to errors (on stderr) and console output is
 * routed to stderr before anything else loads.
 */
process.env.LANCEDB_LOG ??= 'error';

// First: a packaged extension unpacks its compressed native libraries before anything requires LanceDB.
import '../startup/unpackNatives';
import '../startup/heapPolicy';
import { inspect } from 'node:util';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startLanguageServer } from './server';

/** Sends console.log/info/debug/warn to stderr so that nothing but the protocol reaches stdout. */
function keepStdoutClean(): void {
  const toStderr = (...args: unknown[]) => {
    process.stderr.write(args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' ') + '\n');
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
}

/** Starts the Quarry language server on stdin/stdout; the process exits on the protocol's `exit`. */
export function runStdioServer(): void {
  keepStdoutClean();
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  process.on('unhandledRejection', (e) => process.stderr.write(`quarry-lsp: unhandled rejection: ${(e as Error)?.stack ?? String(e)}\n`));
  process.on('uncaughtException', (e) => process.stderr.write(`quarry-lsp: uncaught exception: ${e?.stack ?? String(e)}\n`));
  startLanguageServer(connection);
  connection.listen();
}

// Run directly (tests, `node dist/lsp.js --stdio`), never when bundled into another entry such as the CLI.
if (require.main === module && /[\\/]lsp[\\/]main\.[cm]?[jt]s$|[\\/]lsp\.[cm]?js$/.test(process.argv[1] ?? '')) runStdioServer();
