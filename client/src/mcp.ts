/**
 * Quarry's MCP endpoint for agents inside and outside VS Code.
 *
 * - Copilot agent mode (VS Code 1.101+, the MCP server definition provider API, feature-detected): one server per
 *   workspace folder. By default that is the language server's own Streamable HTTP endpoint
 *   (`vscode.McpHttpServerDefinition` with the `Authorization: Bearer` header): the index has one owner, the
 *   language server, and agents search the same engine the editor does (unsaved buffers included) without another
 *   process. When HTTP is off (`quarry.mcp.http: false`), the endpoint is not up, or this VS Code has no HTTP
 *   definitions, it is a stdio `quarry mcp` server instead — which, while the language server owns the index, only
 *   reads it (engine/indexer/owner.ts), so nothing is indexed twice.
 * - "Quarry: Copy MCP Config for Agents" copies an `mcpServers` snippet for Claude Code, Cursor, ...: the stdio
 *   command (durable) or the HTTP URL + token (this language server session only; they change on restart).
 */
import * as vscode from 'vscode';
import type { QuarryClient } from './client';
import type { McpEndpoint } from '../../server/src/lsp/protocol';
import { httpConfigSnippet, stdioConfigSnippet, stdioServer } from './mcpConfig';
import { readSettings } from './settings';

export const MCP_PROVIDER_ID = 'quarry.mcp';

/** The parts of the MCP definition API (VS Code 1.101) used here; @types/vscode 1.91 has none of them. */
interface McpApi {
  registerMcpServerDefinitionProvider(id: string, provider: McpProvider): vscode.Disposable;
}
interface McpProvider {
  onDidChangeMcpServerDefinitions?: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): Promise<McpDefinition[]> | McpDefinition[];
  resolveMcpServerDefinition?(server: McpDefinition, token: vscode.CancellationToken): Promise<McpDefinition | undefined> | McpDefinition | undefined;
}
type McpDefinition = { label: string; uri?: vscode.Uri; headers?: Record<string, string> };
type StdioCtor = new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => McpDefinition;
type HttpCtor = new (label: string, uri: vscode.Uri, headers?: Record<string, string>, version?: string) => McpDefinition;

/** How long the provider waits for the language server to announce its endpoints before offering stdio. */
const ENDPOINT_WAIT_MS = 15_000;

/** Copies a snippet: `kind` 'stdio' or 'http' skips the choice (tests, keybindings). */
export type CopyKind = 'stdio' | 'http';

/** What registerMcp gives the extension's API (tests): the definitions Copilot gets now, after waiting for the endpoints. */
export interface McpRegistration {
  /** undefined when this VS Code has no MCP definition API. */
  definitions(): Promise<Array<{ label: string; kind: 'http' | 'stdio'; uri?: string; headers?: Record<string, string> }> | undefined>;
}

