/**
 * An immutable lexical segment: a batch of documents with their per-field lengths and an inverted
 * index (sorted term dictionary → postings of (doc ordinal, term frequency)), and its on-disk format.
 *
 * The format is laid out so that opening a segment costs one file read and no per-term or per-document
 * parsing: strings live in UTF-8 blobs addressed by offset arrays and are decoded only when used.
 *
 * File layout (little-endian, every section 4-byte aligned):
 *   "QLX2" | u32 headerBytes | header JSON {v, fields, paths, counts} | pad
 *   | u32[docs × FIELDS] field lengths | u32[docs] path index | u32[docs + 1] id offsets | id blob | pad
 *   | u32[terms + 1] term offsets | term blob | pad | u32[terms + 1] term starts
 *   | u32[postings] doc ordinals | u16[postings] term frequencies (capped at 65535) | pad
 *   | u32 CRC-32 of everything before it
 *
 * A term key is `<field code>:<token>` (`n:validate`, `b:user`), so one dictionary holds every field.
 * Terms are sorted by JavaScript string order, and lookups compare decoded strings the same way.
 */
import { crc32 } from 'node:zlib';
import { Bm25Params, tfWeight } from '../../retrieval/bm25';

export const FIELDS = ['name', 'symbols', 'ident', 'body', 'path', 'stem'] as const;
export type Field = (typeof FIELDS)[number];
export const FIELD_CODE: Record<Field, string> = { name: 'n', symbols: 's', ident: 'i', body: 'b', path: 'p', stem: 't' };

const MAGIC = 'QLX2';
const MAX_TF = 0xffff;

export function termKey(field: Field, token: string): string {
  return `${FIELD_CODE[field]}:${token}`;
}

/** A document as the indexer hands it over: tokens per field (with repeats). */
export interface LexicalDoc {
  id: string;
  path: string;
  fields: Record<Field, string[]>;
}

/** Strings packed into one UTF-8 buffer with an offset table. */
class StringTable {
  constructor(readonly blob: Buffer, readonly offsets: Uint32Array) {}

  get length(): number {
    return this.offsets.length - 1;
  }

  get(i: number): string {
    return this.blob.toString('utf8', this.offsets[i], this.offsets[i + 1]);
  }

  static pack(strings: readonly string[]): StringTable {
    const parts = strings.map((s) => Buffer.from(s, 'utf8'));
    const offsets = new Uint32Array(strings.length + 1);
    let at = 0;
    parts.forEach((p, i) => {
      offsets[i] = at;
      at += p.length;
    });
    offsets[strings.length] = at;
    return new StringTable(Buffer.concat(parts, at), offsets);
  }
}

/**
 * Documents of a segment sampled (evenly spaced, the same ones for every query) to estimate how many documents
 * match a query beyond those a pruned search enumerated; a segment no larger is sampled whole (exact counts).
 */
export const COUNT_SAMPLE = 1024;

/** Documents per window of score bounds (see `Segment.windowBounds`) and of a pruned search's traversal. */
export const WINDOW_SHIFT = 9;
export const WINDOW = 1 << WINDOW_SHIFT;
/** Score bounds are computed for avgdl × this, and recomputed once avgdl leaves [bound avgdl / AVG_SLACK², bound avgdl]. */
const AVG_SLACK = 1.02;
/** Memory for cached score bounds per segment. */
const BOUND_BYTES = 8 * 1024 * 1024;

/** A term's score bounds in one segment (see `Segment.windowBounds`). */
export interface WindowBounds {
  k1: number;
  b: number;
  /** The average field length they were computed for. */
  avg: number;
  /** The largest tf factor of the term in the segment. */
  max: number;
  /** Windows holding postings of the term, ascending, and the largest tf factor in each. */
  windows: Uint32Array;
  bounds: Float64Array;
}

/** Entries of each per-segment query cache (term lookups, live document frequencies, score bounds, sample bits) before it is emptied. */
const CACHE_ENTRIES = 8192;

export class Segment {
  /**
   * 1 where a document has been deleted since the segment was written. Read freely; change it only through
   * `markDeleted`/`markAllDeleted`, which keep the cached live document frequencies right.
   */
  readonly deleted: Uint8Array;
  private deletedDocs = 0;
  /** The deleted ordinals in ascending order, rebuilt when needed after a deletion. */
  private deletedSorted: Uint32Array | undefined = new Uint32Array(0);
  /** term key → term index (or -1), so a repeated query term is not binary-searched through decoded strings again. */
  private readonly lookups = new Map<string, number>();
  /** term index → postings of live documents (reset whenever a document is deleted). */
  private readonly liveDfs = new Map<number, number>();
  /** term index → its score bounds per window (see `windowBounds`), and their size in bytes. */
  private readonly bounds = new Map<number, WindowBounds>();
  private boundBytes = 0;
  /** term index → which sample documents hold it (see `sampleBits`). */
  private readonly samples = new Map<number, Uint32Array>();

