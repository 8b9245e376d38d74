/**
 * `initialize` (folders from `workspaceFolders`, `rootUri` or `rootPath`; the server's capabilities), `initialized`
 * (file-watcher registration, folder-change subscription, every folder opened) and `shutdown` (every folder closed).
 */
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DidChangeWatchedFilesNotification, InitializeParams, InitializeResult, TextDocumentSyncKind } from 'vscode-languageserver';
import type { ServerContext } from '../context';
import { makeFolder, uriToPath } from '../folder';
import { closeFolder, openFolder, workspaceFoldersChanged } from '../folderLifecycle';
import type { QuarryInitializationOptions } from '../protocol';

export function initialize(ctx: ServerContext, params: InitializeParams): InitializeResult {
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
