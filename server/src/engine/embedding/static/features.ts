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
import { ownString } from '../../tokenize/ownString';
import { registerIndexingMemo } from '../../indexingMemos';

export interface FeatureSpec {
  /** Sub-word → row (rows 0..vocab.size-1). */
  vocab: Pick<ReadonlyMap<string, number>, 'get' | 'has' | 'size'>;
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

/**
 * Entries each per-word memo below keeps (it starts over when full). 200,000 made the three of them about 20 MB of heap
 * during a 1,000-file language server's first index (issue 19); code repeats its identifiers close together, so
 * fewer keep most of the hits.
 */
const MEMO_WORDS = 50_000;

/** Memo of `splitIdentifier` (code repeats its identifiers; indexing splits every one of every chunk). Bounded. */
const PARTS = new Map<string, string[]>();
registerIndexingMemo(PARTS);

function partsOf(identifier: string): string[] {
  let parts = PARTS.get(identifier);
  if (!parts) {
    if (PARTS.size >= MEMO_WORDS) PARTS.clear();
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
  if (!memo) {
    memo = new Map();
    WORD_ROWS.set(spec, memo);
    registerIndexingMemo(memo);
  }
  let rows = memo.get(word);
  if (rows) return rows;
  const out: number[] = [];
  const row = spec.vocab.get(word);
  if (row !== undefined) out.push(row);
  const base = spec.vocab.size;
  if (word.length >= 3 && spec.buckets > 0) for (const g of trigrams(word)) out.push(base + (fnv1a(g) % spec.buckets));
  if (memo.size >= MEMO_WORDS) memo.clear();
  memo.set(word, (rows = out));
  return rows;
}

/** Per spec: the rows each identifier adds, and a scratch count per row (featuresOf runs synchronously, never nested). */
interface SpecState {
  /**
   * Identifier → its rows, flat: the number of sub-words, then per sub-word the number of its rows and the rows in
   * the order featuresOf adds them (its vocabulary row, the joined identifier's row for the first sub-word, its
   * 3-gram rows). Bounded.
   */
  identifiers: Map<string, Int32Array>;
  counts: Uint32Array;
}

const STATES = new WeakMap<FeatureSpec, SpecState>();

function stateOf(spec: FeatureSpec): SpecState {
  let st = STATES.get(spec);
  if (!st) {
    st = { identifiers: new Map(), counts: new Uint32Array(spec.vocab.size + spec.buckets) };
    STATES.set(spec, st);
    registerIndexingMemo(st.identifiers);
  }
  return st;
}

function identifierRows(identifier: string, spec: FeatureSpec, st: SpecState): Int32Array {
  let flat = st.identifiers.get(identifier);
  if (flat) return flat;
  const parts = splitIdentifier(identifier);
  const joined = parts.length > 1 ? parts.join('') : null;
  const out: number[] = [parts.length];
  parts.forEach((word, i) => {
    const rows = wordRows(word, spec);
    const at = out.length;
    out.push(0);
    let k = 0;
    if (spec.vocab.has(word)) out.push(rows[k++]!);
    if (i === 0 && joined) {
      const j = spec.vocab.get(joined);
      if (j !== undefined) out.push(j);
    }
    for (; k < rows.length; k++) out.push(rows[k]!);
    out[at] = out.length - at - 1;
  });
  if (st.identifiers.size >= MEMO_WORDS) st.identifiers.clear();
  st.identifiers.set(ownString(identifier), (flat = Int32Array.from(out)));
  return flat;
}

const IDENTIFIER_RUN = /[A-Za-z0-9_$]+/g;

/**
 * The text's feature rows in the order they are first added (the order `embed` sums them in), each weighted
 * 1 + ln(count): the sub-words of `subwords`, each adding its vocabulary row, then (the first sub-word of an identifier
 * of several) the joined identifier's row, then its 3-gram rows.
 */
export function featuresOf(text: string, spec: FeatureSpec): Features {
  const st = stateOf(spec);
  const counts = st.counts;
  const order: number[] = [];
  let n = 0;
  const re = IDENTIFIER_RUN;
  re.lastIndex = 0;
  outer: for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const flat = identifierRows(m[0], spec, st);
    const words = flat[0]!;
    let p = 1;
    for (let w = 0; w < words; w++) {
      const len = flat[p++]!;
      for (let k = 0; k < len; k++) {
        const row = flat[p + k]!;
        if (counts[row]++ === 0) order.push(row);
      }
      p += len;
      if (++n >= spec.maxWords) break outer;
    }
  }
  re.lastIndex = 0;
  const rows = new Uint32Array(order.length);
  const weights = new Float32Array(order.length);
  for (let i = 0; i < order.length; i++) {
    const row = order[i]!;
    rows[i] = row;
    weights[i] = 1 + Math.log(counts[row]!);
    counts[row] = 0;
  }
  return { rows, weights };
}
