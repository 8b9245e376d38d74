/**
 * Where the cursor goes when a result is opened (Find Code, the Code Search view, the results document): on the
 * declaration's NAME, as Go to Symbol does, with nothing selected. Pure (no vscode import): unit-tested directly.
 *
 *   1. the server's `name_range` (1-based line, 1-based UTF-16 column, exclusive end column) when the match has one
 *      and it lies inside the document;
 *   2. else the first whole-word occurrence of the symbol's last segment (`matched_symbol` when the query named a
 *      member of the chunk, else `content.symbol`: `Ledger.ReserveUnits` → `ReserveUnits`) within the span's lines,
 *      code lines before comment lines (a doc comment above the declaration often names it);
 *   3. else the span's first non-blank character.
 */

/** The server's name range (results schema): 1-based line, 1-based column in UTF-16 code units, exclusive end. */
export interface NameRange {
  line: number;
  column: number;
  end_line: number;
  end_column: number;
}

/** What the function needs of a match (a `LocatedMatch` fits). */
export interface NameTarget {
  /** 1-based inclusive line range of the unit. */
  span: [number, number];
  content: { symbol?: string };
  matched_symbol?: string;
  name_range?: NameRange | null;
}

/** The document's lines, 0-based (a `TextDocument` adapts as `{ lineCount, lineAt: (i) => doc.lineAt(i).text }`). */
export interface LineSource {
  lineCount: number;
  lineAt(line: number): string;
}

/** 0-based position of the name; `end` is the exclusive end character on `line` (equal to `character` when unknown). */
export interface NamePosition {
  line: number;
  character: number;
  end: number;
  source: 'name_range' | 'symbol' | 'first-non-blank';
}

const IDENT = /[\p{L}\p{N}_$]/u;
/** A line that starts a comment (C-family, shell/Python, SQL/Lua, Lisp, block-comment continuation, docstring). */
const COMMENT = /^\s*(\/\/|\/\*|\*|#(?![[!])|--|;|'''|\"\"\"|<!--)/;

/** The last segment of a qualified symbol: `a.b.C` → `C`, `Foo::bar` → `bar`, `pkg/x#y` → `y`; '' for none. */
export function lastSegment(symbol: string | undefined): string {
  if (!symbol) return '';
  const seg = symbol.split('.').pop() ?? '';
  // Other qualifiers some languages use (Rust/C++ `::`, `#` members, `/` paths), and call parentheses.
  return (seg.split(/::|#|\//).pop() ?? '').replace(/\(.*$/, '').trim();
}

/** The first whole-word occurrence of `word` in `text` (identifier characters do not continue it on either side). */
export function findWholeWord(text: string, word: string): number {
  if (!word) return -1;
  let from = 0;
  for (;;) {
    const i = text.indexOf(word, from);
    if (i < 0) return -1;
    const before = i > 0 ? text[i - 1] : '';
    const after = text[i + word.length] ?? '';
    if (!(before && IDENT.test(before)) && !(after && IDENT.test(after))) return i;
    from = i + 1;
  }
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, n));
}

export function namePosition(m: NameTarget, doc: LineSource): NamePosition {
  const last = Math.max(0, doc.lineCount - 1);
  const first = clamp((m.span?.[0] ?? 1) - 1, 0, last);
  const end = clamp((m.span?.[1] ?? m.span?.[0] ?? 1) - 1, first, last);

  const r = m.name_range;
  if (r && Number.isFinite(r.line) && Number.isFinite(r.column) && r.line >= 1 && r.line - 1 <= last) {
    const text = doc.lineAt(r.line - 1);
    const character = clamp(r.column - 1, 0, text.length);
    const endCharacter = r.end_line === r.line && Number.isFinite(r.end_column) ? clamp(r.end_column - 1, character, text.length) : text.length;
    return { line: r.line - 1, character, end: endCharacter, source: 'name_range' };
  }

  const names = [lastSegment(m.matched_symbol), lastSegment(m.content?.symbol)].filter((n, i, a) => n && a.indexOf(n) === i);
  // Code lines first: a doc comment above the declaration often names it too ("// ReserveUnits takes ...").
  for (const skipComments of [true, false]) {
    for (const name of names) {
      for (let line = first; line <= end; line++) {
        const text = doc.lineAt(line);
        if (skipComments && COMMENT.test(text)) continue;
        const i = findWholeWord(text, name);
        if (i >= 0) return { line, character: i, end: i + name.length, source: 'symbol' };
      }
    }
  }

  for (let line = first; line <= end; line++) {
    const i = doc.lineAt(line).search(/\S/);
    if (i >= 0) return { line, character: i, end: i, source: 'first-non-blank' };
  }
  return { line: first, character: 0, end: 0, source: 'first-non-blank' };
}

/** A `LineSource` over a string (a chunk's content placed at its span, or a file's text). */
export function linesOf(text: string, firstLine = 0): LineSource {
  const lines = text.split(/\r?\n/);
  return {
    lineCount: firstLine + lines.length,
    lineAt: (i) => (i >= firstLine ? (lines[i - firstLine] ?? '') : ''),
  };
}
