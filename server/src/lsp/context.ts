/**
 * The state one language server shares between its handlers: the connection, the open workspace folders, what the
 * client said at `initialize`, and the server-wide MCP token. Created once per `startLanguageServer`.
 */
import { randomBytes } from 'node:crypto';
import { Connection, TextDocuments } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Folder } from './folder';
import type { QuarryInitializationOptions } from './protocol';

export interface ServerContext {
  readonly connection: Connection;
  /** The workspace folders, in the order they were opened. */
  readonly folders: Folder[];
  /** Open text documents (unsaved buffers). */
  readonly documents: TextDocuments<TextDocument>;
  /** `initializationOptions` from `initialize`. */
  options: QuarryInitializationOptions;
  /** The client accepts `window/workDoneProgress/create`. */
  progressSupported: boolean;
  /** The client lets the server register file watchers. */
  watchRegistration: boolean;
  /** `shutdown` was received: no new index runs. */
  shuttingDown: boolean;
  /** One bearer token for every MCP endpoint of this server start. */
  readonly mcpToken: string;
  /** The first folder gets the configured MCP port; later ones any free port. */
  mcpPortUsed: boolean;
  /** To the client's output (stderr when the connection cannot take it); never stdout. */
  log(msg: string): void;
}

export function createServerContext(connection: Connection): ServerContext {
  return {
    connection,
    folders: [],
    documents: new TextDocuments(TextDocument),
    options: {},
    progressSupported: false,
    watchRegistration: false,
    shuttingDown: false,
    mcpToken: randomBytes(32).toString('base64url'),
    mcpPortUsed: false,
    log: (msg: string) => {
      try {
        connection.console.log(msg);
      } catch {
        process.stderr.write(msg + '\n');
      }
    },
  };
}
