/**
 * Real token counting (OpenAI o200k_base BPE; the rank table is the `.tiktoken` file the gpt-tokenizer package ships,
 * read into a compact table by bpeRanks.ts: no download, ~5 MB per thread that counts instead of the ~70 MB of the
 * package's own encoder). Used for chunk sizes (seed 002 FR-006/FR-039) and for response token budgets. The table
 * loads on first use (a search that only reads stored counts never pays for it).
 *
 * A text is cut by the o200k pre-tokenizer (`O200K_PATTERN`) into pieces, each counted by the byte-pair merge; no
 * special token is recognised (source code may contain `<|endoftext|>`: it is counted as the plain text it is, never
 * refused), so a text's count is the sum of its pieces' counts.
 *
 * Indexing counts the same code many times over (every line of a file for sizing, every unit's text, every chunk's
 * text) and code repeats its lines (`}`, `return nil`, `if err != nil {`): a text is cut at line starts where the
 * pre-tokenizer always cuts too (see `isCut`), so its count is the sum of its segments' counts, and each segment's
 * count is remembered (bounded). The result is exactly the encoder's count of the whole text.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BpeRanks } from './bpeRanks';
import { registerIndexingMemo } from '../indexingMemos';
import { ownString } from './ownString';
import { asciiPieceEnd, isAscii } from './asciiPieces';

let ranks: BpeRanks | undefined;
let split: RegExp | undefined;

/** Where the o200k_base rank table is (gpt-tokenizer's data folder). */
export function o200kTablePath(): string {
  return require.resolve('gpt-tokenizer/data/o200k_base.tiktoken');
}

/**
 * The binary image of the rank table (`BpeRanks.toBinary`) that `scripts/build.mjs` writes next to the bundles: read
 * in a few milliseconds, where parsing the `.tiktoken` text takes 60–90 ms of every process that counts (issue 21).
 */
export const RANK_TABLE_FILE = 'o200k_base.ranks';

/** Writes the binary rank table to `path` (the build runs this). */
export function writeRankTable(path: string): void {
  writeFileSync(path, BpeRanks.fromTiktoken(readFileSync(o200kTablePath(), 'utf8')).toBinary());
}

/**
 * The binary table beside this bundle; undefined when there is none (a development checkout), or why it is unusable
 * (the text table below is the source of truth: a damaged image only costs its parse, where the text is installed).
 */
function loadBinary(): BpeRanks | string | undefined {
  const path = join(__dirname, RANK_TABLE_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return BpeRanks.fromBinary(readFileSync(path));
  } catch (e) {
    return `${path}: ${(e as Error).message}`;
  }
}