  private constructor(
    readonly name: string,
    /** Distinct paths of the segment's documents. */
    private readonly paths: string[],
    /** Index into `paths` per document. */
    private readonly docPathIdx: Uint32Array,
    private readonly ids: StringTable,
    /** docCount × FIELDS.length token counts. */
    private readonly fieldLens: Uint32Array,
    private readonly terms: StringTable,
    /** Postings of term t are [termStarts[t], termStarts[t+1]). */
    readonly termStarts: Uint32Array,
    readonly postDocs: Uint32Array,
    readonly postTfs: Uint16Array,
  ) {
    this.deleted = new Uint8Array(docPathIdx.length);
  }

  get docCount(): number {
    return this.docPathIdx.length;
  }

  /** Documents not deleted. */
  get liveCount(): number {
    return this.docPathIdx.length - this.deletedDocs;
  }

  markDeleted(doc: number): void {
    if (this.deleted[doc]) return;
    this.deleted[doc] = 1;
    this.deletedDocs++;
    this.deletedSorted = undefined;
    this.liveDfs.clear();
  }

  markAllDeleted(): void {
    this.deleted.fill(1);
    this.deletedDocs = this.docCount;
    this.deletedSorted = undefined;
    this.liveDfs.clear();
  }

  /** Distinct paths of the segment's documents; `docPathIndex(d)` indexes them. */
  get pathCount(): number {
    return this.paths.length;
  }

  pathAt(i: number): string {
    return this.paths[i];
  }

  docPathIndex(d: number): number {
    return this.docPathIdx[d];
  }

  get termCount(): number {
    return this.terms.length;
  }

  docId(d: number): string {
    return this.ids.get(d);
  }

  docPath(d: number): string {
    return this.paths[this.docPathIdx[d]];
  }

  term(t: number): string {
    return this.terms.get(t);
  }

  /** docCount × FIELDS.length token counts (document-major), for loops that read many. */
  get fieldLengths(): Uint32Array {
    return this.fieldLens;
  }

  fieldLength(doc: number, fieldIndex: number): number {
    return this.fieldLens[doc * FIELDS.length + fieldIndex];
  }

  /** Index of a term key in the dictionary, or -1 (remembered: see `lookups`). */
  findTerm(key: string): number {
    let t = this.lookups.get(key);
    if (t === undefined) {
      t = this.searchTerm(key);
      if (this.lookups.size >= CACHE_ENTRIES) this.lookups.clear();
      this.lookups.set(key, t);
    }
    return t;
  }

