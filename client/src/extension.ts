/**
 * VS Code client (preview). Today it offers one command, "Quarry: Index Workspace", which runs the
 * bundled `quarry` CLI on each workspace folder with a progress notification and an output channel.
 * The language-server client (Find Code, results tree, workspace symbols) replaces this in a later release.
 */
import * as vscode from 'vscode';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export function activate(context: vscode.ExtensionContext): void {
  const output = vscode.window.createOutputChannel('Quarry');
  context.subscriptions.push(output);
  context.subscriptions.push(
    vscode.commands.registerCommand('quarry.indexWorkspace', async () => {
      const folders = vscode.workspace.workspaceFolders ?? [];
      if (!folders.length) {
        void vscode.window.showWarningMessage('Quarry: open a folder first; there is no workspace to index.');
        return;
      }
      const cli = join(context.extensionPath, 'dist', 'cli.js');
      for (const folder of folders) {
        const code = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `Quarry: indexing ${folder.name}`, cancellable: true },
          (_progress, token) =>
            new Promise<number>((resolve) => {
              const child = spawn(process.execPath, [cli, 'index', '--project', folder.uri.fsPath], {
                env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
              });
              token.onCancellationRequested(() => child.kill('SIGINT'));
              child.stdout.on('data', (d: Buffer) => output.append(d.toString()));
              child.stderr.on('data', (d: Buffer) => output.append(d.toString()));
              child.on('error', (e) => {
                output.appendLine(`Quarry: could not start the indexer: ${e.message}`);
                resolve(1);
              });
              child.on('close', (c) => resolve(c ?? 1));
            }),
        );
        if (code !== 0) {
          output.show(true);
          void vscode.window.showErrorMessage(`Quarry: indexing ${folder.name} failed (exit code ${code}); see the Quarry output for the cause.`);
        } else {
          void vscode.window.showInformationMessage(`Quarry: indexed ${folder.name}.`);
        }
      }
    }),
  );
}

export function deactivate(): void {
  /* nothing to release */
}
