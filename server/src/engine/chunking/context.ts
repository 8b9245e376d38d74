/**
 * A unit's context (issue 18, seed 002 FR-006): every named declaration is a unit of its own, so a three-line method
 * alone says little about what it is for. Instead of merging neighbours, each unit carries the signature of the
 * declaration it is a member of and the file's imports that bind a name it uses (`Chunk.context`); the embedded
 * views add them (embedding/views.ts). Computed once per file, after the units are drafted.
 */
import type { ChunkContext } from '../types';
import { collapse, type ChunkDraft } from './common';

/** One import a unit may use: its text as shown in the context, the names it binds, where it is (string indices). */
export interface ImportEntry {
  text: string;
  names: readonly string[];
  start: number;
  end: number;
}

/** At most this many imports per unit (the first ones in file order), each at most `MAX_IMPORT_CHARS`. */
export const MAX_IMPORTS = 8;
export const MAX_IMPORT_CHARS = 160;
const MAX_PARENT_CHARS = 200;

const QUOTED = /(["'`<])([^"'`<>\n]+)(["'`>])/g;
const IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

/**
 * The names a module path suggests when code refers to the module by its last segment (Go packages, Python/TS
 * namespace imports): `net/http` → http, `github.com/mattn/go-sqlite3` → sqlite3, go-sqlite3; `gopkg.in/yaml.v3` →
 * yaml; `example.com/mod/v2` → mod.
 */
export function modulePathNames(path: string): string[] {
  const segments = path.split(/[\\/]/).filter(Boolean);
  let last = segments.pop() ?? '';
  if (/^v\d+$/.test(last) && segments.length) last = segments.pop()!;
  const out = new Set<string>();
  const base = last.replace(/\.(v\d+|go|js|ts|mjs|cjs|jsx|tsx|py|rb|php|h|hpp)$/i, '');
  for (const n of [base, base.replace(/^go-|-go$/i, ''), base.replace(/[-.]/g, '_')]) if (IDENTIFIER.test(n)) out.add(n);
  return [...out];
}

/**
 * An import statement as one entry (the default for every language): the identifiers inside it, and the names its
 * quoted module paths suggest. A long statement (an import of many names) is shown as the names the unit uses and
 * its module path.
 */
export function statementEntry(text: string, identifiers: readonly string[], start: number, end: number): ImportEntry {
  const names = new Set(identifiers);
  for (const m of text.matchAll(QUOTED)) for (const n of modulePathNames(m[2]!)) names.add(n);
  return { text: collapse(text, 10_000), names: [...names], start, end };
}

/**
 * How an entry reads in one unit's context: a statement that imports a list of names (`from typing import cast,
 * Optional, Type`, `import { a, b } from './x'`, `use std::{fs, io}`) shows only the names this unit uses, so that
 * a module's common imports do not put the same words into every unit; anything else as written (at most
 * `MAX_IMPORT_CHARS`).
 */
function entryText(entry: ImportEntry, used: readonly string[]): string {
  const text = entry.text;
  const names = used.join(', ');
  const python = /^from\s+(\S+)\s+import\s/.exec(text);
  if (python) return collapse(`from ${python[1]} import ${names}`, MAX_IMPORT_CHARS);
  const rust = /^((?:pub\s+)?use\s+[\w:]+::)\{/.exec(text);
  if (rust) return collapse(`${rust[1]}{${names}}`, MAX_IMPORT_CHARS);
  const path = [...text.matchAll(QUOTED)].pop();
  if (path && /\brequire\s*\(/.test(text) && (text.includes('{') || text.length > MAX_IMPORT_CHARS)) {
    return collapse(`const { ${names} } = require(${path[0]})`, MAX_IMPORT_CHARS);
  }
  if (path && (text.includes('{') || text.length > MAX_IMPORT_CHARS)) {
    const keyword = /^(import\s+type|import|export)\b/.exec(text)?.[1] ?? (/^\S+/.exec(text)?.[0] ?? 'import');
    return collapse(`${keyword} { ${names} } from ${path[0]}`, MAX_IMPORT_CHARS);
  }
  return collapse(text, MAX_IMPORT_CHARS);
}

/**
 * Sets `context` on the drafts of one file: `parent` for a member of a declaration drafted in the same file (the
 * container's signature), `imports` for the entries binding a name the draft references as a name in scope
 * (`namesInScope`: by default all its references; the AST chunker leaves out names spelled only as members, `x.join`),
 * in file order (entries inside the draft's own text are left out: it shows them already).
 */
export function attachContext(drafts: ChunkDraft[], imports: readonly ImportEntry[], namesInScope: (d: ChunkDraft) => ReadonlySet<string> = (d) => new Set(d.references)): void {
  const signatures = new Map<string, string>();
  for (const d of drafts) {
    if (d.symbol && d.signature && !signatures.has(d.symbol)) signatures.set(d.symbol, d.signature);
  }
  for (const d of drafts) {
    const context: ChunkContext = {};
    const parent = d.container ? signatures.get(d.container) : undefined;
    if (parent && d.symbol !== d.container) context.parent = collapse(parent, MAX_PARENT_CHARS);
    if (imports.length && d.references.length) {
      const refs = namesInScope(d);
      const shown: string[] = [];
      for (const entry of imports) {
        if (shown.length >= MAX_IMPORTS) break;
        if (entry.start >= d.start && entry.end <= d.end) continue;
        const used = entry.names.filter((n) => refs.has(n));
        if (used.length) shown.push(entryText(entry, used));
      }
      if (shown.length) context.imports = shown;
    }
    if (context.parent || context.imports) d.context = context;
  }
}