  /** Binary search of the dictionary in JavaScript string order. */
  private searchTerm(key: string): number {
    let lo = 0;
    let hi = this.terms.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.terms.get(mid);
      if (t === key) return mid;
      if (t < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /**
   * Postings of term index `t` whose document is not deleted (cached until the next deletion). With few
   * deletions, each deleted document is looked up in the postings instead of reading every posting.
   */
  liveDf(t: number): number {
    const start = this.termStarts[t];
    const end = this.termStarts[t + 1];
    if (!this.deletedDocs) return end - start;
    let n = this.liveDfs.get(t);
    if (n === undefined) {
      if (this.deletedDocs * 16 < end - start) {
        if (!this.deletedSorted) {
          const list = new Uint32Array(this.deletedDocs);
          for (let d = 0, i = 0; d < this.docCount; d++) if (this.deleted[d]) list[i++] = d;
          this.deletedSorted = list;
        }
        n = end - start;
        let p = start;
        for (const d of this.deletedSorted) {
          p = advance(this.postDocs, p, end, d);
          if (p >= end) break;
          if (this.postDocs[p] === d) n--;
        }
      } else {
        n = 0;
        for (let p = start; p < end; p++) if (!this.deleted[this.postDocs[p]]) n++;
      }
      if (this.liveDfs.size >= CACHE_ENTRIES) this.liveDfs.clear();
      this.liveDfs.set(t, n);
    }
    return n;
  }

  /**
   * Score bounds of term `t` (in field `fieldIndex`) per window of WINDOW documents (window w: ordinals
   * [w·WINDOW, (w+1)·WINDOW)): the windows holding its postings (deleted ones included), ascending, and per window
   * the largest BM25 tf factor of its postings there; `max` is the largest over the segment. The factor grows with
   * avgdl, so the bounds are computed for an avgdl AVG_SLACK above the current one and stay valid (and nearly
   * tight) while avgdl does not pass it; they are recomputed when it does, when it falls well below, or for other
   * k1/b. Cached (within a memory budget).
   */
  windowBounds(t: number, fieldIndex: number, avg: number, params: Bm25Params): WindowBounds {
    const cached = this.bounds.get(t);
    if (cached && cached.k1 === params.k1 && cached.b === params.b && avg <= cached.avg && avg * AVG_SLACK * AVG_SLACK >= cached.avg) return cached;
    const ref = avg * AVG_SLACK;
    const start = this.termStarts[t];
    const end = this.termStarts[t + 1];
    const windows: number[] = [];
    const bounds: number[] = [];
    const nf = FIELDS.length;
    const lens = this.fieldLens;
    let max = 0;
    for (let p = start; p < end; p++) {
      const d = this.postDocs[p];
      const w = d >>> WINDOW_SHIFT;
      const f = tfWeight(this.postTfs[p], lens[d * nf + fieldIndex], ref, params);
      if (f > max) max = f;
      const last = windows.length - 1;
      if (last >= 0 && windows[last] === w) {
        if (f > bounds[last]) bounds[last] = f;
      } else {
        windows.push(w);
        bounds.push(f);
      }
    }
    const entry: WindowBounds = { k1: params.k1, b: params.b, avg: ref, max, windows: Uint32Array.from(windows), bounds: Float64Array.from(bounds) };
    if (cached) this.boundBytes -= cached.windows.byteLength + cached.bounds.byteLength;
    const bytes = entry.windows.byteLength + entry.bounds.byteLength;
    if (this.bounds.size >= CACHE_ENTRIES || this.boundBytes + bytes > BOUND_BYTES) {
      this.bounds.clear();
      this.boundBytes = 0;
    }
    this.bounds.set(t, entry);
    this.boundBytes += bytes;
    return entry;
  }

  /** Sample documents (see COUNT_SAMPLE). */
  get sampleCount(): number {
    return Math.min(this.docCount, COUNT_SAMPLE);
  }

  /** The j-th sample document (strictly increasing in j; every document when the segment is no larger than the sample). */
  sampleDoc(j: number): number {
    return this.docCount <= COUNT_SAMPLE ? j : Math.floor((j * this.docCount) / COUNT_SAMPLE);
  }

  /** Bit j (word j >>> 5, bit j & 31) set where the j-th sample document holds term `t` (deleted or not). Cached. */
  sampleBits(t: number): Uint32Array {
    let bits = this.samples.get(t);
    if (bits) return bits;
    const count = this.sampleCount;
    bits = new Uint32Array((count + 31) >>> 5);
    let p = this.termStarts[t];
    const end = this.termStarts[t + 1];
    if (end - p <= count) {
      for (let j = 0; p < end; p++) {
        const d = this.postDocs[p];
        while (j < count && this.sampleDoc(j) < d) j++;
        if (j >= count) break;
        if (this.sampleDoc(j) === d) bits[j >>> 5] |= 1 << (j & 31);
      }
    } else {
      for (let j = 0; j < count && p < end; j++) {
        const d = this.sampleDoc(j);
        p = advance(this.postDocs, p, end, d);
        if (p < end && this.postDocs[p] === d) bits[j >>> 5] |= 1 << (j & 31);
      }
    }
    if (this.samples.size >= CACHE_ENTRIES) this.samples.clear();
    this.samples.set(t, bits);
    return bits;
  }

  /** Term frequency of term index `t` in document `doc` (postings are sorted by doc), 0 if absent. */
  tfOf(t: number, doc: number): number {
    let lo = this.termStarts[t];
    let hi = this.termStarts[t + 1] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const d = this.postDocs[mid];
      if (d === doc) return this.postTfs[mid];
      if (d < doc) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  /** Builds a segment from documents (in memory). */
  static build(name: string, docs: readonly LexicalDoc[]): Segment {
    const postings = new Map<string, number[]>(); // key → [doc, tf, doc, tf, ...]
    const fieldLens = new Uint32Array(docs.length * FIELDS.length);
    docs.forEach((doc, d) => {
      FIELDS.forEach((field, f) => {
        const tokens = doc.fields[field] ?? [];
        fieldLens[d * FIELDS.length + f] = tokens.length;
        const counts = new Map<string, number>();
        for (const tok of tokens) counts.set(tok, (counts.get(tok) ?? 0) + 1);
        for (const [tok, tf] of counts) {
          const key = termKey(field, tok);
          let list = postings.get(key);
          if (!list) postings.set(key, (list = []));
          list.push(d, tf);
        }
      });
    });
    return Segment.fromPostingMap(name, docs.map((d) => d.id), docs.map((d) => d.path), fieldLens, postings);
  }

  /** Builds a segment from a term → [doc, tf, ...] map whose doc ordinals ascend within each list. */
  static fromPostingMap(name: string, ids: string[], docPaths: string[], fieldLens: Uint32Array, postings: Map<string, number[]>): Segment {
    const terms = [...postings.keys()].sort();
    let total = 0;
    for (const list of postings.values()) total += list.length / 2;
    const termStarts = new Uint32Array(terms.length + 1);
    const postDocs = new Uint32Array(total);
    const postTfs = new Uint16Array(total);
    let at = 0;
    terms.forEach((t, i) => {
      termStarts[i] = at;
      const list = postings.get(t)!;
      for (let j = 0; j < list.length; j += 2) {
        postDocs[at] = list[j];
        postTfs[at] = Math.min(list[j + 1], MAX_TF);
        at++;
      }
    });
    termStarts[terms.length] = at;
    const pathIndex = new Map<string, number>();
    const paths: string[] = [];
    const docPathIdx = new Uint32Array(docPaths.length);
    docPaths.forEach((p, d) => {
      let i = pathIndex.get(p);
      if (i === undefined) {
        i = paths.length;
        paths.push(p);
        pathIndex.set(p, i);
      }
      docPathIdx[d] = i;
    });
    return new Segment(name, paths, docPathIdx, StringTable.pack(ids), fieldLens, StringTable.pack(terms), termStarts, postDocs, postTfs);
  }

  /**
   * Merges the live documents of several segments into one, by a k-way merge of their sorted term
   * dictionaries straight into typed arrays (no per-posting objects), keeping memory near the output size.
   * Returns undefined when no live document remains.
   */
  static merge(segments: readonly Segment[], name: string): Segment | undefined {
    const remaps: Int32Array[] = [];
    const ids: string[] = [];
    const docPaths: string[] = [];
    const lens: number[] = [];
    for (const seg of segments) {
      const remap = new Int32Array(seg.docCount).fill(-1);
      for (let d = 0; d < seg.docCount; d++) {
        if (seg.deleted[d]) continue;
        remap[d] = ids.length;
        ids.push(seg.docId(d));
        docPaths.push(seg.docPath(d));
        for (let f = 0; f < FIELDS.length; f++) lens.push(seg.fieldLength(d, f));
      }
      remaps.push(remap);
    }
    if (!ids.length) return undefined;
    const capacity = segments.reduce((n, s) => n + s.postDocs.length, 0);
    const postDocs = new Uint32Array(capacity);
    const postTfs = new Uint16Array(capacity);
    const terms: string[] = [];
    const starts: number[] = [];
    const cursor = segments.map(() => 0);
    const current = segments.map((s) => (s.termCount ? s.term(0) : undefined));
    let at = 0;
    for (;;) {
      let min: string | undefined;
      for (const t of current) if (t !== undefined && (min === undefined || t < min)) min = t;
      if (min === undefined) break;
      const begin = at;
      segments.forEach((seg, si) => {
        if (current[si] !== min) return;
        const t = cursor[si];
        const remap = remaps[si];
        for (let p = seg.termStarts[t]; p < seg.termStarts[t + 1]; p++) {
          const nd = remap[seg.postDocs[p]];
          if (nd < 0) continue;
          postDocs[at] = nd;
          postTfs[at] = seg.postTfs[p];
          at++;
        }
        cursor[si] = t + 1;
        current[si] = t + 1 < seg.termCount ? seg.term(t + 1) : undefined;
      });
      if (at > begin) {
        terms.push(min);
        starts.push(begin);
      }
    }
    const termStarts = Uint32Array.from([...starts, at]);
    const pathIndex = new Map<string, number>();
    const paths: string[] = [];
    const docPathIdx = Uint32Array.from(docPaths, (p) => {
      let i = pathIndex.get(p);
      if (i === undefined) {
        i = paths.length;
        paths.push(p);
        pathIndex.set(p, i);
      }
      return i;
    });
    return new Segment(
      name, paths, docPathIdx, StringTable.pack(ids), Uint32Array.from(lens), StringTable.pack(terms), termStarts,
      postDocs.slice(0, at), postTfs.slice(0, at),
    );
  }

  serialize(): Buffer {
    const header = Buffer.from(
      JSON.stringify({
        v: 2,
        fields: FIELDS,
        paths: this.paths,
        counts: { docs: this.docCount, terms: this.terms.length, postings: this.postDocs.length, idBytes: this.ids.blob.length, termBytes: this.terms.blob.length },
      }),
      'utf8',
    );
    const parts: Buffer[] = [Buffer.from(MAGIC, 'ascii'), u32(header.length), header];
    let size = 8 + header.length;
    const pad = () => {
      const n = (4 - (size % 4)) % 4;
      if (n) {
        parts.push(Buffer.alloc(n));
        size += n;
      }
    };
    const push = (b: Buffer | ArrayBufferView) => {
      const buf = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
      parts.push(buf);
      size += buf.length;
    };
    pad();
    push(this.fieldLens);
    push(this.docPathIdx);
    push(this.ids.offsets);
    push(this.ids.blob);
    pad();
    push(this.terms.offsets);
    push(this.terms.blob);
    pad();
    push(this.termStarts);
    push(this.postDocs);
    push(this.postTfs);
    pad();
    const body = Buffer.concat(parts, size);
    return Buffer.concat([body, u32(crc32(body))]);
  }

  /** Opens a serialized segment. Sections are views into `buf` (no copies) when it is 4-byte aligned. */
  static deserialize(name: string, buf: Buffer): Segment {
    if (buf.length < 12 || buf.toString('ascii', 0, 4) !== MAGIC) throw new Error(`segment ${name}: not a Quarry lexical segment of this version (bad magic)`);
    const body = buf.subarray(0, buf.length - 4);
    if (crc32(body) !== buf.readUInt32LE(buf.length - 4)) throw new Error(`segment ${name}: checksum mismatch (file damaged or truncated)`);
    const headerLen = buf.readUInt32LE(4);
    const header = JSON.parse(buf.toString('utf8', 8, 8 + headerLen)) as {
      v: number; fields: string[]; paths: string[];
      counts: { docs: number; terms: number; postings: number; idBytes: number; termBytes: number };
    };
    if (header.v !== 2 || header.fields.join(',') !== FIELDS.join(',')) throw new Error(`segment ${name}: unsupported version or field layout`);
    const { docs, terms, postings, idBytes, termBytes } = header.counts;
    let off = 8 + headerLen;
    const align = () => {
      off += (4 - (off % 4)) % 4;
    };
    const bytes = (n: number): Buffer => {
      if (off + n > body.length) throw new Error(`segment ${name}: length mismatch`);
      const b = buf.subarray(off, off + n);
      off += n;
      return b;
    };
    const view = <T extends Uint32Array | Uint16Array>(Ctor: { new (b: ArrayBufferLike, o: number, n: number): T; new (n: number): T; BYTES_PER_ELEMENT: number }, n: number): T => {
      const b = bytes(n * Ctor.BYTES_PER_ELEMENT);
      if (b.byteOffset % Ctor.BYTES_PER_ELEMENT === 0) return new Ctor(b.buffer, b.byteOffset, n);
      const out = new Ctor(n);
      Buffer.from(out.buffer).set(b);
      return out;
    };
    align();
    const fieldLens = view(Uint32Array, docs * FIELDS.length);
    const docPathIdx = view(Uint32Array, docs);
    const idOffsets = view(Uint32Array, docs + 1);
    const idBlob = bytes(idBytes);
    align();
    const termOffsets = view(Uint32Array, terms + 1);
    const termBlob = bytes(termBytes);
    align();
    const termStarts = view(Uint32Array, terms + 1);
    const postDocs = view(Uint32Array, postings);
    const postTfs = view(Uint16Array, postings);
    align();
    if (off !== body.length) throw new Error(`segment ${name}: length mismatch`);
    return new Segment(
      name, header.paths, docPathIdx, new StringTable(idBlob, idOffsets), fieldLens,
      new StringTable(termBlob, termOffsets), termStarts, postDocs, postTfs,
    );
  }
}

/** First posting in [from, end) whose document is ≥ `doc` (galloping, then binary search), or `end`. */
export function advance(docs: Uint32Array, from: number, end: number, doc: number): number {
  if (from >= end || docs[from] >= doc) return from;
  let step = 1;
  let lo = from;
  let hi = from + 1;
  while (hi < end && docs[hi] < doc) {
    lo = hi;
    step *= 2;
    hi = from + step;
  }
  if (hi > end) hi = end;
  // docs[lo] < doc: the answer is in (lo, hi]
  let a = lo + 1;
  let b = hi;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (docs[mid] < doc) a = mid + 1;
    else b = mid;
  }
  return a;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}
