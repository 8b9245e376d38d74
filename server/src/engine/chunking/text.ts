/**
 * Chunkers for files without a grammar: a line/paragraph-aware window chunker (`text`) and a Markdown
 * heading-section chunker (`section`, symbol = heading path `Guide > Install`).
 */
import type { ChunkingConfig } from '../config/schema';
import { countTokens } from '../tokenize/tokenCount';
import { splitByLines, type ChunkDraft, type SourceText } from './common';

/** Paragraphs: [start, end) ranges separated by blank lines (separators attached to the previous block). */
function paragraphs(text: string, start: number, end: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const re = /\n[ \t]*\r?\n/g;
  re.lastIndex = start;
  let s = start;
  for (let m = re.exec(text); m && m.index < end; m = re.exec(text)) {
    // extend over further blank lines
    let e = m.index + m[0].length;
    while (e < end) {
      const nl = text.indexOf('\n', e);
      if (nl === -1 || nl >= end || text.slice(e, nl).trim() !== '') break;
      e = nl + 1;
    }
    if (e > s) out.push([s, Math.min(e, end)]);
    s = Math.min(e, end);
    re.lastIndex = s;
  }
  if (s < end) out.push([s, end]);
  return out;
}

/**
 * Windows over [start, end): whole paragraphs packed up to `target` tokens; a paragraph over the target is
 * cut at line boundaries. A sliver — a window under `min` tokens, at most a quarter of the target (a section's last
 * line after a full window: "See the API docs …", 33 tokens) — joins its neighbour, the previous one, else the next,
 * when the two stay within the target plus that much (and within `max`). Returns string index ranges.
 */
export function windows(text: string, start: number, end: number, target: number, min = 0, max = Infinity): Array<[number, number]> {
  const pieces: Array<[number, number, number]> = [];
  for (const [s, e] of paragraphs(text, start, end)) {
    const t = countTokens(text.slice(s, e));
    if (t <= target) pieces.push([s, e, t]);
    else for (const [a, b] of splitByLines(text, s, e, target)) pieces.push([a, b, countTokens(text.slice(a, b))]);
  }
  const out: Array<[number, number, number]> = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (last && last[2] + p[2] <= target) {
      last[1] = p[1];
      last[2] += p[2];
    } else out.push([p[0], p[1], p[2]]);
  }
  const sliver = Math.min(min, Math.floor(target / 4));
  const limit = Math.min(max, target + sliver);
  for (let i = 0; i < out.length && out.length > 1; ) {
    const w = out[i]!;
    const prev = out[i - 1];
    const next = out[i + 1];
    if (w[2] >= sliver) i++;
    else if (prev && prev[2] + w[2] <= limit) {
      prev[1] = w[1];
      prev[2] += w[2];
      out.splice(i, 1);
    } else if (next && next[2] + w[2] <= limit) {
      next[0] = w[0];
      next[2] += w[2];
      out.splice(i, 1);
    } else i++;
  }
  return out.map(([s, e]) => [s, e]);
}

export function textDraft(start: number, end: number, extra: Partial<ChunkDraft> = {}): ChunkDraft {
  return {
    kind: 'text',
    symbol: '',
    name: '',
    container: '',
    symbols: [],
    references: [],
    conformances: [],
    doc: '',
    signature: '',
    start,
    end,
    semanticClass: 'OPERATION_DATA',
    source: 'text',
    ...extra,
  };
}

export function chunkText(src: SourceText, config: ChunkingConfig): ChunkDraft[] {
  return windows(src.text, 0, src.text.length, config.targetTokens, config.minTokens, config.maxTokens).map(([s, e]) => textDraft(s, e));
}

export interface Heading {
  start: number;
  level: number;
  title: string;
  line: string;
}

/** ATX (`## Title`) and setext (`Title\n===`) headings outside fenced code blocks. */
export function headings(text: string): Heading[] {
  const out: Heading[] = [];
  let fence: string | null = null;
  let pos = 0;
  let prevLine = '';
  let prevStart = 0;
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl === -1 ? text.length : nl;
    const line = text.slice(pos, lineEnd).replace(/\r$/, '');
    const fm = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fm) {
      if (!fence) fence = fm[1];
      else if (fm[1][0] === fence[0] && fm[1].length >= fence.length && line.trim() === fm[1]) fence = null;
    } else if (!fence) {
      const atx = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/.exec(line) ?? /^ {0,3}(#{1,6})$/.exec(line);
      if (atx) out.push({ start: pos, level: atx[1].length, title: (atx[2] ?? '').trim(), line });
      else if (/^ {0,3}(=+|-+)[ \t]*$/.test(line) && prevLine.trim() !== '' && !/^ {0,3}(#|[-*+] |>)/.test(prevLine)) {
        const last = out[out.length - 1];
        if (!(last && last.start === prevStart)) out.push({ start: prevStart, level: line.trim()[0] === '=' ? 1 : 2, title: prevLine.trim(), line: prevLine });
      }
    }
    prevLine = fence ? '' : line;
    prevStart = pos;
    if (nl === -1) break;
    pos = nl + 1;
  }
  return out;
}

