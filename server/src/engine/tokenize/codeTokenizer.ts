/**
 * The code-aware tokenizer (seed 003 FR-1.1, section 6.1), shared by indexing and queries.
 *
 * - Words are runs of letters/digits/underscores (Unicode-aware); everything else separates them,
 *   so `auth.oauth.client`, `user@email.com` and `a->b` split on their punctuation.
 * - Each word is split into PARTS on snake_case underscores, camelCase humps, acronym boundaries
 *   (`HTTPSConnection` → https, connection) and letter/digit boundaries (`utf8Decode` → utf, 8, decode).
 * - Everything is lower-cased. No stemming and no stop-word removal (the seed forbids both).
 * - Compound words are also kept WHOLE (`getuserdata`, `user_manager`) so exact identifiers can match
 *   exactly; the BM25 index keeps parts and whole identifiers in separate fields (STACK.md: parts-only
 *   helps natural-language queries, whole identifiers help identifier queries).
 */

import { registerIndexingMemo } from '../indexingMemos';
import { ownString } from './ownString';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const porter2 = require('wink-porter2-stemmer') as (word: string) => string;

const WORD = /[\p{L}\p{N}_]+/gu;
/** Split points inside a word: lower→Upper, ACRONYM→Word, letter↔digit. */
const HUMP = /(?<=[\p{Ll}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=[\p{L}])(?=\p{N})|(?<=\p{N})(?=\p{L})/u;

/** The raw words of a text, in order (case preserved). */
export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The lower-cased parts of one identifier: `getHTTPResponse2` → get, http, response, 2. */
export function identifierParts(word: string): string[] {
  return partsOf(word);
}

/** The lower-cased parts of one word (a new array; the memo keeps them packed in one string). */
export function partsOf(word: string): string[] {
  const packed = packedWord(word);
  const tab = packed.indexOf(STEMS_AT);
  const out: string[] = [];
  pushSplit(packed, tab < 0 ? packed.length : tab, out);
  return out;
}

/**
 * Appends a word's parts to `parts` and their stems (`stemOf`) to `stems`: what indexing reads of every word of every
 * chunk (lexicalDoc.ts), from the bounded memo, without an array per word.
 */
export function pushPartsAndStems(word: string, parts: string[], stems: string[]): void {
  const packed = packedWord(word);
  const tab = packed.indexOf(STEMS_AT);
  if (tab < 0) {
    // every stem is its part
    const from = parts.length;
    pushSplit(packed, packed.length, parts);
    for (let i = from; i < parts.length; i++) stems.push(parts[i]!);
  } else {
    pushSplit(packed, tab, parts);
    pushSplitFrom(packed, tab + 1, stems);
  }
}

/** Between the parts in a packed word, and between its stems (a word's parts have no white space). */
const PART_SEP = ' ';
/** Starts a packed word's stems when one differs from its part. */
const STEMS_AT = '\t';

/** Pushes the ' '-separated pieces of `packed` before `end` (none for `_`, a word of no parts: packed as ''). */
function pushSplit(packed: string, end: number, out: string[]): void {
  if (end === 0) return;
  if (end === packed.length && packed.indexOf(PART_SEP) < 0) {
    out.push(packed);
    return;
  }
  let from = 0;
  for (let sp = packed.indexOf(PART_SEP); sp !== -1 && sp < end; sp = packed.indexOf(PART_SEP, from)) {
    out.push(packed.slice(from, sp));
    from = sp + 1;
  }
  out.push(packed.slice(from, end));
}

/** Pushes the ' '-separated pieces of `packed` from `start` to its end. */
function pushSplitFrom(packed: string, start: number, out: string[]): void {
  let from = start;
  for (let sp = packed.indexOf(PART_SEP, from); sp !== -1; sp = packed.indexOf(PART_SEP, from)) {
    out.push(packed.slice(from, sp));
    from = sp + 1;
  }
  out.push(packed.slice(from));
}

/**
 * A word's parts and stems in one string (bounded memo): the parts joined by ' ', then, only when a stem differs from
 * its part, a tab and the stems joined by ' ' (`getHTTPResponse2` → `get http response 2`; `readLines` →
 * `read lines\tread line`). A word that is its own one part and stem (`err`, `return`) is its own record. Issue 19:
 * with an object and two arrays per word, the memo held 17.7 MB of the language server's heap on a 1,000-file
 * workspace (bench:ls-rss, heap snapshots of the steady state); packed, 5.2 MB. Reading a packed word cuts its
 * parts out again (lexical documents of 53k Go chunks: about 10–15% slower, the same tokens).
 */
function packedWord(word: string): string {
  const known = PARTS.get(word);
  if (known !== undefined) return known;
  const parts: string[] = [];
  for (const piece of word.split('_')) {
    if (!piece) continue;
    for (const p of piece.split(HUMP)) if (p) parts.push(p.toLowerCase());
  }
  const stems = parts.map(stemOf);
  const joined = parts.join(PART_SEP);
  const packed = stems.every((s, i) => s === parts[i]) ? joined : [joined, stems.join(PART_SEP)].join(STEMS_AT);
  if (PARTS.size >= PARTS_MEMO_WORDS) PARTS.clear();
  const key = ownString(word);
  PARTS.set(key, packed === key ? key : ownString(packed));
  return packed;
}

const PARTS = new Map<string, string>();
registerIndexingMemo(PARTS);
/**
 * Words remembered before the memo starts over. Issue 21: 200,000 words held 84 MB of the indexing thread's heap on the
 * Go 1.19 tree when each had an object and two arrays (50,000 held 21 MB); the lexical documents of its 95k chunks took
 * as long either way (medians of 3 alternating runs: 13.7 s and 15.2 s on a loaded machine; BENCHMARKS.md).
 */
const PARTS_MEMO_WORDS = 50_000;

export interface TokenizeOptions {
  /** Also emit each compound word whole (default true). */
  keepWhole?: boolean;
  /** Drop parts of this length or shorter (default 0: keep all). Whole words are never dropped. */
  dropPartsUpTo?: number;
}

/**
 * Seed 003's `tokenize`: parts of every word, plus each compound word whole (lower-cased),
 * plus each dotted path whole (`auth.oauth.client`). `""` → `[]`.
 */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const keepWhole = options.keepWhole ?? true;
  const minLen = (options.dropPartsUpTo ?? 0) + 1;
  const out: string[] = [];
  for (const w of words(text)) {
    const parts = partsOf(w);
    for (const p of parts) if (p.length >= minLen) out.push(p);
    if (keepWhole && parts.length > 1) out.push(w.toLowerCase());
  }
  if (keepWhole) {
    for (const dotted of text.match(/[\p{L}\p{N}_]+(?:\.[\p{L}\p{N}_]+)+/gu) ?? []) out.push(dotted.toLowerCase());
  }
  return out;
}

