/**
 * Conversation logs as knowledge chunks (seed 003 FR-3.3/FR-3.4, §6.5).
 *
 * A Markdown file is a conversation log when its first non-blank line is the title `# Conversation: <topic>`
 * (recognised from the content, wherever the file lives). Its header may carry `Date: YYYY-MM-DD` and
 * `Query: <user query>` lines; its `## Phase N: Name` sections become one chunk each:
 *
 * - kind `section` (so `--type knowledge` selects it), source `conversation`, semantic class DOCUMENTATION_STRUCTURED;
 * - symbol = the seed's chunk id `conv-{filename}-phase{N}` (file name without extension), so it is shown with
 *   every result and an identifier search for it finds the phase; Quarry's own `id` stays the stable hash;
 * - name = the heading text (`Phase 3: Implementation`), container = the log's title, doc = the query,
 *   signature = the heading line;
 * - metadata (FR-3.4): `source_file` (the workspace-relative path), `topic`, `conversation_date` (YYYY-MM-DD from
 *   the file name, else from the Date field — UT-KNOW-04/05), `query`, `phase_number`, `phase_name`.
 *
 * A phase runs to the next heading of level 1 or 2; deeper headings stay inside it; a long phase is cut at paragraph
 * boundaries into windows that share its symbol and metadata. Line ranges are the file's own.
 * Malformed phase headers (`## Phas 1`, `## Phase one`) are not phases (UT-KNOW-03): their sections are indexed as
 * ordinary Markdown sections, so nothing of the file is lost. A header block holding only the title and `Key: value`
 * lines is metadata, not a chunk (UT-KNOW-01: 9 phases → 9 chunks). A log without any phase is one chunk
 * `conv-{filename}` covering the whole file (§6.5 fallback). An empty file gives no chunks.
 */
import type { ChunkingConfig } from '../config/schema';
import type { ChunkMetadata } from '../types';
import type { ChunkDraft, SourceText } from './common';
import { headingName, headings, textDraft, windows, type Heading } from './text';

const TITLE = /^conversation\s*:\s*(.*)$/i;
/** `Phase 3: Implementation`, `Phase 3 - Implementation`, `phase 3`. */
const PHASE = /^phase[ \t]+(\d+)(?![\w])[ \t]*(?:[:.)\u2013\u2014-][ \t]*)?(.*)$/i;
/** `Date: 2025-12-15`, `- Query: ...` (bold markers are removed first); a key of at most three words. */
const HEADER_FIELD = /^[ \t]*(?:[-*+][ \t]+)?([A-Za-z][\w-]*(?:[ \t][A-Za-z][\w-]*){0,2})[ \t]*:[ \t]*(.*?)[ \t]*$/;

export interface ConversationHeader {
  /** From `# Conversation: <topic>`, else the file name without its date. */
  topic: string;
  /** YYYY-MM-DD: from the file name, else from the `Date:` field; '' when neither holds a valid date. */
  date: string;
  /** The `Query:` field; '' when absent. */
  query: string;
  /** The file name without its extension (the `{filename}` of `conv-{filename}-phase{N}`). */
  stem: string;
}

export interface PhaseHeading {
  number: number;
  /** The text after the number (`Assessment`); '' for a bare `## Phase 3`. */
  name: string;
}

/** `## Phase N: Name` → its number and name; null for anything else (including near misses like `Phas 1`). */
export function parsePhaseHeading(title: string): PhaseHeading | null {
  const m = PHASE.exec(title.trim());
  if (!m) return null;
  return { number: Number(m[1]), name: m[2].trim() };
}

/** The last valid calendar date written YYYY-MM-DD in `text`; '' when none. */
export function dateIn(text: string): string {
  let found = '';
  for (const m of text.matchAll(/(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)/g)) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const t = new Date(Date.UTC(y, mo - 1, d));
    if (t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d) found = m[0];
  }
  return found;
}