export function registerMcp(context: vscode.ExtensionContext, client: QuarryClient): McpRegistration {
  const folders = () => (vscode.workspace.workspaceFolders ?? []).map((f) => ({ name: f.name, path: f.uri.fsPath, uri: f.uri.toString() }));

  context.subscriptions.push(
    vscode.commands.registerCommand('quarry.copyMcpConfig', async (kind?: CopyKind) => {
      const open = folders();
      if (!open.length) {
        void vscode.window.showWarningMessage('Quarry: open a folder first; the MCP config points an agent at a workspace.');
        return;
      }
      const endpoints = [...client.mcpEndpoints.values()];
      let choice: CopyKind | undefined = kind;
      if (!choice) {
        if (!endpoints.length) choice = 'stdio';
        else {
          const picked = await vscode.window.showQuickPick(
            [
              {
                label: 'stdio: `quarry mcp` (recommended for Claude Code, Cursor)',
                detail: 'Durable: the agent starts Quarry itself. While VS Code owns the index, it only reads it (no second indexing).',
                transport: 'stdio' as const,
              },
              {
                label: 'HTTP: this language server (URL + bearer token)',
                detail: `${endpoints.map((e) => e.url).join(', ')} — the URL and token change whenever the language server restarts.`,
                transport: 'http' as const,
              },
            ],
            { title: 'Quarry: Copy MCP Config for Agents', placeHolder: 'Which MCP transport should the agent use?' },
          );
          choice = picked?.transport;
        }
      }
      if (!choice) return;
      if (choice === 'http' && !endpoints.length) {
        void vscode.window.showWarningMessage('Quarry: the language server serves no MCP endpoint (quarry.mcp.http is off, or it is not running). Copy the stdio config instead.');
        return;
      }
      const text = choice === 'http' ? httpConfigSnippet(endpoints) : stdioConfigSnippet(context.extensionPath, open);
      await vscode.env.clipboard.writeText(text);
      void vscode.window.showInformationMessage(
        choice === 'http'
          ? 'Quarry: MCP config (HTTP, this session) copied. Paste it into .mcp.json (Claude Code) or .cursor/mcp.json (Cursor); copy it again after VS Code restarts.'
          : "Quarry: MCP config copied. Paste it into your agent's MCP settings (e.g. .mcp.json for Claude Code, .cursor/mcp.json for Cursor).",
      );
    }),
  );

  // The definition provider API arrived in VS Code 1.101; feature-detect it so older editors keep working.
  const api = vscode as unknown as { lm?: Partial<McpApi>; McpStdioServerDefinition?: StdioCtor; McpHttpServerDefinition?: HttpCtor };
  const lm = api.lm;
  const Stdio = api.McpStdioServerDefinition;
  const Http = api.McpHttpServerDefinition;
  if (!lm?.registerMcpServerDefinitionProvider || !Stdio) return { definitions: async () => undefined };

  const label = (name: string) => `Quarry (${name})`;
  const httpWanted = () => readSettings().mcpHttp && Http !== undefined;
  const endpointOf = (uri: string): McpEndpoint | undefined => client.mcpEndpoints.get(uri);

  const definitions = (): McpDefinition[] =>
    (vscode.workspace.workspaceFolders ?? []).map((f) => {
      const ep = httpWanted() ? endpointOf(f.uri.toString()) : undefined;
      if (ep && Http) return new Http(label(f.name), vscode.Uri.parse(ep.url), { Authorization: `Bearer ${ep.token}` });
      const { command, args } = stdioServer(context.extensionPath, f.uri.fsPath);
      return new Stdio(label(f.name), command, args);
    });

  const provide = async (token?: vscode.CancellationToken): Promise<McpDefinition[]> => {
    // Asked before the language server announced its endpoints: wait for them (briefly) rather than offer stdio.
    if (httpWanted() && folders().some((f) => !endpointOf(f.uri))) await client.waitForMcpEndpoints(ENDPOINT_WAIT_MS, token);
    return definitions();
  };

  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    changed,
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    // A (re)started language server has new URLs and a new token; a stopped one has none.
    client.onMcpEndpoints(() => changed.fire()),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('quarry.mcp') && changed.fire()),
    lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: (token) => provide(token),
      // Called right before VS Code connects: hand over the current URL and token (the server may have restarted).
      resolveMcpServerDefinition: async (server, token) => {
        if (!server.uri || !Http) return server;
        const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => label(f.name) === server.label);
        if (!folder) return server;
        if (!endpointOf(folder.uri.toString())) await client.waitForMcpEndpoints(ENDPOINT_WAIT_MS, token);
        const ep = endpointOf(folder.uri.toString());
        if (ep) {
          server.uri = vscode.Uri.parse(ep.url);
          server.headers = { Authorization: `Bearer ${ep.token}` };
        }
        return server;
      },
    }),
  );
  return {
    definitions: async () =>
      (await provide()).map((d) => ({ label: d.label, kind: d.uri ? ('http' as const) : ('stdio' as const), uri: d.uri?.toString(), headers: d.headers })),
  };
}
