/**
 * "Quarry: Find Code": a QuickPick that searches as you type and behaves like Quick Open:
 *   - live search, debounced (DEBOUNCE_MS); a newer query cancels the request in flight ($/cancelRequest);
 *   - typing never opens an editor: only an explicit move through the list (arrow keys) previews the highlighted
 *     match, in ONE reused preview editor, without taking the focus; the automatic activation of the first item
 *     when results arrive previews nothing;
 *   - Enter opens the match with the cursor on the declaration's name, nothing selected (openMatch.ts);
 *   - Escape closes the preview tabs it opened, restores tabs they replaced and the editor that was active;
 *   - indexing state and degraded-mode warnings go to the title, never to a (pre-selected) row; the list searches
 *     again when indexing finishes;
 *   - quoted phrases no result contains show a notice row above the results (which stay the active item).
 */
import * as vscode from 'vscode';
import type { QuarryClient } from './client';
import { indexNote, phraseNotice } from './findCodeText';
import { openMatch } from './openMatch';
import { readSettings } from './settings';
import { testLog } from './testLog';
import type { FindResult, LocatedMatch } from '../../server/src/lsp/protocol';
import { iconOf, labelOf, plainWhy, snippetOf, toUri } from './types';

export const DEBOUNCE_MS = 170;
const PLACEHOLDER = 'Search code: a symbol, a "quoted phrase", or a description of what the code does';