/**
 * AsciiDoc section titles: `= Document title`, `== Section`, … (level = number of `=`), outside delimited blocks
 * (`----`, `....`, `====`, `****`, `++++`, `____`, 4+ characters) and comments (`////`).
 */
export function asciidocHeadings(text: string): Heading[] {
  const out: Heading[] = [];
  let block: string | null = null;
  forEachLine(text, (line, start) => {
    const delim = /^(-{4,}|\.{4,}|={4,}|\*{4,}|\+{4,}|_{4,}|\/{4,})\s*$/.exec(line);
    if (delim) {
      if (block === null) block = delim[1];
      else if (delim[1] === block) block = null;
      return;
    }
    if (block !== null) return;
    const m = /^(={1,6})[ \t]+(\S.*?)[ \t]*$/.exec(line);
    if (m) out.push({ start, level: m[1].length, title: m[2].replace(/[ \t]+=+$/, ''), line });
  });
  return out;
}

/**
 * reStructuredText section titles: a title line underlined (optionally also overlined) with one repeated punctuation
 * character at least as long as the title; levels follow the order in which adornment styles first appear, as
 * docutils assigns them. Literal blocks are not tracked (an underline there is rare and only adds a section).
 */
export function rstHeadings(text: string): Heading[] {
  const out: Heading[] = [];
  const lines: Array<{ line: string; start: number }> = [];
  forEachLine(text, (line, start) => lines.push({ line, start }));
  const styles: string[] = [];
  const adornment = (l: string) => /^([!-\/:-@\[-`{-~])\1{2,}\s*$/.exec(l)?.[1];
  for (let i = 1; i < lines.length; i++) {
    const ch = adornment(lines[i].line);
    const title = lines[i - 1].line;
    if (!ch || !title.trim() || adornment(title) || /^\s/.test(title) || lines[i].line.trimEnd().length < title.trimEnd().length) continue;
    const over = i >= 2 && adornment(lines[i - 2].line) === ch;
    const style = (over ? 'o' : 'u') + ch;
    if (!styles.includes(style)) styles.push(style);
    const at = over ? i - 2 : i - 1;
    if (out.length && out[out.length - 1].start === lines[at].start) continue;
    out.push({ start: lines[at].start, level: styles.indexOf(style) + 1, title: title.trim(), line: title });
  }
  return out;
}

function forEachLine(text: string, fn: (line: string, start: number) => void): void {
  let pos = 0;
  while (pos <= text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl === -1 ? text.length : nl;
    fn(text.slice(pos, end).replace(/\r$/, ''), pos);
    if (nl === -1) break;
    pos = nl + 1;
  }
}

/** Where a heading's title is (the section's name range): string indices, or the whole heading line when untitled. */
export function headingName(h: Heading): { nameStart: number; nameEnd: number } {
  const at = h.title ? h.line.indexOf(h.title) : -1;
  if (at >= 0) return { nameStart: h.start + at, nameEnd: h.start + at + h.title.length };
  const lead = h.line.length - h.line.trimStart().length;
  return { nameStart: h.start + lead, nameEnd: h.start + h.line.trimEnd().length };
}

/**
 * A heading's title as a name: Markdown links and images reduced to their text (`[hyper](https://hyper.rs)` → hyper,
 * a badge `[![CI](…/badge.svg)](…)` → CI), so a section is not named, and matched, by its URLs.
 */
export function plainTitle(title: string): string {
  let s = title;
  for (let prev = ''; prev !== s; ) {
    prev = s;
    s = s.replace(/!?\[([^\[\]]*)\]\([^()\s]*(?:\s+"[^"]*")?\)/g, '$1');
  }
  return s.replace(/\s+/g, ' ').trim() || title;
}

/** Heading sections (Markdown by default; AsciiDoc and reStructuredText pass their own heading finder). */
export function chunkMarkdown(src: SourceText, config: ChunkingConfig, findHeadings: (text: string) => Heading[] = headings): ChunkDraft[] {
  const text = src.text;
  const hs = findHeadings(text);
  const drafts: ChunkDraft[] = [];
  const section = (start: number, end: number, path: string[], heading?: Heading) => {
    if (text.slice(start, end).trim() === '') return;
    const title = path[path.length - 1] ?? '';
    const extra: Partial<ChunkDraft> = {
      kind: 'section',
      symbol: path.join(' > '),
      name: title,
      container: path.slice(0, -1).join(' > '),
      symbols: title ? [title] : [],
      signature: heading ? heading.line.trim() : '',
      semanticClass: 'DOCUMENTATION_STRUCTURED',
      source: 'markdown',
      ...(heading ? headingName(heading) : {}),
    };
    for (const [s, e] of windows(text, start, end, config.targetTokens, config.minTokens, config.maxTokens)) drafts.push(textDraft(s, e, extra));
  };
  if (hs.length === 0 || hs[0].start > 0) section(0, hs.length ? hs[0].start : text.length, []);
  const stack: Heading[] = [];
  hs.forEach((h, i) => {
    while (stack.length > 0 && stack[stack.length - 1].level >= h.level) stack.pop();
    stack.push(h);
    const end = i + 1 < hs.length ? hs[i + 1].start : text.length;
    section(h.start, end, stack.map((x) => plainTitle(x.title)), h);
  });
  return drafts;
}
