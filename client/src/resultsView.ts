/** The "Code Search" tree: the last search's matches grouped by file, with line ranges and score explanations. */
import * as vscode from 'vscode';
import type { FindResult, LocatedMatch } from '../../server/src/lsp/protocol';
import { iconOf, labelOf, snippetOf, toRange, toUri } from './types';
import { breakdownMarkdown, escapeMarkdown } from './breakdown';

type Node = { type: 'file'; path: string; uri: vscode.Uri; matches: LocatedMatch[] } | { type: 'match'; match: LocatedMatch } | { type: 'note'; text: string; icon: string };

export class ResultsView implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: Node[] = [];
  query = '';
  result: FindResult | undefined;

  constructor(private readonly state: vscode.Memento) {
    this.query = state.get<string>('quarry.lastQuery', '');
  }

  set(query: string, result: FindResult): void {
    this.query = query;
    this.result = result;
    void this.state.update('quarry.lastQuery', query);
    const roots: Node[] = [];
    for (const w of result.warnings) roots.push({ type: 'note', text: w, icon: 'warning' });
    if (!result.matches.length) roots.push({ type: 'note', text: result.summary || 'No results', icon: 'circle-slash' });
    const byFile = new Map<string, Extract<Node, { type: 'file' }>>();
    for (const m of result.matches) {
      const key = m.location.uri;
      let f = byFile.get(key);
      if (!f) {
        f = { type: 'file', path: m.file.path, uri: toUri(m.location), matches: [] };
        byFile.set(key, f);
        roots.push(f);
      }
      f.matches.push(m);
    }
    this.roots = roots;
    this.changed.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    if (!node) return this.roots;
    if (node.type === 'file') return node.matches.map((match) => ({ type: 'match', match }));
    return [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.type === 'note') {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon(node.icon);
      item.tooltip = node.text;
      item.contextValue = 'quarry.note';
      return item;
    }
    if (node.type === 'file') {
      const item = new vscode.TreeItem(node.uri, vscode.TreeItemCollapsibleState.Expanded);
      item.description = node.path.includes('/') ? node.path.slice(0, node.path.lastIndexOf('/')) : '';
      item.tooltip = `${node.path} (${node.matches.length} match${node.matches.length === 1 ? '' : 'es'})`;
      item.contextValue = 'quarry.file';
      item.resourceUri = node.uri;
      return item;
    }
    const m = node.match;
    const item = new vscode.TreeItem(labelOf(m), vscode.TreeItemCollapsibleState.None);
    item.description = `${m.span[0]}–${m.span[1]} · ${snippetOf(m, 80)}`;
    item.iconPath = new vscode.ThemeIcon(iconOf(m.content.kind));
    const tip = new vscode.MarkdownString();
    tip.appendMarkdown(`**${labelOf(m)}** — \`${m.file.path}:${m.span[0]}-${m.span[1]}\`  \n`);
    // `why` is written as Markdown (names in backticks)
    if (m.why) tip.appendMarkdown(`${m.why}  \n`);
    tip.appendMarkdown(`relevance ${Math.round(m.relevance_score * 100)}% · score ${m.score.toFixed(3)} · ${m.match_type}\n\n`);
    tip.appendMarkdown(breakdownMarkdown(m));
    for (const line of m.explanation) tip.appendMarkdown(`- ${escapeMarkdown(line)}\n`);
    item.tooltip = tip;
    item.contextValue = 'quarry.match';
    item.resourceUri = toUri(m.location);
    item.command = { command: 'quarry.results.open', title: 'Open', arguments: [node] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export type ResultNode = Node;

/** The location of a tree node (a match: its range; a file: the file). */
export function locationOfNode(node: Node | undefined): { uri: vscode.Uri; range?: vscode.Range } | undefined {
  if (!node) return undefined;
  if (node.type === 'match') return { uri: toUri(node.match.location), range: toRange(node.match.location) };
  if (node.type === 'file') return { uri: node.uri };
  return undefined;
}