/** File name without directories and its last extension. */
export function fileStem(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/** The seed's knowledge chunk id: `conv-{filename}-phase{N}`, or `conv-{filename}` for a log without phases. */
export function conversationChunkId(path: string, phase?: number): string {
  return phase === undefined ? `conv-${fileStem(path)}` : `conv-${fileStem(path)}-phase${phase}`;
}

/** Whether a Markdown text is a conversation log (its first non-blank line is `# Conversation: ...`). */
export function isConversationLog(text: string): boolean {
  const hs = headings(text);
  return titleOf(text, hs) !== null;
}

function titleOf(text: string, hs: Heading[]): Heading | null {
  const first = hs[0];
  if (!first || first.level !== 1 || !TITLE.test(first.title)) return null;
  return text.slice(0, first.start).trim() === '' ? first : null;
}

/** Header fields of the block [start, end) (`Date:`, `Query:`, any other `Key: value`), keys lower-cased. */
function headerFields(text: string, start: number, end: number): { fields: Map<string, string>; onlyFields: boolean } {
  const fields = new Map<string, string>();
  let onlyFields = true;
  const lines = text.slice(start, end).split('\n');
  lines.forEach((raw, i) => {
    if (i === 0) return; // the title line
    const line = raw.replace(/\r$/, '').replace(/\*\*|__/g, '');
    if (line.trim() === '' || /^ {0,3}(=+|-+)[ \t]*$/.test(line)) return; // blank, or a setext title's underline
    const m = HEADER_FIELD.exec(line);
    if (!m) {
      onlyFields = false;
      return;
    }
    const key = m[1].trim().toLowerCase();
    if (!fields.has(key)) fields.set(key, m[2]);
  });
  return { fields, onlyFields };
}

/** Header facts of a conversation log; null when the text is not one. */
export function parseConversationHeader(path: string, text: string): ConversationHeader | null {
  const hs = headings(text);
  const title = titleOf(text, hs);
  if (!title) return null;
  const end = hs.find((h) => h.start > title.start && h.level <= 2)?.start ?? text.length;
  return header(path, text, title, end).header;
}

function header(path: string, text: string, title: Heading, end: number): { header: ConversationHeader; onlyFields: boolean } {
  const { fields, onlyFields } = headerFields(text, title.start, end);
  const stem = fileStem(path);
  const date = dateIn(stem) || dateIn(fields.get('date') ?? '');
  const fromName = stem.replace(/[-_ .]*\d{4}-\d{2}-\d{2}[-_ .]*/, ' ').trim().replace(/\s+/g, '-');
  const topic = (TITLE.exec(title.title)?.[1] ?? '').trim() || fromName || stem;
  return { header: { topic, date, query: fields.get('query') ?? '', stem }, onlyFields };
}

/**
 * Drafts for a conversation log, or null when the text is not one (the caller then chunks it as Markdown).
 */
export function chunkConversation(src: SourceText, path: string, config: ChunkingConfig): ChunkDraft[] | null {
  const text = src.text;
  const hs = headings(text);
  const title = titleOf(text, hs);
  if (!title) return null;
  const boundaries = hs.filter((h) => h.start > title.start && h.level <= 2);
  const { header: info, onlyFields } = header(path, text, title, boundaries[0]?.start ?? text.length);
  const base: ChunkMetadata = { source_file: path, topic: info.topic };
  if (info.date) base.conversation_date = info.date;
  if (info.query) base.query = info.query;

  const drafts: ChunkDraft[] = [];
  const emit = (start: number, end: number, extra: Partial<ChunkDraft>) => {
    if (text.slice(start, end).trim() === '') return;
    for (const [s, e] of windows(text, start, end, config.targetTokens, config.minTokens, config.maxTokens)) drafts.push(textDraft(s, e, extra));
  };
  const knowledge = (extra: Partial<ChunkDraft>): Partial<ChunkDraft> => ({
    kind: 'section',
    container: '',
    doc: info.query,
    semanticClass: 'DOCUMENTATION_STRUCTURED',
    source: 'conversation',
    ...extra,
  });

  const phases = boundaries.map((h) => (h.level === 2 ? parsePhaseHeading(h.title) : null));
  if (!phases.some(Boolean)) {
    // §6.5 fallback: no phase headers → the whole log is one knowledge chunk.
    emit(0, text.length, knowledge({
      symbol: conversationChunkId(path),
      name: title.title,
      symbols: [title.title],
      signature: title.line.trim(),
      metadata: base,
      ...headingName(title),
    }));
    return drafts;
  }

  const firstEnd = boundaries[0].start;
  if (!onlyFields) {
    // The header block holds more than the title and its fields: keep that text as an ordinary section.
    emit(title.start, firstEnd, markdownSection([title.title], title));
  }
  boundaries.forEach((h, i) => {
    const end = i + 1 < boundaries.length ? boundaries[i + 1].start : text.length;
    const phase = phases[i];
    if (!phase) {
      // Not a phase (a malformed `## Phas 1`, or another section): skipped as a phase, kept as Markdown.
      emit(h.start, end, markdownSection(h.level === 1 ? [h.title] : [title.title, h.title], h));
      return;
    }
    emit(h.start, end, knowledge({
      symbol: conversationChunkId(path, phase.number),
      name: h.title,
      container: title.title,
      symbols: [h.title],
      signature: h.line.trim(),
      metadata: { ...base, phase_number: phase.number, phase_name: phase.name },
      ...headingName(h),
    }));
  });
  return drafts;
}

function markdownSection(path: string[], heading: Heading): Partial<ChunkDraft> {
  const name = path[path.length - 1] ?? '';
  return {
    kind: 'section',
    symbol: path.join(' > '),
    name,
    container: path.slice(0, -1).join(' > '),
    symbols: name ? [name] : [],
    signature: heading.line.trim(),
    semanticClass: 'DOCUMENTATION_STRUCTURED',
    source: 'markdown',
    ...headingName(heading),
  };
}
