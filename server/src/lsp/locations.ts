/** LSP locations of results: a match's or symbol's name range (1-based line and UTF-16 column → LSP's 0-based). */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodeMatch, LspLocation } from './protocol';
import type { Folder } from './folder';

/** A location whose range is a name range (1-based line and UTF-16 column, exclusive end → LSP's 0-based). */
export function locationOf(f: Folder, path: string, name: { line: number; column: number; endLine: number; endColumn: number }): LspLocation {
  return {
    uri: pathToFileURL(resolve(f.root, path)).href,
    range: {
      start: { line: Math.max(0, name.line - 1), character: Math.max(0, name.column - 1) },
      end: { line: Math.max(0, name.endLine - 1), character: Math.max(0, name.endColumn - 1) },
    },
  };
}

/** Where a match is named (its `name_range`; the start of its span when it has none). */
export function matchLocation(f: Folder, m: CodeMatch): LspLocation {
  const r = m.name_range;
  return locationOf(f, m.file.path, r ? { line: r.line, column: r.column, endLine: r.end_line, endColumn: r.end_column } : { line: m.span[0], column: 1, endLine: m.span[0], endColumn: 1 });
}
