/**
 * `initialize` (folders from `workspaceFolders`, `rootUri` or `rootPath`, their engines opened and warmed up, at most
 * 1.5 s; the server's capabilities), `initialized`
 * (file-watcher registration, folder-change subscription, every folder opened) and `shutdown` (every folder closed).
 */
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DidChangeWatchedFilesNotification, InitializeParams, InitializeResult, TextDocumentSyncKind } from 'vscode-languageserver';
import type { ServerContext } from '../context';
import { makeFolder, uriToPath } from '../folder';
import { closeFolder, openEngine, openFolder, workspaceFoldersChanged } from '../folderLifecycle';
import type { QuarryInitializationOptions } from '../protocol';

/** How long `initialize` waits for the folders' engines to open and warm up (a bound; ~0.4 s on a 2k-chunk index). */
const WARM_WAIT_MS = 1500;

export async function initialize(ctx: ServerContext, params: InitializeParams): Promise<InitializeResult> {
  ctx.options = (params.initializationOptions ?? {}) as QuarryInitializationOptions;
  ctx.progressSupported = params.capabilities.window?.workDoneProgress === true;
  ctx.watchRegistration = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
  const given = params.workspaceFolders?.length
    ? params.workspaceFolders.map((w) => ({ uri: w.uri, name: w.name }))
    : params.rootUri
      ? [{ uri: params.rootUri, name: basename(uriToPath(params.rootUri) ?? params.rootUri) }]
      : params.rootPath
        ? [{ uri: pathToFileURL(params.rootPath).href, name: basename(params.rootPath) }]
        : [];
  for (const g of given) {
    const f = makeFolder(g.uri, g.name);
    if (f) ctx.folders.push(f);
  }
  // The folders' engines open and existing indexes warm up before the answer (bounded), so that a search sent right
  // after the handshake finds the models and segments loaded (issue 21). Nothing here talks to the client; the rest of
  // each folder's start (ownership, MCP endpoint, index run, status) follows `initialized`.
  if (ctx.folders.length) {
    const t0 = Date.now();
    const warm = Promise.all(ctx.folders.map((f) => openEngine(ctx, f).then(() => f.warming).catch(() => undefined))).then(() => true);
    const done = await Promise.race([warm, new Promise<boolean>((r) => setTimeout(() => r(false), WARM_WAIT_MS).unref())]);
    const what = ctx.folders.some((f) => f.warming) ? 'opened and warmed up' : 'opened (no index to warm up yet)';
    ctx.log(done ? `Quarry: ${what} in ${Date.now() - t0} ms` : `Quarry: still opening and warming up after ${WARM_WAIT_MS} ms: answering meanwhile`);
  }
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
      workspaceSymbolProvider: true,
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    },
    serverInfo: { name: 'quarry' },
  };
}

export function initialized(ctx: ServerContext): void {
  const { connection } = ctx;
  if (ctx.watchRegistration) {
    void connection.client
      .register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/*' }] })
      .catch((e) => ctx.log(`Quarry: cannot register file watchers: ${(e as Error).message}`));
  }
  try {
    connection.workspace.onDidChangeWorkspaceFolders((ev) => workspaceFoldersChanged(ctx, ev));
  } catch {
    /* the client does not send folder changes */
  }
  for (const f of ctx.folders) void openFolder(ctx, f);
}

export async function shutdown(ctx: ServerContext): Promise<void> {
  ctx.shuttingDown = true;
  await Promise.all(ctx.folders.map((f) => closeFolder(ctx, f)));
}
