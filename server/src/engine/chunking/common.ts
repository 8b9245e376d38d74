/**
 * Shared chunk plumbing: offsets (UTF-16 string index → UTF-8 byte offset, line numbers), stable ids,
 * hashes, token counts and the final Chunk record.
 */
import { createHash } from 'node:crypto';
import type { Chunk, ChunkKind, ChunkMetadata, ChunkSource, NameRange, SemanticClass } from '../types';

/** A further name a draft declares (string indices of its identifier); becomes `Chunk.symbolRanges`. */
export interface DraftSymbol {
  name: string;
  symbol: string;
  kind: ChunkKind;
  container: string;
  start: number;
  end: number;
}
import { countTokens } from '../tokenize/tokenCount';
import { isAscii } from '../tokenize/asciiPieces';

/** Offsets into one file's text. All inputs are JS string (UTF-16 code unit) indices. */
export class SourceText {
  readonly text: string;
  private readonly lineStarts: number[];
  private utf8?: Uint32Array;
  private readonly ascii: boolean;

  constructor(text: string) {
    this.text = text;
    const starts = [0];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    this.lineStarts = starts;
    this.ascii = isAscii(text);
  }

  /** 1-based line of a string index. */
  lineOf(index: number): number {
    const starts = this.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /**
   * Tokens in [start, end) for sizing decisions. Whole lines are counted once per file and summed from a
   * prefix table; only the partial first and last lines are counted on demand. Within a few percent of
   * counting the slice itself (BPE merges across line breaks are rare); stored chunk sizes still use the
   * exact count of the chunk's text.
   */
  tokensIn(start: number, end: number): number {
    if (end - start < 512) return countTokens(this.text.slice(start, end));
    const first = this.lineOf(start); // 1-based
    const last = this.lineOf(end);
    if (last - first < 2) return countTokens(this.text.slice(start, end));
    const prefix = this.linePrefix();
    const firstFull = first; // index (0-based) of the first whole line after the partial first line
    const lastFull = last - 1; // 0-based index of the line containing `end` (partial)
    const head = countTokens(this.text.slice(start, this.lineStarts[firstFull]));
    const tail = countTokens(this.text.slice(this.lineStarts[lastFull], end));
    return head + (prefix[lastFull] - prefix[firstFull]) + tail;
  }

  private prefixTokens?: Float64Array;

  /** prefix[i] = tokens in lines [0, i). */
  private linePrefix(): Float64Array {
    if (!this.prefixTokens) {
      const starts = this.lineStarts;
      const prefix = new Float64Array(starts.length + 1);
      for (let i = 0; i < starts.length; i++) {
        const lineEnd = i + 1 < starts.length ? starts[i + 1] : this.text.length;
        prefix[i + 1] = prefix[i] + countTokens(this.text.slice(starts[i], lineEnd));
      }
      this.prefixTokens = prefix;
    }
    return this.prefixTokens;
  }

  /** 1-based line and 1-based column (UTF-16 code units) of a string index. */
  positionOf(index: number): { line: number; column: number } {
    const line = this.lineOf(index);
    return { line, column: index - this.lineStarts[line - 1] + 1 };
  }

  /**
   * The name range of [start, end): 1-based line/column of `start`, exclusive end column of `end` (on the line where
   * the last character is).
   */
  rangeOf(start: number, end: number): NameRange {
    const a = this.positionOf(start);
    if (end <= start) return { line: a.line, column: a.column, endLine: a.line, endColumn: a.column };
    const endLine = this.lineOf(end - 1);
    return { line: a.line, column: a.column, endLine, endColumn: end - this.lineStarts[endLine - 1] + 1 };
  }

  /** [start, end) of the first non-blank line in [from, to), trimmed; null when all blank. */
  firstNonBlankLine(from: number, to: number): [number, number] | null {
    const t = this.text;
    let i = from;
    while (i < to && /\s/.test(t[i])) i++;
    if (i >= to) return null;
    const nl = t.indexOf('\n', i);
    let e = nl === -1 || nl > to ? to : nl;
    while (e > i && /\s/.test(t[e - 1])) e--;
    return [i, e];
  }

  /** String index where the line containing `index` starts. */
  lineStartOf(index: number): number {
    return this.lineStarts[this.lineOf(index) - 1];
  }

  /** UTF-8 byte offset of a string index. */
  byteOf(index: number): number {
    if (this.ascii) return index;
    if (!this.utf8) {
      const t = this.text;
      const map = new Uint32Array(t.length + 1);
      let b = 0;
      for (let i = 0; i < t.length; i++) {
        map[i] = b;
        const c = t.charCodeAt(i);
        if (c < 0x80) b += 1;
        else if (c < 0x800) b += 2;
        else if (c >= 0xd800 && c <= 0xdbff && i + 1 < t.length && (t.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
          // surrogate pair: 4 bytes; the low half maps to the pair's start
          map[i + 1] = b;
          b += 4;
          i++;
        } else b += 3;
      }
      map[t.length] = b;
      this.utf8 = map;
    }
    return this.utf8[Math.max(0, Math.min(index, this.text.length))];
  }
}

export function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Whitespace-collapsed, at most `max` characters. */
export function collapse(text: string, max = 300): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

export const CALLABLE_KINDS: ReadonlySet<ChunkKind> = new Set<ChunkKind>(['function', 'method', 'constructor']);

const TEST_NAME = /^(test_?[A-Za-z0-9_]*|Test[A-Z0-9_][A-Za-z0-9_]*|[A-Za-z0-9_]*(Test|Tests|Spec|_test|_spec))$/;

export { isTestPath } from '../testPaths';

export function isTestName(name: string): boolean {
  return name.length > 0 && TEST_NAME.test(name);
}

/** Everything a chunk needs besides the derived fields (id, lines, bytes, tokens, hash). */
export type ChunkDraft = Pick<
  Chunk,
  'kind' | 'symbol' | 'name' | 'container' | 'symbols' | 'references' | 'conformances' | 'doc' | 'signature' | 'semanticClass' | 'source'
> & {
  /** String indices into the file (end exclusive). */
  start: number;
  end: number;
  /** Chunk text; defaults to the file slice [start, end). */
  content?: string;
  /** Copied to `Chunk.metadata` when present. */
  metadata?: ChunkMetadata;
  /**
   * String indices of the unit's name (the declaration's identifier, a section's heading title); without them the
   * chunk's name range is the first non-blank line of [start, end).
   */
  nameStart?: number;
  nameEnd?: number;
  /** Further names the unit declares (secondary declarators, members of a container kept whole). */
  extraSymbols?: DraftSymbol[];
};

/** The name range of a draft: its name when it has one, else its first non-blank line. */
export function draftNameRange(src: SourceText, d: ChunkDraft): NameRange {
  if (d.nameStart !== undefined && d.nameEnd !== undefined && d.nameEnd >= d.nameStart) return src.rangeOf(d.nameStart, d.nameEnd);
  const line = src.firstNonBlankLine(d.start, d.end);
  return line ? src.rangeOf(line[0], line[1]) : src.rangeOf(d.start, d.start);
}

/**
 * Turns drafts into chunks: content, lines, bytes, tokens, hashes and stable ids (path + kind + symbol +
 * ordinal among chunks with the same kind and symbol — no line numbers, so edits above keep ids).
 */
export function finalizeChunks(path: string, language: string, src: SourceText, drafts: ChunkDraft[]): Chunk[] {
  const ordinals = new Map<string, number>();
  const out: Chunk[] = [];
  for (const d of drafts) {
    const content = d.content ?? src.text.slice(d.start, d.end);
    if (content.trim().length === 0) continue;
    const key = `${d.kind}\u0000${d.symbol}`;
    const ordinal = ordinals.get(key) ?? 0;
    ordinals.set(key, ordinal + 1);
    const endForLine = d.end > d.start ? d.end - 1 : d.end;
    const chunk: Chunk = {
      id: sha1(`${path}\u0000${d.kind}\u0000${d.symbol}\u0000${ordinal}`).slice(0, 20),
      path,
      language,
      kind: d.kind,
      symbol: d.symbol,
      name: d.name,
      container: d.container,
      symbols: d.symbols,
      references: d.references,
      conformances: d.conformances,
      doc: d.doc,
      signature: d.signature,
      startLine: src.lineOf(d.start),
      endLine: src.lineOf(endForLine),
      nameRange: draftNameRange(src, d),
      startByte: src.byteOf(d.start),
      endByte: src.byteOf(d.end),
      content,
      semanticClass: d.semanticClass,
      tokenCount: countTokens(content),
      contentHash: sha256(content),
      source: d.source,
    };
    if (d.metadata) chunk.metadata = { ...d.metadata };
    if (d.extraSymbols?.length) {
      chunk.symbolRanges = d.extraSymbols.map((x) => ({ name: x.name, symbol: x.symbol, kind: x.kind, container: x.container, range: src.rangeOf(x.start, x.end) }));
    }
    out.push(chunk);
  }
  return out;
}

/**
 * Splits [start, end) of the text into line-aligned windows of at most `maxTokens` tokens
 * (a single over-long line is cut by characters). Returns string index ranges.
 */
export function splitByLines(text: string, start: number, end: number, maxTokens: number): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let segStart = start;
  let segTokens = 0;
  let i = start;
  while (i < end) {
    const nl = text.indexOf('\n', i);
    const lineEnd = nl === -1 || nl >= end ? end : nl + 1;
    const lineTokens = countTokens(text.slice(i, lineEnd));
    if (lineTokens > maxTokens) {
      if (i > segStart) ranges.push([segStart, i]);
      // cut the line by characters, roughly maxTokens each
      const step = Math.max(1, Math.floor(((lineEnd - i) * maxTokens) / lineTokens * 0.9));
      for (let p = i; p < lineEnd; ) {
        let q = Math.min(lineEnd, p + step);
        if (q < lineEnd && (text.charCodeAt(q - 1) & 0xfc00) === 0xd800) q++;
        ranges.push([p, q]);
        p = q;
      }
      segStart = lineEnd;
      segTokens = 0;
    } else if (segTokens + lineTokens > maxTokens && i > segStart) {
      ranges.push([segStart, i]);
      segStart = i;
      segTokens = lineTokens;
    } else {
      segTokens += lineTokens;
    }
    i = lineEnd;
  }
  if (segStart < end) ranges.push([segStart, end]);
  return ranges;
}
