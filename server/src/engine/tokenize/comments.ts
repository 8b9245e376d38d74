/**
 * Comments in source text, told apart from code by their markers — without a parser, so that the lexical index and
 * the ranking can use it on any stored chunk: `//` and block comments in the C family, `#` in Python and Ruby (PHP has
 * both), Python docstrings. A marker inside a string literal is taken for a comment, which errs on the side of prose.
 */

const C_COMMENTS = /\/\/|\/\*/g;
const COMMENT_MARKERS: Record<string, RegExp> = {
  python: /#|"""|'''/g,
  ruby: /#/g,
  php: /\/\/|\/\*|#(?!\[)/g,
};
/** Languages whose comments this module knows (the others are returned unchanged: all code). */
const KNOWN = new Set(['typescript', 'tsx', 'javascript', 'python', 'go', 'rust', 'java', 'kotlin', 'csharp', 'swift', 'c', 'cpp', 'ruby', 'php', 'scala', 'dart']);

/** Calls `visit` on each piece of the text in order: code, or a comment (markers included). */
export function forEachPiece(text: string, language: string, visit: (piece: string, comment: boolean) => void): void {
  if (!KNOWN.has(language)) {
    visit(text, false);
    return;
  }
  const marker = new RegExp(COMMENT_MARKERS[language] ?? C_COMMENTS);
  let pos = 0;
  for (let m = marker.exec(text); m; m = marker.exec(text)) {
    const open = m[0];
    const end = open === '/*' ? closeAt(text, m.index + 2, '*/') : open === '"""' || open === "'''" ? closeAt(text, m.index + 3, open) : lineEnd(text, m.index);
    if (m.index > pos) visit(text.slice(pos, m.index), false);
    visit(text.slice(m.index, end), true);
    pos = end;
    marker.lastIndex = end;
  }
  if (pos < text.length) visit(text.slice(pos), false);
}

/** The text with `code` applied to its code and its comments kept as they are. */
export function mapCode(text: string, language: string, code: (segment: string) => string): string {
  let out = '';
  forEachPiece(text, language, (piece, comment) => (out += comment ? piece : code(piece)));
  return out;
}

/** The text with its comments (and Python docstrings) replaced by a space each: the code alone. */
export function codeOnly(text: string, language: string): string {
  let out = '';
  forEachPiece(text, language, (piece, comment) => (out += comment ? ' ' : piece));
  return out;
}

/** A licence or copyright notice: comments, but not documentation. */
const NOTICE = /copyright|licen[cs]e|SPDX-|all rights reserved/i;

/**
 * Whether a code chunk is prose: comments with almost no code, as in Go's `doc.go` (a package comment and `package
 * x`), a Python module docstring, Rust's `//!` crate docs. Such a chunk answers questions the way a README does.
 * Licence notices do not count as prose (a file of a notice, build tags and `package x` is not documentation).
 */
export function isMostlyComment(text: string, language: string): boolean {
  if (!KNOWN.has(language)) return false;
  let code = 0;
  let prose = 0;
  forEachPiece(text, language, (piece, comment) => {
    const n = piece.replace(/\s+/g, '').length;
    if (!comment) code += n;
    else if (!NOTICE.test(piece)) prose += n;
  });
  return prose >= 200 && code <= (code + prose) * 0.1;
}

function lineEnd(text: string, from: number): number {
  const nl = text.indexOf('\n', from);
  return nl < 0 ? text.length : nl;
}

function closeAt(text: string, from: number, close: string): number {
  const at = text.indexOf(close, from);
  return at < 0 ? text.length : at + close.length;
}
