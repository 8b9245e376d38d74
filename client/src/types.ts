/**
 * vscode helpers over the payloads of Quarry's LSP messages (ranges, URIs, icons, labels). The method names and
 * payload types themselves are imported from the one module client and server share, `server/src/lsp/protocol.ts`.
 */
import * as vscode from 'vscode';
import type { LocatedMatch, LspLocation } from '../../server/src/lsp/protocol';

export function toRange(l: LspLocation): vscode.Range {
  return new vscode.Range(l.range.start.line, l.range.start.character, l.range.end.line, l.range.end.character);
}

export function toUri(l: LspLocation): vscode.Uri {
  return vscode.Uri.parse(l.uri);
}

/** The codicon of a chunk kind (`$(symbol-class)`, ...). */
export function iconOf(kind: string): string {
  switch (kind) {
    case 'class':
    case 'extension':
    case 'impl':
      return 'symbol-class';
    case 'struct':
      return 'symbol-struct';
    case 'interface':
    case 'protocol':
    case 'trait':
      return 'symbol-interface';
    case 'enum':
      return 'symbol-enum';
    case 'function':
      return 'symbol-function';
    case 'method':
      return 'symbol-method';
    case 'constructor':
      return 'symbol-constructor';
    case 'variable':
    case 'constant':
      return 'symbol-variable';
    case 'module':
    case 'namespace':
      return 'symbol-namespace';
    case 'type_alias':
      return 'symbol-type-parameter';
    case 'section':
      return 'symbol-key';
    case 'file':
      return 'file';
    default:
      return 'symbol-misc';
  }
}

/**
 * The name shown for a match: the declaration an identifier named inside it (a member of a class kept whole, a
 * re-export alias), else its symbol, or the file name when the chunk has none.
 */
export function labelOf(m: LocatedMatch): string {
  if (m.matched_symbol) return m.matched_symbol;
  if (m.content.symbol) return m.content.symbol;
  const parts = m.file.path.split('/');
  return parts[parts.length - 1] || m.file.path;
}

/** The first non-blank line of the chunk (or its signature), trimmed to one line. */
export function snippetOf(m: LocatedMatch, max = 160): string {
  const source = m.content.signature || m.content.content || '';
  const line = source.split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? '';
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
}

/** Workspace-relative path with the 1-based start line: `src/a.ts:12`. */
export function whereOf(m: LocatedMatch): string {
  return `${m.file.path}:${m.span[0]}`;
}

export function fileUriOf(m: LocatedMatch): vscode.Uri {
  return toUri(m.location);
}

/** Why a match is here, for plain-text places (QuickPick rows, the results document): the server's words without Markdown. */
export function plainWhy(m: Pick<LocatedMatch, 'why'>): string {
  return (m.why ?? '').replace(/`/g, '');
}
