/**
 * Long prose comments in code files — Go's package documentation in `doc.go`, a Python module docstring, Rust's `//!`
 * crate docs — are documentation with headings of their own ("Installation", "Connection String"). The AST chunker
 * sees one unnamed chunk of comment; this pass splits such a chunk at its headings into sections, as a README is
 * split, so that a question answered by one section finds that section and opens at its title.
 *
 * Headings inside a comment (after its markers `//`, `*`, `#`, `//!` are set aside):
 * - Markdown's `# Title` (Go 1.19 doc comments, rustdoc);
 * - Go's older convention: a single line that starts with a capital letter, has no punctuation but parentheses and
 *   commas, with blank comment lines around it;
 * - reStructuredText underlines (`Title` then `=====` or `-----`), as in Python docstrings.
 */
import type { ChunkDraft, SourceText } from './common';
import type { ChunkingConfig } from '../config/schema';
import { isMostlyComment } from '../tokenize/comments';
import { textDraft, windows } from './text';

/** A prose comment shorter than this many lines stays one chunk. */
const MIN_LINES = 30;

interface DocHeading {
  /** Index in the file where the heading's line starts. */
  start: number;
  title: string;
  titleStart: number;
}

/** The line without its comment markers, and where its text starts within the line. */
function prose(line: string): { text: string; at: number } {
  // a line without a marker (inside /* */ or a docstring) keeps its indentation: indented lines are code examples
  const m = /^\s*(?:\/\/+!?|\/?\*+\/?(?=\s|$)|#+!?(?=\s|$)|"""|''')\s?/.exec(line);
  const at = m ? m[0].length : 0;
  return { text: line.slice(at).trimEnd(), at };
}

const GO_HEADING = /^[A-Z][\p{L}\p{N} (),'-]*[\p{L}\p{N})]$/u;

/** The headings of a comment that runs from `start` to `end` in `text`. */
export function docHeadings(text: string, start: number, end: number): DocHeading[] {
  const lines: Array<{ start: number; raw: string; text: string; at: number }> = [];
  for (let pos = start; pos < end; ) {
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl < 0 || nl > end ? end : nl;
    const raw = text.slice(pos, lineEnd);
    lines.push({ start: pos, raw, ...prose(raw) });
    pos = lineEnd + 1;
  }
  const blank = (i: number) => i < 0 || i >= lines.length || lines[i]!.text.trim() === '';
  const out: DocHeading[] = [];
  lines.forEach((l, i) => {
    const atx = /^#{1,4}\s+(\S.*)$/.exec(l.text);
    if (atx) {
      out.push({ start: l.start, title: atx[1]!.trim(), titleStart: l.start + l.at + l.text.indexOf(atx[1]!) });
      return;
    }
    const next = lines[i + 1];
    if (next && l.text.trim() && /^(=+|-+)$/.test(next.text.trim()) && next.text.trim().length >= l.text.trim().length - 1 && blank(i - 1)) {
      out.push({ start: l.start, title: l.text.trim(), titleStart: l.start + l.at + (l.text.length - l.text.trimStart().length) });
      return;
    }
    const t = l.text;
    if (t === t.trimStart() && t.length <= 60 && GO_HEADING.test(t) && blank(i - 1) && blank(i + 1) && i > 0 && i < lines.length - 1) {
      // the paragraph after a heading is not indented code, and a heading is not the comment's first sentence
      const after = lines[i + 2];
      if (after && /^\s/.test(after.text)) return;
      out.push({ start: l.start, title: t, titleStart: l.start + l.at });
    }
  });
  return out;
}

/** Splits each long, unnamed, prose-only code chunk at its headings (see the module comment). */
export function splitProseComments(drafts: ChunkDraft[], src: SourceText, language: string, config: ChunkingConfig): ChunkDraft[] {
  const out: ChunkDraft[] = [];
  for (const d of drafts) {
    const body = src.text.slice(d.start, d.end);
    if (d.kind !== 'code' || d.name || d.content !== undefined || src.lineOf(d.end - 1) - src.lineOf(d.start) + 1 < MIN_LINES || !isMostlyComment(body, language)) {
      out.push(d);
      continue;
    }
    const hs = docHeadings(src.text, d.start, d.end);
    if (!hs.length) {
      out.push(d);
      continue;
    }
    const section = (start: number, end: number, h?: DocHeading) => {
      if (src.text.slice(start, end).trim() === '') return;
      const extra: Partial<ChunkDraft> = {
        kind: 'section',
        symbol: h?.title ?? '',
        name: h?.title ?? '',
        symbols: h ? [h.title] : [],
        signature: h ? h.title : '',
        semanticClass: 'DOCUMENTATION_STRUCTURED',
        source: 'text',
        references: d.references,
        ...(h ? { nameStart: h.titleStart, nameEnd: h.titleStart + h.title.length } : {}),
      };
      for (const [s, e] of windows(src.text, start, end, config.targetTokens, config.minTokens, config.maxTokens)) out.push(textDraft(s, e, extra));
    };
    section(d.start, hs[0]!.start);
    hs.forEach((h, i) => section(h.start, i + 1 < hs.length ? hs[i + 1]!.start : d.end, h));
  }
  return out;
}