function load(): BpeRanks {
  split = new RegExp(O200K_PATTERN, 'gu');
  const binary = loadBinary();
  if (binary instanceof BpeRanks) return binary;
  let path = 'gpt-tokenizer/data/o200k_base.tiktoken';
  try {
    path = o200kTablePath();
    return BpeRanks.fromTiktoken(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(
      `Counting tokens (chunk sizes, response budgets) needs the o200k_base rank table, which could not be read` +
        `${binary ? ` from its binary image (${binary}) nor` : ''} from ${path}: ${(e as Error).message}. ` +
        `Reinstall Quarry (npm ci and npm run build, or the extension) so that dist/${RANK_TABLE_FILE} or the gpt-tokenizer package's data folder is present.`,
    );
  }
}

/**
 * The o200k pre-tokenizer pattern (tiktoken's, as gpt-tokenizer writes it in encodingParams/constants.js), which
 * `isCut` was written for.
 */
export const O200K_PATTERN = String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]))?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`;

/** A text's count as the sum of its pieces' counts (each piece's count remembered); ASCII text through the scanner. */
function piecewise(text: string): number {
  if (isAscii(text)) return countAscii(text);
  const re = split!;
  re.lastIndex = 0;
  let total = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const piece = m[0];
    let n = PIECES.get(piece);
    if (n === undefined) {
      if (PIECES.size >= MAX_REMEMBERED) PIECES.clear();
      PIECES.set(ownString(piece), (n = ranks!.countPiece(piece)));
    }
    total += n;
  }
  return total;
}

const PIECES = new Map<string, number>();
registerIndexingMemo(PIECES);

/** Whether the rank table is loaded in this thread (it loads on the first count). */
export function tokenTablesLoaded(): boolean {
  return ranks !== undefined;
}

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  ranks ??= load();
  if (text.length <= SHORT) return remembered(text);
  let total = 0;
  let from = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
    const at = nl + 1;
    if (!isCut(text, at)) continue;
    total += segment(text, from, at);
    from = at;
  }
  return total + segment(text, from, text.length);
}

function segment(text: string, from: number, to: number): number {
  if (to - from > LONG) return piecewise(text.slice(from, to));
  return remembered(from === 0 && to === text.length ? text : text.slice(from, to));
}

function remembered(text: string): number {
  let n = COUNTS.get(text);
  if (n === undefined) {
    if (COUNTS.size >= MAX_REMEMBERED || countsChars >= MAX_REMEMBERED_CHARS) {
      COUNTS.clear();
      countsChars = 0;
    }
    COUNTS.set(ownString(text), (n = piecewise(text)));
    countsChars += text.length;
  }
  return n;
}

/**
 * An ASCII text's count: its pieces found by the scanner (asciiPieces.ts), each piece's count looked up in
 * `ASCII_PIECES` by its characters in place — no piece string is made unless the piece is new. Twice to three times
 * the speed of the pattern and the string-keyed memos on source code, with the same counts.
 */
function countAscii(text: string): number {
  let total = 0;
  const n = text.length;
  for (let i = 0; i < n; ) {
    const end = asciiPieceEnd(text, i, n);
    total += ASCII_PIECES.count(text, i, end);
    i = end;
  }
  return total;
}

/**
 * Piece → token count for ASCII pieces: an open-addressing table hashed over the piece's characters in the text
 * (FNV-1a), so that a lookup needs no substring; a new piece is counted by the byte-pair merge and kept. Starts over
 * when half full (`MAX_REMEMBERED` pieces at most).
 */
class AsciiPieceCounts {
  private keys: Array<string | undefined> = [];
  private counts = new Int32Array(0);
  private used = 0;

  count(text: string, from: number, to: number): number {
    if (this.keys.length === 0) this.reset();
    let h = 0x811c9dc5;
    for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    const len = to - from;
    const mask = this.keys.length - 1;
    for (let slot = (h >>> 0) & mask; ; slot = (slot + 1) & mask) {
      const key = this.keys[slot];
      if (key === undefined) {
        const piece = text.slice(from, to);
        const n = ranks!.countPiece(piece);
        if (this.used >= this.keys.length >>> 1) {
          this.reset();
          return n;
        }
        this.keys[slot] = ownString(piece);
        this.counts[slot] = n;
        this.used++;
        return n;
      }
      if (key.length === len && sameChars(key, text, from)) return this.counts[slot]!;
    }
  }

  get size(): number {
    return this.used;
  }

  /** Drops every piece (an indexing memo: emptied after a large run). */
  clear(): void {
    this.keys = [];
    this.counts = new Int32Array(0);
    this.used = 0;
  }

  private reset(): void {
    this.keys = new Array<string | undefined>(ASCII_SLOTS).fill(undefined);
    this.counts = new Int32Array(ASCII_SLOTS);
    this.used = 0;
  }
}

function sameChars(key: string, text: string, from: number): boolean {
  for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) !== text.charCodeAt(from + i)) return false;
  return true;
}

/**
 * Whether the o200k pre-tokenizer (gpt-tokenizer's O200K_TOKEN_SPLIT_REGEX) cuts `text` at `at`, a line start, no
 * matter what comes before `at - 1` or after the line, so that the text before and the text from `at` can be counted
 * apart: the line is not blank (its first non-space character comes before any \r or \n: a run of blank lines is one
 * piece, `\s*[\r\n]+`) and does not start with `/` (`}\n//` is one piece, ` ?[^\s\p{L}\p{N}]+[\r\n/]*`). Then the
 * piece holding the \n at `at - 1` ends at `at` (no letter, digit or punctuation piece crosses a \n except through
 * that `[\r\n/]*` tail, and the newline pieces stop at the last \r or \n of their whitespace run), and none of the
 * pieces before it looked further than `text[at]` to decide (the pattern has no look-behind, and its only
 * look-ahead, `\s+(?!\S)`, is never tried at a run that ends in \n).
 */
function isCut(text: string, at: number): boolean {
  if (at >= text.length || text.charCodeAt(at) === 0x2f /* / */) return false;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) return false;
    if (!isSpace(c)) return true;
  }
  return false;
}

/** JavaScript's `\s` (WhiteSpace and LineTerminator), as the pre-tokenizer's pattern reads it. */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Texts up to this length are counted whole and remembered. */
const SHORT = 160;
/** Segments longer than this are counted without being remembered (a long line is seldom seen twice). */
const LONG = 1024;
const MAX_REMEMBERED = 200_000;
/** Slots of the ASCII piece table (a power of two; it starts over at half: `MAX_REMEMBERED`-odd pieces). */
const ASCII_SLOTS = 1 << 18;
const ASCII_PIECES = new AsciiPieceCounts();
registerIndexingMemo(ASCII_PIECES);
/**
 * The remembered segments' characters, at most: segments run up to `LONG` characters, so 200,000 of them held 30–40 MB
 * of heap in the chunking worker by the end of a 1,000-file run (issue 19); code repeats its lines close together.
 */
const MAX_REMEMBERED_CHARS = 4_000_000;
let countsChars = 0;
const COUNTS = new Map<string, number>();
registerIndexingMemo({
  get size() {
    return COUNTS.size;
  },
  clear() {
    COUNTS.clear();
    countsChars = 0;
  },
});

/**
 * A cheap estimate (about 3.5 characters per token for code) for hot loops that only need to know
 * whether a piece is roughly within a budget before paying for an exact count.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.5);
}
