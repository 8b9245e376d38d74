/**
 * Opening a result the way Go to Symbol does: the cursor on the declaration's name (namePosition.ts), nothing
 * selected, the unit revealed in the centre when it is off screen and briefly highlighted. Shared by Find Code, the
 * Code Search view and the results document.
 */
import * as vscode from 'vscode';
import { namePosition } from './namePosition';
import type { LocatedMatch } from '../../server/src/lsp/protocol';
import { toUri } from './types';

/** How long the unit stays highlighted after it is opened. */
export const HIGHLIGHT_MS = 1500;

let highlight: vscode.TextEditorDecorationType | undefined;
let fadeTimer: NodeJS.Timeout | undefined;

function decoration(): vscode.TextEditorDecorationType {
  highlight ??= vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
    overviewRulerColor: new vscode.ThemeColor('editor.rangeHighlightBackground'),
    overviewRulerLane: vscode.OverviewRulerLane.Full,
  });
  return highlight;
}

/** The cursor position and the unit's range of a match in its document. */
export function targetOf(m: LocatedMatch, doc: vscode.TextDocument): { cursor: vscode.Position; unit: vscode.Range } {
  const p = namePosition(m, { lineCount: doc.lineCount, lineAt: (i) => doc.lineAt(i).text });
  const last = Math.max(0, doc.lineCount - 1);
  const startLine = Math.min(Math.max(0, m.span[0] - 1), last);
  const endLine = Math.min(Math.max(startLine, m.span[1] - 1), last);
  return { cursor: new vscode.Position(p.line, p.character), unit: new vscode.Range(startLine, 0, endLine, doc.lineAt(endLine).text.length) };
}

export interface OpenOptions {
  /** A preview tab (Quick Open's single reused preview editor) rather than a pinned one. */
  preview?: boolean;
  preserveFocus?: boolean;
  viewColumn?: vscode.ViewColumn;
  /** Highlight the unit for HIGHLIGHT_MS (default true). */
  highlight?: boolean;
}

/** Opens a match with the cursor on its name (empty selection), the unit revealed and briefly highlighted. */
export async function openMatch(m: LocatedMatch, opts: OpenOptions = {}): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(toUri(m.location));
  const { cursor, unit } = targetOf(m, doc);
  const editor = await vscode.window.showTextDocument(doc, {
    preview: opts.preview ?? false,
    preserveFocus: opts.preserveFocus ?? false,
    viewColumn: opts.viewColumn,
    selection: new vscode.Range(cursor, cursor),
  });
  editor.selection = new vscode.Selection(cursor, cursor);
  // The whole unit when it fits, then the name (a no-op when the first reveal already shows it).
  editor.revealRange(unit, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  editor.revealRange(new vscode.Range(cursor, cursor), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  if (opts.highlight !== false) flash(editor, unit);
  return editor;
}

/** Highlights `range` in `editor` for HIGHLIGHT_MS; a later flash replaces an earlier one. */
export function flash(editor: vscode.TextEditor, range: vscode.Range): void {
  const deco = decoration();
  if (fadeTimer) clearTimeout(fadeTimer);
  for (const e of vscode.window.visibleTextEditors) if (e !== editor) e.setDecorations(deco, []);
  editor.setDecorations(deco, [range]);
  fadeTimer = setTimeout(() => {
    fadeTimer = undefined;
    for (const e of vscode.window.visibleTextEditors) e.setDecorations(deco, []);
  }, HIGHLIGHT_MS);
}

export function disposeHighlight(): void {
  if (fadeTimer) clearTimeout(fadeTimer);
  highlight?.dispose();
  highlight = undefined;
}