interface MatchItem extends vscode.QuickPickItem {
  match?: LocatedMatch;
  /** A notice or note: shown, never opened. */
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

interface TabRecord {
  tab: vscode.Tab;
  uri: string;
  column: vscode.ViewColumn;
  preview: boolean;
}

function textTabs(): TabRecord[] {
  const out: TabRecord[] = [];
  for (const g of vscode.window.tabGroups.all) {
    for (const tab of g.tabs) {
      if (tab.input instanceof vscode.TabInputText) out.push({ tab, uri: tab.input.uri.toString(), column: g.viewColumn, preview: tab.isPreview });
    }
  }
  return out;
}

export function findCode(client: QuarryClient, hooks: FindCodeHooks, initial = ''): void {
  const qp = vscode.window.createQuickPick<MatchItem>();
  qp.placeholder = PLACEHOLDER;
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
  const originalSelections = original?.selections;
  const originalUri = original?.document.uri.toString();
  /** The tabs before any preview (to leave the tab set as it was on Escape). */
  let tabsBefore: TabRecord[] | undefined;
  /** URIs this QuickPick opened in preview tabs. */
  const previewed = new Set<string>();
  let accepted = false;
  let details = false;
  let last: { query: string; result: FindResult } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let cts: vscode.CancellationTokenSource | undefined;
  let seq = 0;
  /** Items VS Code (or render) activates by itself after results arrive: their activation previews nothing. */
  let autoActive = new Set<MatchItem>();
  /** The user moved through the list since the items were last set. */
  let navigated = false;
  const subs: vscode.Disposable[] = [];
  let hidden = false;
  /** The shown results came while a folder was still indexing (they are searched again when it is done). */
  let incomplete = false;

  const stateNote = (): string => {
    const notes = [indexNote([...client.lastStatus.values()])];
    if (client.lexicalOnlyReason) notes.push('lexical search only');
    return notes.filter(Boolean).join(' · ');
  };

  const idleTitle = () => {
    const note = stateNote();
    qp.title = note ? `Quarry: Find Code · ⚠ ${note}` : 'Quarry: Find Code';
  };

  const render = () => {
    if (!last) return idleTitle();
    const { query, result } = last;
    const items: MatchItem[] = [];
    const notice = phraseNotice(query, result.matches);
    if (notice) items.push({ label: `$(info) ${notice}`, note: notice, alwaysShow: true });
    if (!result.matches.length) {
      items.push({ label: '$(circle-slash) No results', detail: [result.summary, ...result.suggestions].filter(Boolean).join(' · '), note: 'none', alwaysShow: true });
    }
    for (const m of result.matches) {
      items.push({
        label: `$(${iconOf(m.content.kind)}) ${labelOf(m)}`,
        description: `${m.file.path}:${m.span[0]}`,
        detail: details ? `${Math.round(m.relevance_score * 100)}% · ${plainWhy(m) || m.explanation[0] || m.match_type}` : snippetOf(m),
        match: m,
        alwaysShow: true,
      });
    }
    const firstMatch = items.find((i) => i.match);
    autoActive = new Set([items[0], firstMatch].filter((i): i is MatchItem => !!i));
    navigated = false;
    qp.items = items;
    // The first result is the active item, never the notice above it.
    if (firstMatch && items[0] !== firstMatch) qp.activeItems = [firstMatch];
    const warnings = [stateNote(), ...result.warnings].filter(Boolean);
    const warn = warnings.length ? ` · ⚠ ${warnings.join(' · ')}` : '';
    qp.title = `Quarry: ${result.total_results} result(s) for "${query}" in ${Math.round(result.execution_time_ms)} ms${warn}`;
  };

  const search = (query: string) => {
    if (cts) {
      cts.cancel();
      cts.dispose();
      cts = undefined;
      testLog('find-cancel');
    }
    if (!query.trim()) {
      seq++;
      qp.busy = false;
      last = undefined;
      qp.items = [];
      idleTitle();
      return;
    }
    const mine = ++seq;
    const source = new vscode.CancellationTokenSource();
    cts = source;
    qp.busy = true;
    const s = readSettings();
    testLog('find', { query });
    client
      .find({ query, limit: s.searchLimit, includeTests: s.includeTests, explain: true }, source.token)
      .then(
        (result) => {
          if (mine !== seq || source.token.isCancellationRequested) return;
          last = { query, result };
          incomplete = indexNote([...client.lastStatus.values()]) !== '';
          hooks.remember(query, result);
          hooks.warnings(result.warnings);
          render();
          testLog('results', { query, count: result.matches.length });
        },
        (e: unknown) => {
          if (mine !== seq || source.token.isCancellationRequested) return;
          const msg = (e as Error)?.message ?? String(e);
          qp.items = [{ label: `$(error) ${msg}`, note: msg, alwaysShow: true }];
          qp.title = 'Quarry: the search failed';
        },
      )
      .finally(() => {
        if (mine === seq) {
          qp.busy = false;
          if (cts === source) {
            cts.dispose();
            cts = undefined;
          }
        }
      });
  };

  /** The previews in flight (Escape waits for them, so that a tab still opening is closed too). */
  let previewing: Promise<unknown> = Promise.resolve();
  const preview = (m: LocatedMatch) => {
    if (hidden) return;
    tabsBefore ??= textTabs();
    previewed.add(toUri(m.location).toString());
    testLog('preview', { path: m.file.path });
    const p = openMatch(m, { preview: true, preserveFocus: true }).then(undefined, () => undefined);
    previewing = Promise.all([previewing, p]);
  };

  qp.onDidChangeValue((v) => {
    // Typing is not navigation: the list's re-activation of its first item while filtering previews nothing.
    navigated = false;
    testLog('value', { length: v.length });
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => search(v), DEBOUNCE_MS);
  }, undefined, subs);
  qp.onDidChangeActive((items) => {
    const item = items[0];
    if (!item) return;
    if (!navigated && autoActive.has(item)) return; // the automatic activation after results arrived
    navigated = true;
    if (item.match) preview(item.match);
  }, undefined, subs);
  qp.onDidTriggerButton((b) => {
    if (b === toggleDetails) {
      details = !details;
      render();
    } else if (b === showInView && last) {
      hooks.showInView(last.query, last.result);
    }
  }, undefined, subs);
  qp.onDidAccept(() => {
    const item = qp.activeItems[0] ?? qp.selectedItems[0];
    if (!item?.match) return; // notices are not opened
    accepted = true;
    const m = item.match;
    client.resultOpened(m);
    qp.hide();
    testLog('open', { path: m.file.path });
    void openMatch(m, { preview: false }).then(
      async () => {
        // Preview tabs of other files this QuickPick opened are not left behind.
        await previewing;
        const target = toUri(m.location).toString();
        const stale = textTabs().filter((t) => t.preview && t.uri !== target && previewed.has(t.uri) && !tabsBefore?.some((b) => b.uri === t.uri && b.column === t.column));
        if (stale.length) await vscode.window.tabGroups.close(stale.map((t) => t.tab), true);
      },
      (e: Error) => void vscode.window.showErrorMessage(`Quarry: cannot open ${m.file.path}: ${e.message}`),
    );
  }, undefined, subs);
  // Indexing state changes: the title follows; when a folder finishes indexing, results that came while it was
  // indexing are searched again (not on every later file update: that would reset the list under the user).
  client.onStatusChanged((p) => {
    if (p.state === 'ready' && qp.value.trim() && (incomplete || !last) && indexNote([...client.lastStatus.values()]) === '') search(qp.value);
    else if (last) render();
    else idleTitle();
  }, undefined, subs);
  qp.onDidHide(() => {
    if (hidden) return;
    hidden = true;
    if (timer) clearTimeout(timer);
    if (cts) {
      cts.cancel();
      cts.dispose();
      testLog('find-cancel');
    }
    for (const s of subs) s.dispose();
    qp.dispose();
    if (!accepted) void restore();
  });

