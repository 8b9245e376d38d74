/**
 * Quarry's ONE status bar item: indexing progress, counts, degraded modes (from `codeSearch/statusChanged` and
 * searches), and short notes of commands (reindexing). The language server's work-done progress is not shown as a
 * second item (client.ts turns the capability off): this item carries it.
 */
import * as vscode from 'vscode';
import { withoutModelIds } from './findCodeText';
import type { StatusChangedParams } from '../../server/src/lsp/protocol';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('quarry.status', vscode.StatusBarAlignment.Left, 10);
  private readonly folders = new Map<string, StatusChangedParams>();
  private warnings: string[] = [];
  private serverWarning: string | undefined;
  private noteText: string | undefined;
  private noteTimer: NodeJS.Timeout | undefined;

  constructor() {
    this.item.name = 'Quarry';
    this.item.command = 'quarry.showStatus';
    this.item.text = '$(loading~spin) Quarry';
    this.item.tooltip = 'Quarry: starting the language server';
    this.item.show();
  }

  starting(failed?: string): void {
    if (failed) {
      this.item.text = '$(error) Quarry';
      this.item.tooltip = `Quarry: the language server did not start: ${failed}`;
      this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
    }
  }

  update(p: StatusChangedParams): void {
    // A notification without counts (indexing started, ...) keeps the folder's last known counts.
    const prev = this.folders.get(p.folder);
    this.folders.set(p.folder, { ...p, files: p.files ?? prev?.files, chunks: p.chunks ?? prev?.chunks });
    if (p.state === 'ready' || p.state === 'error') this.clearNoteSoon();
    this.render();
  }

  /** A short note in the item (e.g. "rebuilding the index"), for `ms` or until the next ready/error state; undefined clears. */
  note(text: string | undefined, ms?: number): void {
    if (this.noteTimer) clearTimeout(this.noteTimer);
    this.noteTimer = undefined;
    this.noteText = text;
    if (text && ms) this.noteTimer = setTimeout(() => this.note(undefined), ms);
    this.render();
  }

  private clearNoteSoon(): void {
    if (this.noteText && !this.noteTimer) this.noteTimer = setTimeout(() => this.note(undefined), 4000);
  }

  /** Warnings of the last search (degraded modes: no embeddings, lexical only, ...). */
  setWarnings(warnings: string[]): void {
    this.warnings = warnings;
    this.render();
  }

  /** A degraded mode of the server itself (e.g. restarted lexical-only after crashes); undefined clears it. */
  setServerWarning(w: string | undefined): void {
    this.serverWarning = w;
    this.render();
  }

  private render(): void {
    const warnings = this.serverWarning ? [this.serverWarning, ...this.warnings] : this.warnings;
    const all = [...this.folders.values()];
    const busy = all.filter((f) => f.state === 'opening' || f.state === 'indexing' || f.state === 'embedding');
    const errors = all.filter((f) => f.state === 'error');
    const files = all.reduce((n, f) => n + (f.files ?? 0), 0);
    const chunks = all.reduce((n, f) => n + (f.chunks ?? 0), 0);
    const counts = files || chunks ? `${files} files · ${chunks} chunks` : '';
    let icon = '$(search)';
    let text = counts || 'ready';
    if (busy.length) {
      icon = '$(sync~spin)';
      text = busy.length === 1 ? `${busy[0].state}${busy[0].searchable ? ' (searchable)' : ''}` : `${busy.length} folders indexing`;
    }
    if (this.noteText) text = busy.length && !this.noteTimer ? `${this.noteText} · ${text}` : this.noteText;
    if (errors.length) icon = '$(error)';
    else if (warnings.length && !busy.length) icon = '$(warning)';
    this.item.text = `${icon} Quarry: ${text}`;
    this.item.backgroundColor = errors.length
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : warnings.length
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
    const tip = new vscode.MarkdownString();
    for (const f of all) tip.appendMarkdown(`**${f.name}** — ${f.state}${f.files != null ? ` (${f.files} files · ${f.chunks ?? 0} chunks)` : ''}: ${withoutModelIds(f.message).replace(/[\\`*_[\]<>]/g, (c) => '\\' + c)}  \n`);
    for (const w of warnings) tip.appendMarkdown(`$(warning) ${w.replace(/[\\`*_[\]<>]/g, (c) => '\\' + c)}  \n`);
    tip.appendMarkdown('\nClick for the index status.');
    tip.supportThemeIcons = true;
    this.item.tooltip = tip;
  }

  dispose(): void {
    if (this.noteTimer) clearTimeout(this.noteTimer);
    this.item.dispose();
  }
}
