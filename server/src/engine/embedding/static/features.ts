/**
 * The input features of Quarry's static code embedding model — one implementation, used both to prepare
 * the training data (training/encode-pairs.ts) and at run time, so the two can never disagree.
 *
 * A text becomes a bag of feature rows:
 * - every ASCII alphanumeric run is split into lower-case sub-words at camelCase, snake_case and digit
 *   boundaries (`parseHTTPRequest_v2` → parse, http, request, v, 2); each known sub-word is a vocabulary row;
 * - every sub-word of 3+ characters also adds its hashed character 3-grams, with boundary marks
 *   (`<pa`, `par`, …, `se>`), into `buckets` rows after the vocabulary (unknown words still land somewhere);
 * - an identifier made of several sub-words also adds the joined word (`getuserdata`) when it is in the
 *   vocabulary;
 * - repeats are merged: a row seen c times weighs 1 + ln c.
 */
import { splitIdentifier } from '../views';

export interface FeatureSpec {
  /** Sub-word → row (rows 0..vocab.size-1). */
  vocab: ReadonlyMap<string, number>;
  /** Number of hashed 3-gram rows after the vocabulary. */
  buckets: number;
  /** Sub-words read at most (the start of the text). */
  maxWords: number;
}

export interface Features {
  rows: Uint32Array;
  /** 1 + ln(count) per row. */
  weights: Float32Array;
}

const IDENTIFIER = /[A-Za-z0-9_$]+/g;

/** FNV-1a (32-bit) of an ASCII string. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i) & 0xff;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The sub-words of a text, in order, each with the joined identifier it came from when that had several. */
export function subwords(text: string, maxWords: number, visit: (word: string, joined: string | null) => void): void {
  let n = 0;
  for (const m of text.matchAll(IDENTIFIER)) {
    const parts = partsOf(m[0]);
    if (!parts.length) continue;
    const joined = parts.length > 1 ? parts.join('') : null;
    for (let i = 0; i < parts.length; i++) {
      visit(parts[i]!, i === 0 ? joined : null);
      if (++n >= maxWords) return;
    }
  }
}

/** Memo of `splitIdentifier` (code repeats its identifiers; indexing splits every one of every chunk). Bounded. */
const PARTS = new Map<string, string[]>();

function partsOf(identifier: string): string[] {
  let parts = PARTS.get(identifier);
  if (!parts) {
    if (PARTS.size >= 200_000) PARTS.clear();
    PARTS.set(identifier, (parts = splitIdentifier(identifier)));
  }
  return parts;
}

/** The character 3-grams of `<word>`. */
export function trigrams(word: string): string[] {
  const w = `<${word}>`;
  const out: string[] = [];
  for (let i = 0; i + 3 <= w.length; i++) out.push(w.slice(i, i + 3));
  return out;
}

/** Per spec, the rows of a sub-word (its vocabulary row, then its 3-gram rows), computed once per word. Bounded. */
const WORD_ROWS = new WeakMap<FeatureSpec, Map<string, readonly number[]>>();

function wordRows(word: string, spec: FeatureSpec): readonly number[] {
  let memo = WORD_ROWS.get(spec);
  if (!memo) WORD_ROWS.set(spec, (memo = new Map()));
  let rows = memo.get(word);
  if (rows) return rows;
  const out: number[] = [];
  const row = spec.vocab.get(word);
  if (row !== undefined) out.push(row);
  const base = spec.vocab.size;
  if (word.length >= 3 && spec.buckets > 0) for (const g of trigrams(word)) out.push(base + (fnv1a(g) % spec.buckets));
  if (memo.size >= 200_000) memo.clear();
  memo.set(word, (rows = out));
  return rows;
}

export function featuresOf(text: string, spec: FeatureSpec): Features {
  const counts = new Map<number, number>();
  const add = (row: number) => counts.set(row, (counts.get(row) ?? 0) + 1);
  subwords(text, spec.maxWords, (word, joined) => {
    const rows = wordRows(word, spec);
    // the word's vocabulary row comes first, then the joined identifier's, then the 3-grams (the order rows are added)
    let i = 0;
    if (spec.vocab.has(word)) add(rows[i++]!);
    if (joined) {
      const j = spec.vocab.get(joined);
      if (j !== undefined) add(j);
    }
    for (; i < rows.length; i++) add(rows[i]!);
  });
  const rows = new Uint32Array(counts.size);
  const weights = new Float32Array(counts.size);
  let i = 0;
  for (const [row, c] of counts) {
    rows[i] = row;
    weights[i++] = 1 + Math.log(c);
  }
  return { rows, weights };
}