/** Parts only (lower-cased), for the body field of the lexical index. */
export function partTokens(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) for (const p of partsOf(w)) out.push(p);
  return out;
}

/** Whole identifiers (lower-cased, length ≥ 2), for the identifier field of the lexical index. */
export function wholeTokens(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (w.length >= 2) out.push(w.toLowerCase());
  return out;
}

/**
 * The cross-convention form of a whole identifier: lower-cased, underscores and `$` removed, so `parse_config`,
 * `parseConfig` and `ParseConfig` compare equal.
 */
export function normalizeIdentifier(word: string): string {
  const n = word.toLowerCase().replace(/[_$]/g, '');
  return n || word.toLowerCase();
}

/** Whole identifiers of a text, lower-cased as written (length ≥ 2), for the identifier field. */
export function identifierTokens(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (w.length >= 2) out.push(w.toLowerCase());
  return out;
}

/** Prefix of the exact-name token: the complete name, lower-cased, underscores kept (`=_unquote`). */
export const EXACT_NAME = '=';
/** Prefix of the convention-blind name token (`~parseconfig` for parse_config and parseConfig). */
export const LOOSE_NAME = '~';

/** Prefix of a stemmed name part (`^limit` for ConcurrencyLimiter's `limiter`): descriptions in other inflections. */
export const NAME_STEM = '^';

/**
 * Name-field tokens for other inflections: the stem of each part of the name (`ConcurrencyLimiter` → ^concurr,
 * ^limit), so that "limit concurrent requests" meets the limiter's name and not only its body. Only
 * natural-language queries look them up; identifier queries match names exactly.
 */
export function nameStemTokens(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) for (const p of partsOf(w)) out.push(NAME_STEM + stemOf(p));
  return out;
}