  /**
   * Escape: close the preview tabs opened here, reopen tabs they replaced, and make the editor of before active again
   * with its selections. Never takes the focus (preserveFocus): the user may already be in the next QuickPick.
   */
  const restore = async () => {
    if (!tabsBefore) return; // nothing was previewed: the tab set is as it was
    await previewing;
    const before = tabsBefore;
    const opened = textTabs().filter((t) => previewed.has(t.uri) && !before.some((b) => b.uri === t.uri && b.column === t.column));
    testLog('restore', { previewed: [...previewed], tabs: textTabs().map((t) => t.uri), closing: opened.map((t) => t.uri) });
    if (opened.length) await vscode.window.tabGroups.close(opened.map((t) => t.tab), true).then(undefined, (e: Error) => testLog('restore-close-failed', { error: e.message }));
    const now = textTabs();
    for (const b of before) {
      if (now.some((t) => t.uri === b.uri && t.column === b.column)) continue;
      // A preview tab of the user's that a preview replaced.
      await vscode.window
        .showTextDocument(vscode.Uri.parse(b.uri), { viewColumn: b.column, preview: b.preview, preserveFocus: true })
        .then(undefined, () => undefined);
    }
    if (original && originalUri) {
      const wasPreview = before.find((b) => b.uri === originalUri && b.column === original.viewColumn)?.preview ?? false;
      const ed = await vscode.window
        .showTextDocument(original.document, { viewColumn: original.viewColumn, preview: wasPreview, preserveFocus: true })
        .then(undefined, () => undefined);
      if (ed && originalSelections) {
        ed.selections = originalSelections;
        ed.revealRange(originalSelections[0], vscode.TextEditorRevealType.InCenterIfOutsideViewport);
      }
    }
    // A preview the editor was still opening when Escape came: closed once it shows up.
    await new Promise((r) => setTimeout(r, 300));
    const late = textTabs().filter((t) => t.preview && previewed.has(t.uri) && !before.some((b) => b.uri === t.uri && b.column === t.column));
    if (late.length) await vscode.window.tabGroups.close(late.map((t) => t.tab), true).then(undefined, () => false);
    testLog('restored', { late: late.length });
  };

  idleTitle();
  qp.show();
  if (initial) {
    qp.value = initial;
    search(initial);
  }
}
