/**
 * A byte-pair encoding's rank table held compactly, and the number of tokens it encodes a piece into.
 *
 * The table comes from a `.tiktoken` file (one token per line: its bytes in base64, a space, its rank — the format
 * OpenAI's tiktoken publishes and gpt-tokenizer ships). Every token's bytes go into one buffer and an open-addressing
 * hash table maps a byte string to its rank: about 5 MB for o200k_base's 200,000 tokens, where a string-keyed map of
 * the same table (the encoder package's) costs about 70 MB of heap in every thread that counts (issue 19).
 *
 * `countPiece` is tiktoken's byte-pair merge (the adjacent pair whose concatenation has the lowest rank merges first,
 * the leftmost of equal ranks) run over one pre-tokenizer piece, counting the parts left: the encoder's count exactly
 * (test/unit/tokenize/bpeRanks.test.ts compares them).
 */

const EMPTY = 0;
/** `toBinary`'s header: magic, version, token count, byte count, slot count, padding. */
const HEADER = 32;
const MAGIC = [0x51, 0x42, 0x50, 0x45]; // "QBPE"
const BINARY_VERSION = 1;
const align4 = (n: number): number => (n + 3) & ~3;

export class BpeRanks {
  /** Reused scratch for a piece's UTF-8 bytes and its merge state (counting is synchronous). */
  private scratch = new Uint8Array(256);
  private bounds = new Int32Array(257);
  private pairRanks = new Int32Array(257);
  private readonly encoder = new TextEncoder();

  private constructor(
    /** Every token's bytes, one after another. */
    private readonly bytes: Uint8Array,
    /** Token i's bytes are `bytes[starts[i] .. starts[i + 1])`. */
    private readonly starts: Uint32Array,
    private readonly ranks: Int32Array,
    /** Hash slots: token index + 1, or EMPTY. */
    private readonly slots: Int32Array,
  ) {}

  /** Tokens in the table. */
  get size(): number {
    return this.ranks.length;
  }

  /**
   * Parses a `.tiktoken` table. Throws an Error naming the line for anything else (a truncated or foreign file).
   */
  static fromTiktoken(text: string): BpeRanks {
    let lines = 0;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
    if (text.length && !text.endsWith('\n')) lines++;
    // base64 is 4 characters per 3 bytes: the decoded bytes fit in the text's length
    const bytes = new Uint8Array(text.length);
    const starts = new Uint32Array(lines + 1);
    const ranks = new Int32Array(lines);
    let n = 0;
    let at = 0;
    let pos = 0;
    let lineNo = 0;
    while (pos < text.length) {
      lineNo++;
      let end = text.indexOf('\n', pos);
      if (end === -1) end = text.length;
      let stop = end;
      if (stop > pos && text.charCodeAt(stop - 1) === 13) stop--;
      if (stop > pos) {
        const space = text.indexOf(' ', pos);
        if (space <= pos || space >= stop) throw new Error(`line ${lineNo} is not "<base64 bytes> <rank>"`);
        const written = decodeBase64(text, pos, space, bytes, at);
        const rank = Number(text.slice(space + 1, stop));
        if (written < 0 || written === 0 || !Number.isInteger(rank) || rank < 0) throw new Error(`line ${lineNo} is not "<base64 bytes> <rank>"`);
        starts[n] = at;
        ranks[n] = rank;
        at += written;
        n++;
      }
      pos = end + 1;
    }
    if (n === 0) throw new Error('the table has no tokens');
    starts[n] = at;
    let size = 1;
    while (size < n * 2) size <<= 1;
    const table = new BpeRanks(bytes.slice(0, at), starts.slice(0, n + 1), ranks.slice(0, n), new Int32Array(size));
    for (let i = 0; i < n; i++) table.insert(i);
    return table;
  }

  /**
   * The table as one binary image (`fromBinary` reads it back without parsing or hashing): a 32-byte header — magic
   * `QBPE`, format version, token count, byte count, slot count — then the bytes, starts, ranks and hash slots, each
   * 4-byte aligned, little-endian. About 5 MB for o200k_base; `scripts/build.mjs` writes it next to the bundles so that
   * a process that counts tokens does not parse the 3.6 MB `.tiktoken` text first (60–90 ms of every CLI run, issue 21).
   */
  toBinary(): Uint8Array {
    const n = this.ranks.length;
    const bytesLen = align4(this.bytes.length);
    const size = HEADER + bytesLen + (n + 1) * 4 + n * 4 + this.slots.length * 4;
    const out = new Uint8Array(size);
    const view = new DataView(out.buffer);
    out.set(MAGIC, 0);
    view.setUint32(4, BINARY_VERSION, true);
    view.setUint32(8, n, true);
    view.setUint32(12, this.bytes.length, true);
    view.setUint32(16, this.slots.length, true);
    let at = HEADER;
    out.set(this.bytes, at);
    at += bytesLen;
    for (const part of [this.starts, this.ranks, this.slots]) {
      out.set(new Uint8Array(part.buffer, part.byteOffset, part.byteLength), at);
      at += part.byteLength;
    }
    return out;
  }

