/**
 * Quarry's language server: the engine behind LSP. This file is the wiring table — every method the server answers,
 * and the module that answers it; the behaviour lives in those modules.
 *
 * - One Engine per workspace folder (multi-root), opened (and an existing index warmed up) during `initialize`, the
 *   folder started on `initialized`: ownership, MCP endpoint, then an index run reported with
 *   work-done progress (`window/workDoneProgress/create` + `$/progress`) and `codeSearch/statusChanged`
 *   (folderLifecycle.ts, indexRuns.ts). Searches run as soon as the lexical phase is committed (the dense phase
 *   continues in the background).
 * - Requests (handlers/): each honours `$/cancelRequest` (checked between steps → RequestCancelled); engine errors
 *   become ResponseErrors with their message (requestGuard.ts).
 * - Freshness: watched-file events are batched (~150 ms, a branch switch is one batch) into `updateFiles`
 *   (fileWatcher.ts); open buffers are pushed with `setBuffer` (debounced ~200 ms per document, null on close) and
 *   saves re-index the file (documentSync.ts); a `.gitignore` change runs an incremental index of the folder. Writes
 *   are serialized per folder (writeQueue.ts).
 * - Ownership (engine/indexer/owner.ts): the server claims each folder's index (`.quarry/owner.json`, kind `lsp`,
 *   outranking `quarry serve` and `quarry mcp`). When another language server owns it, this one only reads it (no
 *   index run on start, no file-watch or buffer writes; explicit reindex requests still run, under the lock) and takes
 *   over when that owner exits. An index run that finds the lock held by a displaced owner waits for it.
 * - MCP: each folder's engine is also served as MCP over Streamable HTTP on loopback (mcp/http.ts: bearer token per
 *   server start, Host/Origin checks, size and concurrency limits), announced with `codeSearch/mcpEndpoints` and in
 *   `codeSearch/status`, so that the editor can hand it to its agents; `initializationOptions.mcp.http: false` is off.
 * - Method names and payloads shared with clients: protocol.ts.
 *
 * Nothing here writes to stdout: logs go to `connection.console` (the client's output) or stderr.
 */
import { Connection, FileChangeType, WorkspaceSymbolParams } from 'vscode-languageserver';
import { createServerContext } from './context';
import { bufferChanged, bufferClosed, bufferOpened, bufferSaved } from './documentSync';
import { watchedFilesChanged } from './fileWatcher';
import { findCode } from './handlers/find';
import { folderStatus, reindex } from './handlers/indexStatus';
import { initialize, initialized, shutdown } from './handlers/lifecycle';
import { resultOpened } from './handlers/memory';
import { workspaceSymbols } from './handlers/symbols';
import { FIND_METHOD, FindParams, REINDEX_METHOD, ReindexParams, RESULT_OPENED_NOTIFICATION, ResultOpenedParams, STATUS_METHOD } from './protocol';
import { guarded } from './requestGuard';

export function startLanguageServer(connection: Connection): void {
  const ctx = createServerContext(connection);
  const { documents } = ctx;

  // Lifecycle                              (`workspace/didChangeWorkspaceFolders` is subscribed on `initialized`)
  connection.onInitialize((params) => initialize(ctx, params));
  connection.onInitialized(() => initialized(ctx));
  connection.onShutdown(() => shutdown(ctx));

  // Requests (cancellable; failures answered as ResponseErrors)
  connection.onRequest(FIND_METHOD, guarded((params: FindParams, token) => findCode(ctx, params, token)));
  connection.onRequest(STATUS_METHOD, guarded((params: unknown, token) => folderStatus(ctx, params, token)));
  connection.onRequest(REINDEX_METHOD, guarded((params: ReindexParams | undefined, token) => reindex(ctx, params, token)));
  connection.onWorkspaceSymbol(guarded((params: WorkspaceSymbolParams, token) => workspaceSymbols(ctx, params, token)));

  // Notifications from the client
  connection.onNotification(RESULT_OPENED_NOTIFICATION, (params: ResultOpenedParams) => resultOpened(ctx, params));
  connection.onDidChangeWatchedFiles((params) => watchedFilesChanged(ctx, params));

  // Text document sync (`textDocument/didOpen`, `didChange`, `didClose`, `didSave` through TextDocuments)
  documents.onDidOpen((ev) => bufferOpened(ctx, ev));
  documents.onDidChangeContent((ev) => bufferChanged(ctx, ev));
  documents.onDidClose((ev) => bufferClosed(ctx, ev));
  documents.onDidSave((ev) => bufferSaved(ctx, ev));
  documents.listen(connection);
}

export { symbolKindOf } from './handlers/symbols';

/** FileChangeType re-exported for clients that build watch events. */
export { FileChangeType };
