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
import { OPEN_LINK_COMMAND, ResultsDocuments, RESULTS_LANGUAGE, RESULTS_SCHEME } from './resultsDocument';
import { disposeHighlight, openMatch } from './openMatch';
import { withoutModelIds } from './findCodeText';
import { testLog } from './testLog';
import { RESTART_KEYS, readSettings } from './settings';
import { StatusBar } from './statusBar';
import type { FindParams, FindResult, FolderStatus, ReindexResult, StatusResult } from '../../server/src/lsp/protocol';

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

  // Progress shows in the one status bar item (codeSearch/statusChanged), not in a notification: no toast while
  // the index is rebuilt, only when it failed.
  const reindex = async (full: boolean) => {
    if (!haveFolder()) return;
    statusBar.note(full ? 'rebuilding the index' : 'updating the index');
    const result = await client.reindex({ full });
    const failed = result.folders.filter((f) => f.error);
    for (const f of result.folders) output.appendLine(`Quarry: ${f.uri}: ${f.error ? `failed: ${f.error}` : `${f.filesIndexed ?? 0} file(s) indexed, ${f.filesRemoved ?? 0} removed, ${f.totalChunks ?? 0} chunks (${f.durationMs ?? 0} ms)`}`);
    if (failed.length) {
      statusBar.note(undefined);
      void vscode.window.showErrorMessage(`Quarry: indexing failed for ${failed.map((f) => f.uri).join(', ')}: ${failed[0].error}`, 'Show Log').then((a) => a && output.show(true));
    } else {
      const chunks = result.folders.reduce((n, f) => n + (f.totalChunks ?? 0), 0);
      statusBar.note(`index ${full ? 'rebuilt' : 'updated'} (${chunks} chunks)`, 4000);
    }
  };

  const ownerLine = (o: FolderStatus['owner']): string => {
    if (!o) return 'index owner: none (the next index run takes it)';
    if (o.thisProcess) return 'index kept fresh by this editor';
    const who = o.kind === 'lsp' ? 'another language server' : o.kind === 'serve' ? '`quarry serve`' : '`quarry mcp`';
    return `index kept fresh by ${who} (pid ${o.pid}); this editor reads it`;
  };

  /** The files the folder's last index run skipped: a summary row, then the notable ones by name (Enter opens one). */
  const SKIPPED_SHOWN = 10;
  const skippedItems = (f: FolderStatus): Array<vscode.QuickPickItem & { action?: () => unknown }> => {
    const sk = f.skipped;
    if (!sk || sk.total === 0) return [];
    const reasons = Object.entries(sk.byReason).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).map(([r, n]) => `${r} ${n}`);
    const rows: Array<vscode.QuickPickItem & { action?: () => unknown }> = [{ label: '$(blank) skipped files', description: `${sk.total}${reasons.length ? ` · ${reasons.join(', ')}` : ''}` }];
    const notable = sk.files.filter((x) => x.notable).slice(0, SKIPPED_SHOWN);
    for (const x of notable) {
      const uri = vscode.Uri.joinPath(vscode.Uri.parse(f.uri), ...x.path.split('/'));
      rows.push({ label: `$(blank) $(circle-slash) ${x.path}`, description: `${x.reason}${x.detail ? ` (${x.detail})` : ''}`, action: () => vscode.commands.executeCommand('vscode.open', uri) });
    }
    const more = sk.files.filter((x) => x.notable).length - notable.length;
    if (more > 0) rows.push({ label: '$(blank) …', description: `${more} more; \`quarry status\` in a terminal lists them` });
    return rows;
  };

  // The index status in a QuickPick that opens at once (busy until the server answers); never the Output panel.
  const showStatus = async () => {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { action?: () => unknown }>();
    qp.title = 'Quarry: Index Status';
    qp.placeholder = 'Index status of each workspace folder';
    qp.matchOnDescription = true;
    qp.matchOnDetail = true;
    qp.busy = true;
    qp.show();
    const actions = [
      { label: '$(refresh) Update Index', description: 'index changed files', action: () => vscode.commands.executeCommand('quarry.indexWorkspace') },
      { label: '$(database) Reindex Workspace', description: 'full rebuild', action: () => vscode.commands.executeCommand('quarry.reindexWorkspace') },
      { label: '$(output) Show Log', description: 'the Quarry output channel', action: () => output.show(true) },
    ];
    qp.onDidAccept(() => {
      const pick = qp.activeItems[0] as (vscode.QuickPickItem & { action?: () => unknown }) | undefined;
      qp.hide();
      void pick?.action?.();
    });
    qp.onDidHide(() => qp.dispose());
    let s: StatusResult;
    try {
      s = await client.status();
    } catch (e) {
      qp.busy = false;
      qp.items = [{ label: `$(error) ${(e as Error).message}` }, { label: '', kind: vscode.QuickPickItemKind.Separator }, ...actions];
      return;
    }
    const items: vscode.QuickPickItem[] = [];
    for (const f of s.folders) {
      const st = f.status;
      items.push({
        label: `$(${f.state === 'error' ? 'error' : f.state === 'ready' ? 'check' : 'sync'}) ${f.name}`,
        description: `${f.state}${f.searchable ? ' · searchable' : ''}`,
        detail: st
          ? `${st.files} files · ${st.chunks} chunks · ${(st.indexSizeBytes / 1048576).toFixed(1)} MB · last indexed ${st.lastIndexed ? new Date(st.lastIndexed).toLocaleString() : 'never'}${st.lastDurationMs != null ? ` in ${(st.lastDurationMs / 1000).toFixed(1)} s` : ''} · ${ownerLine(f.owner)}${f.error ? ` · ${f.error}` : ''}`
          : (f.error ?? 'not open'),
      });
      if (st) {
        const langs = Object.entries(st.chunksByLanguage).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`);
        if (langs.length) items.push({ label: `$(blank) languages`, description: langs.join(', ') });
        for (const p of st.problems) items.push({ label: '$(blank) $(warning) problem', description: withoutModelIds(p) });
        for (const n of st.notes ?? []) items.push({ label: '$(blank) $(info) note', description: withoutModelIds(n) });
      }
      items.push(...skippedItems(f));
      if (f.mcp) items.push({ label: '$(blank) MCP (Streamable HTTP)', description: `${f.mcp.url} · bearer token: "Quarry: Copy MCP Config for Agents"` });
    }
    if (!items.length) items.push({ label: 'No workspace folder is open' });
    qp.items = [...items, { label: 'actions', kind: vscode.QuickPickItemKind.Separator }, ...actions];
    qp.busy = false;
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

  // A match opens like Go to Symbol: the cursor on its name, nothing selected, the unit briefly highlighted.
  const open = async (node: ResultNode | undefined, side = false) => {
    if (node?.type === 'match') {
      client.resultOpened(node.match);
      await openMatch(node.match, { preview: !side, viewColumn: side ? vscode.ViewColumn.Beside : undefined });
      return;
    }
    const loc = locationOfNode(node);
    if (loc) await vscode.window.showTextDocument(loc.uri, { preview: !side, viewColumn: side ? vscode.ViewColumn.Beside : undefined });
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
    vscode.commands.registerCommand(OPEN_LINK_COMMAND, guard(async (doc?: number, index?: number) => {
      const m = typeof doc === 'number' && typeof index === 'number' ? docs.matchOf(doc, index) : undefined;
      testLog('open-link', { doc, index, found: m?.file.path ?? null });
      if (!m) return void vscode.window.showInformationMessage('Quarry: this results document is no longer available: search again.');
      client.resultOpened(m);
      const ed = await openMatch(m, { preview: false });
      testLog('open-link-opened', { path: ed.document.uri.path, line: ed.selection.active.line });
    })),
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
  disposeHighlight();
  await quarry?.stop();
  quarry = undefined;
}
