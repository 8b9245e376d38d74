/**
 * In-editor tests: run inside the extension host with the fixture workspace (a copy of test/fixtures/polyglot)
 * open. They use the real commands and the API returned by `activate()`.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

interface Api {
  ready(): Promise<void>;
  find(query: string, options?: Record<string, unknown>): Promise<{ matches: Array<{ file: { path: string }; content: { symbol: string; kind: string }; span: [number, number]; explanation: string[] }>; warnings: string[] }>;
  status(): Promise<{
    folders: Array<{
      name: string;
      state: string;
      searchable: boolean;
      status: { files: number; chunks: number } | null;
      mcp?: { url: string; token: string } | null;
      owner?: { kind: string; pid: number; thisProcess: boolean } | null;
    }>;
  }>;
  reindex(full?: boolean): Promise<{ folders: Array<{ error?: string; totalChunks?: number }> }>;
  lastResults(): { query: string; result: unknown };
  mcpDefinitions(): Promise<Array<{ label: string; kind: 'http' | 'stdio'; uri?: string; headers?: Record<string, string> }> | undefined>;
}

const EXTENSION_ID = 'quarry.quarry';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function api(): Promise<Api> {
  const ext = vscode.extensions.getExtension<Api>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is installed`);
  const a = ext.isActive ? ext.exports : await ext.activate();
  await a.ready();
  return a;
}

async function waitSearchable(a: Api, timeoutMs = 150_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await a.status();
    if (s.folders.length && s.folders.every((f) => f.searchable && (f.status?.chunks ?? 0) > 0)) return;
    if (Date.now() > until) throw new Error(`the workspace was not indexed in time: ${JSON.stringify(s.folders.map((f) => [f.name, f.state, f.searchable]))}`);
    await sleep(500);
  }
}

describe('Quarry in the editor', () => {
  before(async function () {
    assert.ok(vscode.workspace.workspaceFolders?.length, 'a fixture workspace is open');
    const a = await api();
    await waitSearchable(a);
  });

  it('contributes its commands', async () => {
    const all = await vscode.commands.getCommands(true);
    for (const c of ['quarry.findCode', 'quarry.indexWorkspace', 'quarry.reindexWorkspace', 'quarry.showStatus', 'quarry.openResultsInEditor']) assert.ok(all.includes(c), c);
  });

  it('finds a Swift class by name (codeSearch/find)', async () => {
    const a = await api();
    const r = await a.find('ChunkStore');
    assert.ok(r.matches.length > 0, 'some matches');
    const top = r.matches[0];
    assert.equal(top.file.path, 'ios/ChunkStore.swift');
    assert.match(top.content.symbol, /ChunkStore/);
    assert.ok(top.explanation.length > 0, 'the match is explained');
    assert.equal(a.lastResults().query, 'ChunkStore');
  });

  it('finds code from a description across languages', async () => {
    const a = await api();
    const r = await a.find('reserve stock for an order');
    assert.ok(r.matches.length > 0);
    assert.ok(Array.isArray(r.warnings));
  });

  it('reports the index status of the folder', async () => {
    const s = await (await api()).status();
    assert.equal(s.folders.length, 1);
    assert.ok(s.folders[0].status && s.folders[0].status.files > 5, JSON.stringify(s.folders[0].status));
  });

  it('"Quarry: Index Workspace" updates the index through codeSearch/reindex', async () => {
    await vscode.commands.executeCommand('quarry.indexWorkspace');
    const s = await (await api()).status();
    assert.ok(s.folders[0].searchable);
  });

  it('"Quarry: Open Results in Editor" opens a read-only quarry-results document', async () => {
    const a = await api();
    await a.find('ChunkStore');
    await vscode.commands.executeCommand('quarry.openResultsInEditor');
    const ed = vscode.window.activeTextEditor;
    assert.ok(ed, 'an editor is open');
    assert.equal(ed.document.languageId, 'quarry-results');
    assert.equal(ed.document.uri.scheme, 'quarry-results');
    assert.match(ed.document.getText(), /ios\/ChunkStore\.swift:\d+-\d+/);
  });

  it('opens a results-view match like Go to Symbol: the cursor on the name, nothing selected', async () => {
    const a = await api();
    const r = await a.find('ChunkStore');
    const m = r.matches[0];
    const root = vscode.workspace.workspaceFolders![0].uri;
    await vscode.commands.executeCommand('quarry.results.open', { type: 'match', match: { ...m, location: { uri: vscode.Uri.joinPath(root, m.file.path).toString(), range: { start: { line: m.span[0] - 1, character: 0 }, end: { line: m.span[0] - 1, character: 0 } } } } });
    const ed = vscode.window.activeTextEditor;
    assert.ok(ed && ed.document.uri.path.endsWith('/ios/ChunkStore.swift'), ed?.document.uri.toString());
    assert.ok(ed.selection.isEmpty, `nothing selected (${JSON.stringify(ed.selection)})`);
    const line = ed.document.lineAt(ed.selection.active.line).text;
    assert.equal(line.slice(ed.selection.active.character, ed.selection.active.character + 'ChunkStore'.length), 'ChunkStore', `the cursor is on the name: "${line}" at ${ed.selection.active.character}`);
    assert.match(line, /protocol ChunkStore/);
  });

  it('counts the opened result as an access: its activation shows in later searches (seed 003 FR-6.4)', async () => {
    const a = await api();
    type WithActivation = { file: { path: string }; activation?: { accesses: number } };
    let hit: WithActivation | undefined;
    for (let i = 0; i < 50 && !hit?.activation; i++) {
      hit = ((await a.find('ChunkStore')).matches as unknown as WithActivation[]).find((x) => x.file.path === 'ios/ChunkStore.swift' && (x.activation?.accesses ?? 0) >= 1);
      if (!hit?.activation) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(hit?.activation && hit.activation.accesses >= 1, JSON.stringify(hit));
  });

  it('copies a ready MCP config for agents', async () => {
    await vscode.commands.executeCommand('quarry.copyMcpConfig', 'stdio');
    const cfg = JSON.parse(await vscode.env.clipboard.readText()) as { mcpServers: Record<string, { command: string; args: string[] }> };
    const server = cfg.mcpServers.quarry;
    assert.ok(server, JSON.stringify(cfg));
    assert.deepEqual(server.args.slice(-3), ['mcp', '--project', vscode.workspace.workspaceFolders![0].uri.fsPath]);
    assert.ok(server.args.some((a) => a.endsWith('/dist/cli.js')));
  });

  it('copies the language server\'s MCP endpoint (HTTP + token), which answers with the token only', async () => {
    await vscode.commands.executeCommand('quarry.copyMcpConfig', 'http');
    const cfg = JSON.parse(await vscode.env.clipboard.readText()) as { mcpServers: Record<string, { type: string; url: string; headers: { Authorization: string } }> };
    const server = cfg.mcpServers.quarry;
    assert.ok(server, JSON.stringify(cfg));
    assert.equal(server.type, 'http');
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.match(server.headers.Authorization, /^Bearer \S{20,}$/);
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '0' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const ok = await fetch(server.url, { method: 'POST', headers: { ...headers, authorization: server.headers.Authorization }, body: init });
    assert.equal(ok.status, 200);
    const denied = await fetch(server.url, { method: 'POST', headers, body: init });
    assert.equal(denied.status, 401);
  });

  it('offers Copilot the language server\'s HTTP endpoint (McpHttpServerDefinition with the token), not a second process', async () => {
    const a = await api();
    const defs = await a.mcpDefinitions();
    assert.ok(defs, 'this VS Code has the MCP server definition API');
    assert.equal(defs.length, 1);
    assert.equal(defs[0].kind, 'http');
    assert.match(defs[0].uri ?? '', /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.match(defs[0].headers?.Authorization ?? '', /^Bearer \S{20,}$/);
    const status = await a.status();
    assert.equal(status.folders[0].mcp?.url, defs[0].uri);
    assert.equal(status.folders[0].owner?.kind, 'lsp');
  });

  it('finds a class with Go to Symbol in Workspace', async () => {
    const symbols = (await vscode.commands.executeCommand('vscode.executeWorkspaceSymbolProvider', 'RestockBatcher')) as vscode.SymbolInformation[];
    assert.ok(symbols.length > 0, 'workspace symbols answered');
    assert.equal(symbols[0].name, 'RestockBatcher');
    assert.equal(symbols[0].kind, vscode.SymbolKind.Class);
  });

  it('reflects an edited file in the results', async () => {
    const a = await api();
    const root = vscode.workspace.workspaceFolders![0].uri;
    const file = vscode.Uri.joinPath(root, 'scripts', 'restock.js');
    const doc = await vscode.workspace.openTextDocument(file);
    const editor = await vscode.window.showTextDocument(doc);
    const fnLine = doc.lineCount + 1; // 1-based line of the inserted function (the file ends with a newline)
    await editor.edit((e) => e.insert(new vscode.Position(doc.lineCount, 0), '\nfunction reconcileWarehouseLedgerTotals(entries) {\n  return entries.reduce((sum, e) => sum + e.delta, 0);\n}\n'));
    let found = false;
    for (let i = 0; i < 40 && !found; i++) {
      await sleep(250);
      const r = await a.find('reconcileWarehouseLedgerTotals');
      // The new function may be merged into the chunk above it: a match in the file whose range reaches it.
      found = r.matches.some((m) => m.file.path === 'scripts/restock.js' && m.span[1] >= fnLine);
    }
    assert.ok(found, `the unsaved edit is searchable (a match in scripts/restock.js reaching line ${fnLine})`);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
