/**
 * A key → row positions index over string columns a table snapshot already holds (tableSnapshot.ts), without a copy of
 * the keys: an open-addressing hash table of row positions (4 bytes a slot, at most half full), whose collisions are
 * told apart by comparing the query's UTF-8 bytes with the column's own bytes in the snapshot's Arrow buffers.
 *
 * Issue 19: the `Map<string, …>` it replaces held a JavaScript string per row and key (chunk ids and content hashes,
 * 5–6 MB of a language server's heap on 17,000 chunks); this holds 256 KB per key there. `KeyIndex.ofStrings` packs a
 * list of strings once (the code model's 60,000-word vocabulary: 1.3 MB instead of a 3.5 MB `Map`).
 *
 * Equal keys take successive free slots along one probe path in the order rows were added, so a lookup, which walks
 * that path to the first empty slot, returns every row of a value in row order.
 */

/** One batch's part of a UTF-8 column: its bytes and offsets (Arrow's layout), for the rows `start…start+rows-1`. */
export interface Utf8Part {
  start: number;
  rows: number;
  values: Uint8Array;
  /** Byte offsets into `values`, `rows + 1` of them from `offset`. */
  offsets: Int32Array;
  offset: number;
  /** Whether the row (relative to the part) holds a value (null: not indexed). */
  valid: (row: number) => boolean;
}

/** FNV-1a over bytes. */
function hashBytes(bytes: Uint8Array, lo: number, hi: number): number {
  let h = 0x811c9dc5;
  for (let i = lo; i < hi; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class KeyIndex {
  /** Row position + 1 per slot (0: empty). */
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly encoder = new TextEncoder();
  private scratch = new Uint8Array(256);
  private readonly count: number = 0;

  /** Indexes every non-null row of `parts` (in the order given: the snapshot's row order). */
  constructor(private readonly parts: readonly Utf8Part[]) {
    const rows = parts.reduce((n, p) => n + p.rows, 0);
    let capacity = 16;
    while (capacity < rows * 2) capacity <<= 1;
    this.slots = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (const part of parts) {
      for (let r = 0; r < part.rows; r++) {
        if (!part.valid(r)) continue;
        const lo = part.offsets[part.offset + r]!;
        const hi = part.offsets[part.offset + r + 1]!;
        let slot = hashBytes(part.values, lo, hi) & this.mask;
        while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
        this.slots[slot] = part.start + r + 1;
        this.count++;
      }
    }
  }

  /** An index of `strings` (position: the string's index), their UTF-8 bytes packed into one buffer. */
  static ofStrings(strings: readonly string[]): KeyIndex {
    const encoder = new TextEncoder();
    const offsets = new Int32Array(strings.length + 1);
    const joined = strings.join('');
    let values: Uint8Array;
    if (/^[\x00-\x7f]*$/.test(joined)) {
      // ASCII (a code model's vocabulary): a string's bytes are its characters, encoded at once
      values = encoder.encode(joined);
      strings.forEach((w, i) => (offsets[i + 1] = offsets[i]! + w.length));
    } else {
      const encoded = strings.map((w) => encoder.encode(w));
      encoded.forEach((b, i) => (offsets[i + 1] = offsets[i]! + b.length));
      values = new Uint8Array(offsets[strings.length]!);
      encoded.forEach((b, i) => values.set(b, offsets[i]!));
    }
    return new KeyIndex([{ start: 0, rows: strings.length, values, offsets, offset: 0, valid: () => true }]);
  }

  /** Number of rows indexed (null rows not counted). */
  get size(): number {
    return this.count;
  }

  /** Bytes this index holds (its slots; the keys are the snapshot's). */
  get bytes(): number {
    return this.slots.byteLength;
  }

  /** The row positions whose key is `value`, in row order (none: empty). */
  lookup(value: string): number[] {
    const out: number[] = [];
    this.probe(value, (p) => {
      out.push(p);
      return true;
    });
    return out;
  }

  /** The first row whose key is `value` (a map's `get`). */
  get(value: string): number | undefined {
    let first: number | undefined;
    this.probe(value, (p) => {
      first = p;
      return false;
    });
    return first;
  }

  has(value: string): boolean {
    return this.get(value) !== undefined;
  }

  /** Calls `found` with each row of `value` in row order while it returns true. */
  private probe(value: string, found: (position: number) => boolean): void {
    const key = this.utf8(value);
    let slot = hashBytes(key.bytes, 0, key.length) & this.mask;
    for (let held = this.slots[slot]!; held !== 0; slot = (slot + 1) & this.mask, held = this.slots[slot]!) {
      if (this.equals(held - 1, key.bytes, key.length) && !found(held - 1)) return;
    }
  }

  /** `value` as UTF-8 in a scratch buffer reused between lookups (lookups are synchronous). */
  private utf8(value: string): { bytes: Uint8Array; length: number } {
    if (this.scratch.length < value.length * 3) this.scratch = new Uint8Array(value.length * 3);
    const { written } = this.encoder.encodeInto(value, this.scratch);
    return { bytes: this.scratch, length: written };
  }

  private equals(position: number, key: Uint8Array, length: number): boolean {
    // the part holding the position (binary search over the parts' first positions)
    let lo = 0;
    let hi = this.parts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.parts[mid]!.start <= position) lo = mid;
      else hi = mid - 1;
    }
    const part = this.parts[lo]!;
    const r = position - part.start;
    const from = part.offsets[part.offset + r]!;
    const to = part.offsets[part.offset + r + 1]!;
    if (to - from !== length) return false;
    const values = part.values;
    for (let i = 0; i < length; i++) if (values[from + i] !== key[i]) return false;
    return true;
  }
}
