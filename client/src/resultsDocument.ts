/**
 * "Quarry: Open Results in Editor": the last search as a read-only virtual document (`quarry-results:` scheme,
 * language `quarry-results`, highlighted by syntaxes/quarry-results.tmLanguage.json), with links to each match.
 */
import * as vscode from 'vscode';
import type { FindResult, LocatedMatch } from '../../server/src/lsp/protocol';
import { labelOf, plainWhy, snippetOf } from './types';

/** The hidden command the document's links run: opens a match like Find Code does (cursor on the name). */
export const OPEN_LINK_COMMAND = 'quarry.results.openLink';

export const RESULTS_SCHEME = 'quarry-results';
export const RESULTS_LANGUAGE = 'quarry-results';

export function renderResults(query: string, r: FindResult, onMatchLine?: (line: number, m: FindResult['matches'][number]) => void): string {
  const out: string[] = [];
  out.push(`# Quarry results for "${query}"`);
  out.push(`# ${r.total_results} result(s) of ${r.total_matches} candidate(s) · ${Math.round(r.execution_time_ms)} ms · ${r.search_strategy.join(', ') || 'n/a'} · searched ${r.searched.files} files, ${r.searched.chunks} chunks`);
  for (const w of r.warnings) out.push(`! ${w}`);
  for (const s of r.suggestions) out.push(`? ${s}`);
  out.push('');
  let file = '';
  for (const m of r.matches) {
    if (m.file.path !== file) {
      if (file) out.push('');
      file = m.file.path;
      out.push(`${file}`);
    }
    onMatchLine?.(out.length, m);
    out.push(`  ${m.file.path}:${m.span[0]}-${m.span[1]}  ${m.content.kind} ${labelOf(m)}  [${Math.round(m.relevance_score * 100)}%]`);
    const snip = snippetOf(m, 140);
    if (snip) out.push(`      ${snip}`);
    // why it is here, in words; the ranking's detail stays in the tooltip, the results view and --show-scores
    for (const e of m.why ? [plainWhy(m)] : m.explanation.slice(0, 3)) out.push(`      · ${e}`);
  }
  if (!r.matches.length) out.push(r.summary || 'No results.');
  return out.join('\n') + '\n';
}

export class ResultsDocuments implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly texts = new Map<string, { text: string; links: vscode.DocumentLink[] }>();
  /** The matches of each document by its number (the links carry the number, not the URI: no encoding round trips). */
  private readonly matchesById = new Map<number, LocatedMatch[]>();
  private n = 0;

  /** A new document for a search; returns its URI. */
  add(query: string, result: FindResult): vscode.Uri {
    const id = ++this.n;
    const uri = vscode.Uri.from({ scheme: RESULTS_SCHEME, path: `/Quarry Results ${id}.quarry-results`, query: encodeURIComponent(query) });
    const links: vscode.DocumentLink[] = [];
    const matches: LocatedMatch[] = [];
    const key = uri.toString();
    const text = renderResults(query, result, (line, m) => {
      const where = `${m.file.path}:${m.span[0]}-${m.span[1]}`;
      // A command link (not a file#L… link): the match opens with the cursor on its name, nothing selected.
      const target = vscode.Uri.parse(`command:${OPEN_LINK_COMMAND}?${encodeURIComponent(JSON.stringify([id, matches.length]))}`);
      matches.push(m);
      const link = new vscode.DocumentLink(new vscode.Range(line, 2, line, 2 + where.length), target);
      link.tooltip = 'Open the match';
      links.push(link);
    });
    this.texts.set(key, { text, links });
    this.matchesById.set(id, matches);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString())?.text ?? '# This Quarry results document is no longer available: search again.\n';
  }

  /** The match behind a link of a results document. */
  matchOf(doc: number, index: number): LocatedMatch | undefined {
    return this.matchesById.get(doc)?.[index];
  }

  provideDocumentLinks(doc: vscode.TextDocument): vscode.DocumentLink[] {
    return this.texts.get(doc.uri.toString())?.links ?? [];
  }

  dispose(): void {
    this.changed.dispose();
  }
}
