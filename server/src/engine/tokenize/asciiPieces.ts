/**
 * The o200k pre-tokenizer (`O200K_PATTERN` in tokenCount.ts) for ASCII text, as a scanner: where the pattern's match
 * starting at `i` ends, found by looking at character classes instead of running the Unicode-property regular
 * expression, and without allocating the piece. Source code is nearly all ASCII; counting its tokens was a sixth of
 * the chunking worker's time on the Go tree (issue 21). The ends are the pattern's own on every ASCII text
 * (test/unit/tokenize/asciiPieces.test.ts compares them on this repository, the fixtures and random strings); text
 * with any other character goes through the pattern.
 *
 * The pattern's alternatives, in the order the regular expression tries them, read for ASCII (letters are A–Z and
 * a–z, digits 0–9, `\s` is space, \t, \n, \v, \f, \r):
 *  1–2. an optional character that is not \r, \n, a letter or a digit, then upper-case letters then lower-case ones
 *       (at least one letter), then an optional contraction ('s 'd 'm 't 'll 've 're, any case);
 *  3.   one to three digits;
 *  4.   an optional space, then characters that are neither whitespace, letters nor digits, then any \r, \n and /;
 *  5.   whitespace up to and including its last \r or \n (`\s*[\r\n]+`, backtracking);
 *  6.   whitespace not followed by a non-space: the run but its last character when something follows it;
 *  7.   whitespace.
 */

/** Character classes: 0 other (punctuation, control), 1 upper-case letter, 2 lower-case letter, 3 digit, 4 space-like, 5 \r or \n. */
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  CLASS[c] =
    c >= 65 && c <= 90 ? 1 : c >= 97 && c <= 122 ? 2 : c >= 48 && c <= 57 ? 3 : c === 10 || c === 13 ? 5 : c === 32 || c === 9 || c === 11 || c === 12 ? 4 : 0;
}
const OTHER = 0;
const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
const SPACE = 4;
const NEWLINE = 5;

/** Whether every character of `text` is ASCII (the scanner's domain). */
export function isAscii(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return !/[^\x00-\x7f]/.test(text);
}

/** The end of a contraction (`'s`, `'ll`, …) at `k`, or `k` when there is none. */
function contraction(t: string, k: number, n: number): number {
  if (k + 1 >= n || t.charCodeAt(k) !== 39 /* ' */) return k;
  const a = t.charCodeAt(k + 1) | 0x20;
  if (a === 0x73 /* s */ || a === 0x64 /* d */ || a === 0x6d /* m */ || a === 0x74 /* t */) return k + 2;
  if (k + 2 < n) {
    const b = t.charCodeAt(k + 2) | 0x20;
    if ((a === 0x6c && b === 0x6c) /* ll */ || (a === 0x76 && b === 0x65) /* ve */ || (a === 0x72 && b === 0x65) /* re */) return k + 3;
  }
  return k;
}

/** Where the piece that starts at `i` ends (`i < n ≤ t.length`; `t[i .. n)` ASCII). */
export function asciiPieceEnd(t: string, i: number, n: number): number {
  const c0 = CLASS[t.charCodeAt(i)]!;
  // 1–2: an optional prefix character, then letters
  let p = i;
  if ((c0 === OTHER || c0 === SPACE) && i + 1 < n) {
    const c1 = CLASS[t.charCodeAt(i + 1)]!;
    if (c1 === UPPER || c1 === LOWER) p = i + 1;
  }
  const cp = p === i ? c0 : CLASS[t.charCodeAt(p)]!;
  if (cp === UPPER || cp === LOWER) {
    let k = p;
    while (k < n && CLASS[t.charCodeAt(k)] === UPPER) k++;
    while (k < n && CLASS[t.charCodeAt(k)] === LOWER) k++;
    return contraction(t, k, n);
  }
  // 3: digits, three at most
  if (c0 === DIGIT) {
    let j = i + 1;
    while (j < n && j < i + 3 && CLASS[t.charCodeAt(j)] === DIGIT) j++;
    return j;
  }
  // 4: an optional space, punctuation, then \r, \n and /
  let j = i;
  if (t.charCodeAt(j) === 32 && j + 1 < n && CLASS[t.charCodeAt(j + 1)] === OTHER) j++;
  if (CLASS[t.charCodeAt(j)] === OTHER) {
    while (j < n && CLASS[t.charCodeAt(j)] === OTHER) j++;
    while (j < n) {
      const c = t.charCodeAt(j);
      if (c === 10 || c === 13 || c === 47) j++;
      else break;
    }
    return j;
  }
  // 5–7: a run of whitespace
  let w = i;
  let lastNewline = -1;
  while (w < n) {
    const c = CLASS[t.charCodeAt(w)]!;
    if (c === NEWLINE) lastNewline = w;
    else if (c !== SPACE) break;
    w++;
  }
  if (lastNewline >= 0) return lastNewline + 1;
  if (w === n || w - i < 2) return w;
  return w - 1;
}