  /**
   * Reads `toBinary`'s image. The arrays are views of a copy of `data` (one allocation). Throws an Error saying what
   * is wrong for anything else (another format, a truncated file, inconsistent sizes).
   */
  static fromBinary(data: Uint8Array): BpeRanks {
    if (data.length < HEADER || MAGIC.some((b, i) => data[i] !== b)) throw new Error('not a Quarry BPE rank table (magic bytes differ)');
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('the binary rank table is little-endian and this machine is not');
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const version = view.getUint32(4, true);
    if (version !== BINARY_VERSION) throw new Error(`rank table format ${version}, expected ${BINARY_VERSION}`);
    const n = view.getUint32(8, true);
    const byteCount = view.getUint32(12, true);
    const slotCount = view.getUint32(16, true);
    const bytesLen = align4(byteCount);
    const expected = HEADER + bytesLen + (n + 1) * 4 + n * 4 + slotCount * 4;
    if (n === 0 || slotCount < n || (slotCount & (slotCount - 1)) !== 0 || data.length !== expected) {
      throw new Error(`rank table is truncated or inconsistent (${data.length} bytes, expected ${expected})`);
    }
    // a copy aligned for the typed arrays (a Buffer read from a file may start at any offset of a shared pool)
    const own = new Uint8Array(data.length);
    own.set(data);
    let at = HEADER;
    const bytes = own.subarray(at, at + byteCount);
    at += bytesLen;
    const starts = new Uint32Array(own.buffer, at, n + 1);
    at += (n + 1) * 4;
    const ranks = new Int32Array(own.buffer, at, n);
    at += n * 4;
    const slots = new Int32Array(own.buffer, at, slotCount);
    if (starts[n] !== byteCount) throw new Error('rank table is inconsistent (token bytes do not add up)');
    return new BpeRanks(bytes, starts, ranks, slots);
  }

  /** The rank of `buf[from .. to)` as one token, or -1 when it is none. */
  rank(buf: Uint8Array, from: number, to: number): number {
    const mask = this.slots.length - 1;
    const len = to - from;
    for (let s = hash(buf, from, to) & mask; ; s = (s + 1) & mask) {
      const v = this.slots[s]!;
      if (v === EMPTY) return -1;
      const t = v - 1;
      const a = this.starts[t]!;
      if (this.starts[t + 1]! - a !== len) continue;
      let same = true;
      for (let k = 0; k < len; k++) {
        if (this.bytes[a + k] !== buf[from + k]) {
          same = false;
          break;
        }
      }
      if (same) return this.ranks[t]!;
    }
  }

  /** How many tokens the byte-pair merge leaves of one pre-tokenizer piece. */
  countPiece(piece: string): number {
    if (piece.length === 0) return 0;
    if (this.scratch.length < piece.length * 3) this.scratch = new Uint8Array(piece.length * 3 + 64);
    const buf = this.scratch;
    const n = this.encoder.encodeInto(piece, buf).written;
    if (n === 1 || this.rank(buf, 0, n) >= 0) return 1;
    if (this.bounds.length < n + 1) {
      this.bounds = new Int32Array(n + 65);
      this.pairRanks = new Int32Array(n + 65);
    }
    // parts are bytes bounds[i] .. bounds[i + 1]; pairRanks[i] is the rank of parts i and i + 1 merged (MAX: none)
    const bounds = this.bounds;
    const pr = this.pairRanks;
    const MAX = 0x7fffffff;
    let len = n + 1;
    for (let i = 0; i <= n; i++) bounds[i] = i;
    for (let i = 0; i < n - 1; i++) {
      const r = this.rank(buf, i, i + 2);
      pr[i] = r < 0 ? MAX : r;
    }
    pr[n - 1] = MAX;
    pr[n] = MAX;
    for (;;) {
      let min = MAX;
      let at = -1;
      for (let i = 0; i < len - 1; i++) {
        if (pr[i]! < min) {
          min = pr[i]!;
          at = i;
        }
      }
      if (at < 0) break;
      // parts `at` and `at + 1` merge: the pairs around them are ranked anew, then bound `at + 1` goes
      if (at > 0) pr[at - 1] = this.spanRank(buf, bounds, len, at - 1);
      pr[at] = this.spanRank(buf, bounds, len, at);
      bounds.copyWithin(at + 1, at + 2, len);
      pr.copyWithin(at + 1, at + 2, len);
      len--;
    }
    return len - 1;
  }

  /** tiktoken's `get_rank` before the removal: the rank of parts i, i + 1 and i + 2 as one token (MAX: none). */
  private spanRank(buf: Uint8Array, bounds: Int32Array, len: number, i: number): number {
    if (i + 3 >= len) return 0x7fffffff;
    const r = this.rank(buf, bounds[i]!, bounds[i + 3]!);
    return r < 0 ? 0x7fffffff : r;
  }

  private insert(t: number): void {
    const mask = this.slots.length - 1;
    let s = hash(this.bytes, this.starts[t]!, this.starts[t + 1]!) & mask;
    while (this.slots[s] !== EMPTY) s = (s + 1) & mask;
    this.slots[s] = t + 1;
  }
}

/** FNV-1a over bytes. */
function hash(buf: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
  return h >>> 0;
}

const B64 = (() => {
  const t = new Int16Array(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  return t;
})();

/** Decodes standard base64 `text[from .. to)` into `out` at `at`; the number of bytes written, or -1 when malformed. */
function decodeBase64(text: string, from: number, to: number, out: Uint8Array, at: number): number {
  let bits = 0;
  let nbits = 0;
  let w = at;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 61 /* = */) break;
    const v = c < 128 ? B64[c]! : -1;
    if (v < 0) return -1;
    bits = (bits << 6) | v;
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out[w++] = (bits >> nbits) & 0xff;
    }
  }
  return w - at;
}
