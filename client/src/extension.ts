/**
 * Quarry's VS Code client: a language client for `quarry lsp --stdio` (the bundled CLI) plus the UI on top of
 * its custom requests: Find Code (QuickPick), the Code Search results view, a status bar item, index status,
 * reindexing and a results document.
 *
 * Activation is cheap: the server starts in the background and nothing here waits on it.
 */
import { McpRegistration, registerMcp } from './mcp';
import * as vscode from 'vscode';
import { QuarryClient } from './client';
import { findCode } from './findCode';
import { ResultsView, ResultNode, locationOfNode } from './resultsView';
import { ResultsDocuments, RESULTS_LANGUAGE, RESULTS_SCHEME } from './resultsDocument';
import { RESTART_KEYS, readSettings } from './settings';
import { StatusBar } from './statusBar';
import type { FindParams, FindResult, FolderStatus, ReindexResult, StatusResult } from './types';

/** What `activate()` returns: used by the in-editor tests and by other extensions. */
export interface QuarryApi {
  /** Resolves once the language server runs. */
  ready(): Promise<void>;
  find(query: string, options?: Omit<FindParams, 'query'>): Promise<FindResult>;
  status(): Promise<StatusResult>;
  reindex(full?: boolean): Promise<ReindexResult>;
  /** The last search shown in the results view. */
  lastResults(): { query: string; result: FindResult | undefined };
  /** The MCP server definitions offered to Copilot (undefined without the MCP definition API). */
  mcpDefinitions(): ReturnType<McpRegistration['definitions']>;
}

let quarry: QuarryClient | undefined;

