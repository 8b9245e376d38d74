/**
 * "Quarry: Find Code": a QuickPick that searches as you type (debounced, the previous request cancelled),
 * previews the highlighted match, and opens the exact range on Enter.
 */
import * as vscode from 'vscode';
import type { QuarryClient } from './client';
import { readSettings } from './settings';
import { FindResult, LocatedMatch, iconOf, labelOf, snippetOf, toRange, toUri, whereOf } from './types';

export const DEBOUNCE_MS = 150;

interface MatchItem extends vscode.QuickPickItem {
  match?: LocatedMatch;
  /** A warning or note: shown, never opened. */
  note?: string;
}

export interface FindCodeHooks {
  /** Shows a result set in the Code Search view. */
  showInView(query: string, result: FindResult): void;
  /** Remembers the last search (the view's "search again", Open Results in Editor). */
  remember(query: string, result: FindResult): void;
  /** Degraded-mode warnings go to the status bar too. */
  warnings(warnings: string[]): void;
}

export function findCode(client: QuarryClient, hooks: FindCodeHooks, initial = ''): void {
  const qp = vscode.window.createQuickPick<MatchItem>();
  qp.placeholder = 'Search code: a symbol, a phrase, or a description of what the code does';
  qp.title = 'Quarry: Find Code';
  qp.matchOnDescription = false;
  qp.matchOnDetail = false;
  qp.ignoreFocusOut = false;
  try {
    // Keep the server's ranking (proposed API in some VS Code versions: ignore where it is not available).
    (qp as unknown as { sortByLabel: boolean }).sortByLabel = false;
  } catch {
    /* not available */
  }
  const showInView: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('list-tree'), tooltip: 'Show in Results View' };
  const toggleDetails: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('info'), tooltip: 'Toggle score details' };
  qp.buttons = [showInView, toggleDetails];

  const original = vscode.window.activeTextEditor;
  const originalSelection = original?.selection;
  let accepted = false;
  let details = false;
  let last: { query: string; result: FindResult } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let cts: vscode.CancellationTokenSource | undefined;
  let seq = 0;

  const render = () => {
    if (!last) return;
    const { result } = last;
    const items: MatchItem[] = [];
    const warnings = client.lexicalOnlyReason ? [`Lexical search only: ${client.lexicalOnlyReason}`, ...result.warnings] : result.warnings;
    for (const w of warnings) items.push({ label: `$(warning) ${w}`, note: w, alwaysShow: true });
    if (!result.matches.length) {
      items.push({ label: '$(circle-slash) No results', detail: [result.summary, ...result.suggestions].filter(Boolean).join(' · '), note: 'none', alwaysShow: true });
    }
    for (const m of result.matches) {
      items.push({
        label: `$(${iconOf(m.content.kind)}) ${labelOf(m)}`,
        description: whereOf(m),
        detail: details ? `${Math.round(m.relevance_score * 100)}% · ${m.explanation[0] ?? m.match_type}` : snippetOf(m),
        match: m,
        alwaysShow: true,
      });
    }
    qp.items = items;
    const warn = warnings.length ? ` · $(warning) ${warnings[0]}` : '';
    qp.title = `Quarry: ${result.total_results} result(s) for "${last.query}" in ${Math.round(result.execution_time_ms)} ms${warn}`.replace('$(warning)', '⚠');
  };

  const search = (query: string) => {
    cts?.cancel();
    cts?.dispose();
    cts = undefined;
    if (!query.trim()) {
      qp.busy = false;
      qp.items = [];
      qp.title = 'Quarry: Find Code';
      return;
    }
    const mine = ++seq;
    const source = new vscode.CancellationTokenSource();
    cts = source;
    qp.busy = true;
    const s = readSettings();
    client
      .find({ query, limit: s.searchLimit, includeTests: s.includeTests, explain: true }, source.token)
      .then(
        (result) => {
          if (mine !== seq || source.token.isCancellationRequested) return;
          last = { query, result };
          hooks.remember(query, result);
          hooks.warnings(result.warnings);
          render();
        },
        (e: unknown) => {
          if (mine !== seq || source.token.isCancellationRequested) return;
          const msg = (e as Error)?.message ?? String(e);
          qp.items = [{ label: `$(error) ${msg}`, note: msg, alwaysShow: true }];
          qp.title = 'Quarry: the search failed';
        },
      )
      .finally(() => {
        if (mine === seq) qp.busy = false;
      });
  };

  const preview = (item: MatchItem | undefined) => {
    const m = item?.match;
    if (!m) return;
    void vscode.window
      .showTextDocument(toUri(m.location), { preview: true, preserveFocus: true, selection: toRange(m.location) })
      .then(undefined, () => undefined);
  };

  qp.onDidChangeValue((v) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => search(v), DEBOUNCE_MS);
  });
  qp.onDidChangeActive((items) => preview(items[0]));
  qp.onDidTriggerButton((b) => {
    if (b === toggleDetails) {
      details = !details;
      render();
    } else if (b === showInView && last) {
      hooks.showInView(last.query, last.result);
    }
  });
  qp.onDidAccept(() => {
    const item = qp.selectedItems[0] ?? qp.activeItems[0];
    if (!item?.match) return; // warnings and notes are not opened
    accepted = true;
    const m = item.match;
    client.resultOpened(m);
    qp.hide();
    void vscode.window.showTextDocument(toUri(m.location), { preview: false, selection: toRange(m.location) }).then((ed) => {
      ed.revealRange(toRange(m.location), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    });
  });
  qp.onDidHide(() => {
    if (timer) clearTimeout(timer);
    cts?.cancel();
    cts?.dispose();
    qp.dispose();
    // Cancelled: go back to where the user was before the previews.
    if (!accepted && original && last) {
      void vscode.window
        .showTextDocument(original.document, { viewColumn: original.viewColumn, selection: originalSelection, preview: false })
        .then(undefined, () => undefined);
    }
  });
  qp.show();
  if (initial) {
    qp.value = initial;
    search(initial);
  }
}
