/**
 * Quarry's MCP endpoint for agents inside and outside VS Code:
 * - registers a stdio MCP server definition per workspace folder with VS Code (Copilot agent mode) through the
 *   MCP server definition provider API when the running VS Code has it (1.101+; older versions skip it);
 * - "Quarry: Copy MCP Config for Agents" puts a ready `mcpServers` snippet (Claude Code, Cursor, ...) on the clipboard.
 */
import * as vscode from 'vscode';
import { join } from 'node:path';

export const MCP_PROVIDER_ID = 'quarry.mcp';

function serverArgs(extensionPath: string, folder: string): { command: string; args: string[] } {
  return { command: 'node', args: ['--liftoff-only', join(extensionPath, 'dist', 'cli.js'), 'mcp', '--project', folder] };
}

/** The JSON an agent's MCP configuration needs for each workspace folder. */
export function mcpConfigSnippet(extensionPath: string, folders: readonly string[]): string {
  const servers: Record<string, { command: string; args: string[] }> = {};
  folders.forEach((f, i) => {
    servers[folders.length === 1 ? 'quarry' : `quarry-${i + 1}`] = serverArgs(extensionPath, f);
  });
  return JSON.stringify({ mcpServers: servers }, null, 2);
}

export function registerMcp(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('quarry.copyMcpConfig', async () => {
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      if (!folders.length) {
        void vscode.window.showWarningMessage('Quarry: open a folder first; the MCP config points an agent at a workspace.');
        return;
      }
      await vscode.env.clipboard.writeText(mcpConfigSnippet(context.extensionPath, folders));
      void vscode.window.showInformationMessage('Quarry: MCP config copied. Paste it into your agent\'s MCP settings (e.g. .mcp.json for Claude Code, .cursor/mcp.json for Cursor).');
    }),
  );

  // The definition provider API arrived in VS Code 1.101; feature-detect it so older editors keep working.
  const lm = (vscode as unknown as { lm?: { registerMcpServerDefinitionProvider?: (id: string, p: unknown) => vscode.Disposable } }).lm;
  const Stdio = (vscode as unknown as { McpStdioServerDefinition?: new (label: string, command: string, args: string[]) => unknown }).McpStdioServerDefinition;
  if (!lm?.registerMcpServerDefinitionProvider || !Stdio) return;
  const changed = new vscode.EventEmitter<void>();
  context.subscriptions.push(
    changed,
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: () =>
        (vscode.workspace.workspaceFolders ?? []).map((f) => {
          const { command, args } = serverArgs(context.extensionPath, f.uri.fsPath);
          return new Stdio(`Quarry (${f.name})`, command, args);
        }),
    }),
  );
}