function qualifiedSegments(name: string): string[] {
  return name.split(/\.|::|#/).filter(Boolean);
}

/** The exact-name token of an identifier or qualified name (`Order.total` → `=order.total`). */
export function exactNameToken(name: string): string {
  return EXACT_NAME + qualifiedSegments(name).map((s) => s.toLowerCase()).join('.');
}

/** The convention-blind token of an identifier or qualified name (`parse_config` → `~parseconfig`). */
export function looseNameToken(name: string): string {
  return LOOSE_NAME + qualifiedSegments(name).map(normalizeIdentifier).join('.');
}

/**
 * Name-field tokens of a name or list of names: the parts of each (for natural-language queries), plus an
 * exact and a convention-blind token per complete name, plus both for each qualified name (`=order.total`),
 * so an identifier query can require the whole name rather than a part of it, and prefer it as written.
 */
export function nameTokens(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) {
    for (const p of partsOf(w)) out.push(p);
    const lower = w.toLowerCase();
    // a word has no `.`, `::` or `#`: its exact and convention-blind tokens without splitting it into segments
    out.push(EXACT_NAME + lower, LOOSE_NAME + (lower.includes('_') ? normalizeIdentifier(w) : lower));
  }
  // (a Go const block's unit lists hundreds of names: the patterns below only run where they can match)
  if (text.includes('.') || text.includes('::')) {
    for (const q of text.match(/[\p{L}\p{N}_$]+(?:(?:\.|::)[\p{L}\p{N}_$]+)+/gu) ?? []) out.push(exactNameToken(q), looseNameToken(q));
  }
  // Ruby's `valid?` and `merge!` are other names than `valid` and `merge`: their exact tokens keep the mark
  if (text.includes('?') || text.includes('!')) {
    for (const m of text.match(/[\p{L}\p{N}_$]+[?!](?=\s|$)/gu) ?? []) out.push(exactNameToken(m));
  }
  return out;
}

/**
 * English stems of the identifier parts and words (Porter2: users → user, retried/retry → retri, indexing →
 * index). Only the separate `stem` field of the lexical index uses them, and only natural-language queries
 * search it: identifiers still match exactly (seed 003 rules stemming out for them), while descriptions
 * written with other inflections than the code ("how are results combined" vs `combine`) still meet it.
 */
export function stemTokens(text: string): string[] {
  const out: string[] = [];
  for (const p of partTokens(text)) out.push(stemOf(p));
  return out;
}

/** The stem of one lower-cased part (the rule of `stemTokens`): Porter2 for words of 4+ letters, else the part. */
export function stemOf(part: string): string {
  let stem = STEMS.get(part);
  if (stem === undefined) {
    // indexing stems every word of every chunk, mostly the same few thousand words: the rule and Porter2 once per word
    if (STEMS.size >= 100_000) STEMS.clear();
    STEMS.set(part, (stem = /^[a-z]{4,}$/.test(part) ? porter2(part) : part));
  }
  return stem;
}

const STEMS = new Map<string, string>();
registerIndexingMemo(STEMS);

/**
 * English function words. They are indexed like any word (seed 003: no stop-word removal, `get_the_user` must
 * match), but in a natural-language QUERY they carry little of its meaning, so they get a small weight.
 */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'to', 'of', 'in', 'on', 'at', 'for', 'with', 'by', 'from', 'into', 'and', 'or', 'but', 'not', 'no',
  'is', 'are', 'was', 'were', 'be', 'been', 'do', 'does', 'did', 'how', 'what', 'which', 'who', 'when', 'where', 'why',
  'it', 'its', 'this', 'that', 'these', 'those', 'can', 'could', 'should', 'would', 'will', 'i', 'we', 'you', 'my', 'our',
  'there', 'their', 'if', 'then', 'so', 'as', 'all', 'any', 'some', 'me', 'us', 'one', 'about', 'up', 'out', 'get',
]);

/**
 * True when the text is one bare identifier (optionally dotted/qualified): `getUserData`, `Foo.bar`, `foo::Bar`, and
 * Ruby's and Elixir's predicate and bang names (`valid?`, `merge!`).
 */
export function isIdentifierLike(text: string): boolean {
  return /^[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\.|::|#)[\p{L}_$][\p{L}\p{N}_$]*)*[?!]?$/u.test(text.trim());
}