export function activate(context: vscode.ExtensionContext): QuarryApi {
  const output = vscode.window.createOutputChannel('Quarry', { log: true });
  const client = new QuarryClient(context, output);
  quarry = client;
  const statusBar = new StatusBar();
  const view = new ResultsView(context.workspaceState);
  const docs = new ResultsDocuments();
  context.subscriptions.push(output, client, statusBar, view, docs);

  const tree = vscode.window.createTreeView('quarry.results', { treeDataProvider: view, showCollapseAll: true });
  context.subscriptions.push(tree);
  const showInView = (query: string, result: FindResult) => {
    view.set(query, result);
    tree.message = `${result.total_results} result(s) for "${query}"`;
    void vscode.commands.executeCommand('quarry.results.focus').then(undefined, () => undefined);
  };
  const hooks = {
    showInView,
    remember: (query: string, result: FindResult) => {
      view.query = query;
      view.result = result;
      void context.workspaceState.update('quarry.lastQuery', query);
    },
    warnings: (w: string[]) => statusBar.setWarnings(w),
  };

  client.onStatusChanged((p) => statusBar.update(p), undefined, context.subscriptions);
  client.onDegraded(
    (why) => {
      statusBar.setServerWarning(`lexical only: ${why}`);
      void vscode.window.showWarningMessage(`Quarry: ${why}`);
    },
    undefined,
    context.subscriptions,
  );

  const haveFolder = (): boolean => {
    if (vscode.workspace.workspaceFolders?.length) return true;
    void vscode.window.showWarningMessage('Quarry: open a folder first; there is no workspace to search or index.');
    return false;
  };

  const reindex = async (full: boolean) => {
    if (!haveFolder()) return;
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: full ? 'Quarry: rebuilding the index' : 'Quarry: updating the index', cancellable: true },
      (_p, token) => client.reindex({ full }, token),
    );
    const failed = result.folders.filter((f) => f.error);
    for (const f of result.folders) output.appendLine(`Quarry: ${f.uri}: ${f.error ? `failed: ${f.error}` : `${f.filesIndexed ?? 0} file(s) indexed, ${f.filesRemoved ?? 0} removed, ${f.totalChunks ?? 0} chunks (${f.durationMs ?? 0} ms)`}`);
    if (failed.length) {
      output.show(true);
      void vscode.window.showErrorMessage(`Quarry: indexing failed for ${failed.map((f) => f.uri).join(', ')}: ${failed[0].error}`);
    } else {
      const chunks = result.folders.reduce((n, f) => n + (f.totalChunks ?? 0), 0);
      void vscode.window.showInformationMessage(`Quarry: index ${full ? 'rebuilt' : 'updated'} (${chunks} chunks).`);
    }
  };

  const ownerLine = (o: FolderStatus['owner']): string => {
    if (!o) return 'index owner: none (the next index run takes it)';
    if (o.thisProcess) return 'index kept fresh by this editor';
    const who = o.kind === 'lsp' ? 'another language server' : o.kind === 'serve' ? '`quarry serve`' : '`quarry mcp`';
    return `index kept fresh by ${who} (pid ${o.pid}); this editor reads it`;
  };

  const showStatus = async () => {
    const s = await client.status();
    output.appendLine(`── Quarry index status (${new Date().toLocaleString()}) ──`);
    for (const f of s.folders) {
      const st = f.status;
      output.appendLine(`${f.name} (${f.root}): ${f.state}${f.searchable ? ', searchable' : ''}${f.error ? `, error: ${f.error}` : ''}`);
      if (st) {
        output.appendLine(`  ${st.files} files, ${st.chunks} chunks, ${(st.indexSizeBytes / 1048576).toFixed(1)} MB at ${st.indexDir}`);
        output.appendLine(`  last indexed: ${st.lastIndexed ?? 'never'}${st.lastDurationMs != null ? ` (${st.lastDurationMs} ms)` : ''}${st.indexing ? ' · an index run is in progress' : ''}`);
        const langs = Object.entries(st.chunksByLanguage).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`);
        if (langs.length) output.appendLine(`  languages: ${langs.join(', ')}`);
        for (const p of st.problems) output.appendLine(`  problem: ${p}`);
      }
      output.appendLine(`  ${ownerLine(f.owner)}`);
      if (f.mcp) output.appendLine(`  MCP (Streamable HTTP): ${f.mcp.url} (bearer token: run "Quarry: Copy MCP Config for Agents")`);
    }
    output.show(true);
    const items: vscode.QuickPickItem[] = s.folders.map((f) => ({
      label: `$(${f.state === 'error' ? 'error' : f.state === 'ready' ? 'check' : 'sync'}) ${f.name}`,
      description: `${f.state}${f.searchable ? ' · searchable' : ''}`,
      detail: f.status
        ? `${f.status.files} files · ${f.status.chunks} chunks · last indexed ${f.status.lastIndexed ?? 'never'} · ${ownerLine(f.owner)}${f.error ? ` · ${f.error}` : ''}`
        : (f.error ?? 'not open'),
    }));
    if (!items.length) items.push({ label: 'No workspace folder is open' });
    const reindexItem: vscode.QuickPickItem = { label: '$(refresh) Reindex Workspace' };
    const pick = await vscode.window.showQuickPick([...items, { label: '', kind: vscode.QuickPickItemKind.Separator }, reindexItem], { title: 'Quarry: Index Status' });
    if (pick === reindexItem) await reindex(false);
  };

  const openResults = async (query?: string, result?: FindResult) => {
    query ??= view.query;
    result ??= view.result;
    if (!result) {
      if (!query) {
        query = await vscode.window.showInputBox({ title: 'Quarry: Open Results in Editor', prompt: 'Search for' });
        if (!query) return;
      }
      const s = readSettings();
      result = await client.find({ query, limit: s.searchLimit, includeTests: s.includeTests, explain: true });
    }
    const uri = docs.add(query, result);
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== RESULTS_LANGUAGE) await vscode.languages.setTextDocumentLanguage(doc, RESULTS_LANGUAGE);
    await vscode.window.showTextDocument(doc, { preview: false });
  };

  const open = async (node: ResultNode | undefined, side = false) => {
    const loc = locationOfNode(node);
    if (!loc) return;
    if (node?.type === 'match') client.resultOpened(node.match);
    await vscode.window.showTextDocument(loc.uri, { preview: !side, selection: loc.range, viewColumn: side ? vscode.ViewColumn.Beside : undefined });
  };

  const guard =
    <A extends unknown[]>(fn: (...a: A) => unknown) =>
    async (...a: A) => {
      try {
        await fn(...a);
      } catch (e) {
        const msg = (e as Error)?.message ?? String(e);
        output.appendLine(`Quarry: ${msg}`);
        void vscode.window.showErrorMessage(msg.startsWith('Quarry') ? msg : `Quarry: ${msg}`);
      }
    };

  const mcp = registerMcp(context, client);
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(RESULTS_SCHEME, docs),
    vscode.languages.registerDocumentLinkProvider({ scheme: RESULTS_SCHEME }, docs),
    vscode.commands.registerCommand('quarry.findCode', (initial?: string) => {
      if (haveFolder()) findCode(client, hooks, typeof initial === 'string' ? initial : '');
    }),
    vscode.commands.registerCommand('quarry.indexWorkspace', guard(() => reindex(false))),
    vscode.commands.registerCommand('quarry.reindexWorkspace', guard(() => reindex(true))),
    vscode.commands.registerCommand('quarry.showStatus', guard(showStatus)),
    vscode.commands.registerCommand('quarry.openResultsInEditor', guard(() => openResults())),
    vscode.commands.registerCommand('quarry.restartServer', guard(async () => {
      statusBar.setServerWarning(undefined);
      await client.restart();
    })),
    vscode.commands.registerCommand('quarry.results.open', guard((n?: ResultNode) => open(n))),
    vscode.commands.registerCommand('quarry.results.openToSide', guard((n?: ResultNode) => open(n, true))),
    vscode.commands.registerCommand('quarry.results.copyPath', guard(async (n?: ResultNode) => {
      const loc = locationOfNode(n);
      if (!loc) return;
      const rel = vscode.workspace.asRelativePath(loc.uri, false);
      await vscode.env.clipboard.writeText(loc.range ? `${rel}:${loc.range.start.line + 1}` : rel);
    })),
    vscode.commands.registerCommand('quarry.results.searchAgain', () => {
      if (haveFolder()) findCode(client, hooks, view.query);
    }),
    vscode.commands.registerCommand('quarry.results.openInEditor', guard(() => openResults())),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (RESTART_KEYS.some((k) => e.affectsConfiguration(k)) && client.running) {
        output.appendLine('Quarry: settings changed; restarting the language server.');
        void client.restart().catch((err) => output.appendLine(`Quarry: restart failed: ${(err as Error).message}`));
      }
    }),
  );

  // Start the server in the background when a folder is open (activation never waits for it).
  let started: Promise<void> | undefined;
  const ensureStarted = (): Promise<void> => {
    started ??= client.start().then(
      () => undefined,
      (e) => {
        statusBar.starting((e as Error)?.message ?? String(e));
        started = undefined;
        throw e;
      },
    );
    return started;
  };
  if (vscode.workspace.workspaceFolders?.length) void ensureStarted().catch(() => undefined);

  const api: QuarryApi = {
    ready: ensureStarted,
    find: async (query, options) => {
      const s = readSettings();
      const result = await client.find({ limit: s.searchLimit, includeTests: s.includeTests, explain: true, ...options, query });
      view.set(query, result);
      return result;
    },
    status: () => client.status(),
    reindex: (full = false) => client.reindex({ full }),
    lastResults: () => ({ query: view.query, result: view.result }),
    mcpDefinitions: () => mcp.definitions(),
  };
  return api;
}

export async function deactivate(): Promise<void> {
  await quarry?.stop();
  quarry = undefined;
}
