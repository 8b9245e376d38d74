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
import type { FileHandle } from 'node:fs/promises';
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

  byteLength(i: number): number {
    return this.offsets[i + 1] - this.offsets[i];
  }

  /** Packs strings into one buffer (written in place: no buffer per string). */
  static pack(strings: readonly string[]): StringTable {
    const offsets = new Uint32Array(strings.length + 1);
    let bytes = 0;
    for (const s of strings) bytes += Buffer.byteLength(s, 'utf8');
    const blob = Buffer.alloc(bytes);
    let at = 0;
    strings.forEach((s, i) => {
      offsets[i] = at;
      at += blob.write(s, at, 'utf8');
    });
    offsets[strings.length] = at;
    return new StringTable(blob, offsets);
  }
}

/** A StringTable written string by string from other tables' bytes, into arrays sized for at most `count` strings of `bytes` bytes. */
class StringTableBuilder {
  private readonly offsets: Uint32Array;
  private readonly blob: Buffer;
  private n = 0;
  private at = 0;

  constructor(count: number, bytes: number) {
    this.offsets = new Uint32Array(count + 1);
    this.blob = Buffer.allocUnsafe(bytes);
  }

  get length(): number {
    return this.n;
  }

  /** Appends string `i` of `from`. */
  copy(from: StringTable, i: number): void {
    const start = from.offsets[i];
    const end = from.offsets[i + 1];
    this.offsets[this.n++] = this.at;
    this.at += from.blob.copy(this.blob, this.at, start, end);
  }

  build(): StringTable {
    this.offsets[this.n] = this.at;
    // exact-size copies when the table came out smaller than its capacity (deleted documents, shared terms)
    const offsets = this.n + 1 === this.offsets.length ? this.offsets : this.offsets.slice(0, this.n + 1);
    const blob = this.at === this.blob.length ? this.blob : Buffer.from(this.blob.subarray(0, this.at));
    return new StringTable(blob, offsets);
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

  /** Builds a segment from documents (in memory; see SegmentBuilder). */
  static build(name: string, docs: readonly LexicalDoc[]): Segment {
    const builder = new SegmentBuilder();
    for (const doc of docs) builder.add(doc);
    return builder.build(name);
  }

  /** A segment from its laid-out parts (SegmentBuilder). */
  static fromParts(
    name: string, paths: string[], docPathIdx: Uint32Array, ids: readonly string[], fieldLens: Uint32Array, terms: readonly string[],
    termStarts: Uint32Array, postDocs: Uint32Array, postTfs: Uint16Array,
  ): Segment {
    return new Segment(name, paths, docPathIdx, StringTable.pack(ids), fieldLens, StringTable.pack(terms), termStarts, postDocs, postTfs);
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
   * dictionaries straight into typed arrays (no per-posting objects). Ids and terms are copied as UTF-8 bytes from
   * the inputs' blobs (no string per term or id is kept), so the merge holds little beyond its inputs and its output.
   * Returns undefined when no live document remains.
   */
  static merge(segments: readonly Segment[], name: string): Segment | undefined {
    const nf = FIELDS.length;
    let live = 0;
    let idBytes = 0;
    let postings = 0;
    for (const seg of segments) {
      live += seg.liveCount;
      postings += seg.postDocs.length;
      for (let d = 0; d < seg.docCount; d++) if (!seg.deleted[d]) idBytes += seg.ids.byteLength(d);
    }
    if (!live) return undefined;
    const remaps: Int32Array[] = [];
    const paths: string[] = [];
    const pathIndex = new Map<string, number>();
    const docPathIdx = new Uint32Array(live);
    const lens = new Uint32Array(live * nf);
    const ids = new StringTableBuilder(live, idBytes);
    let n = 0;
    for (const seg of segments) {
      const remap = new Int32Array(seg.docCount).fill(-1);
      const pathMap = new Int32Array(seg.pathCount).fill(-1);
      for (let d = 0; d < seg.docCount; d++) {
        if (seg.deleted[d]) continue;
        remap[d] = n;
        ids.copy(seg.ids, d);
        const sp = seg.docPathIdx[d];
        if (pathMap[sp] < 0) {
          const p = seg.paths[sp];
          let i = pathIndex.get(p);
          if (i === undefined) {
            i = paths.length;
            paths.push(p);
            pathIndex.set(p, i);
          }
          pathMap[sp] = i;
        }
        docPathIdx[n] = pathMap[sp];
        lens.set(seg.fieldLens.subarray(d * nf, d * nf + nf), n * nf);
        n++;
      }
      remaps.push(remap);
    }
    // Without deletions the output holds exactly every input posting: the arrays are sized to it, never copied.
    const postDocs = new Uint32Array(postings);
    const postTfs = new Uint16Array(postings);
    const terms = new StringTableBuilder(segments.reduce((k, s) => k + s.termCount, 0), segments.reduce((k, s) => k + s.terms.blob.length, 0));
    let starts = new Uint32Array(1024);
    const cursor = segments.map(() => 0);
    const current = segments.map((s) => (s.termCount ? s.term(0) : undefined));
    let at = 0;
    for (;;) {
      let min: string | undefined;
      let from = -1;
      for (let si = 0; si < current.length; si++) {
        const t = current[si];
        if (t !== undefined && (min === undefined || t < min)) {
          min = t;
          from = si;
        }
      }
      if (min === undefined) break;
      const begin = at;
      for (let si = 0; si < segments.length; si++) {
        if (current[si] !== min) continue;
        const seg = segments[si];
        const t = cursor[si];
        const remap = remaps[si];
        for (let p = seg.termStarts[t]; p < seg.termStarts[t + 1]; p++) {
          const nd = remap[seg.postDocs[p]];
          if (nd < 0) continue;
          postDocs[at] = nd;
          postTfs[at] = seg.postTfs[p];
          at++;
        }
        if (si !== from) {
          cursor[si] = t + 1;
          current[si] = t + 1 < seg.termCount ? seg.term(t + 1) : undefined;
        }
      }
      if (at > begin) {
        if (terms.length + 1 >= starts.length) {
          const grown = new Uint32Array(starts.length * 2);
          grown.set(starts);
          starts = grown;
        }
        starts[terms.length] = begin;
        terms.copy(segments[from].terms, cursor[from]);
      }
      const seg = segments[from];
      cursor[from]++;
      current[from] = cursor[from] < seg.termCount ? seg.term(cursor[from]) : undefined;
    }
    starts[terms.length] = at;
    return new Segment(
      name, paths, docPathIdx, ids.build(), lens, terms.build(), starts.slice(0, terms.length + 1),
      at === postings ? postDocs : postDocs.slice(0, at), at === postings ? postTfs : postTfs.slice(0, at),
    );
  }

  /** The file's bytes in one buffer (see `write` for writing it without the copy). */
  serialize(): Buffer {
    const parts = this.fileParts();
    const body = Buffer.concat(parts);
    return Buffer.concat([body, u32(crc32(body))]);
  }

  /**
   * Writes the file's bytes to an open file, section by section from the arrays themselves (no copy of the segment in
   * one buffer), the CRC-32 computed on the way; returns the bytes written.
   */
  async write(fh: FileHandle): Promise<number> {
    let crc = 0;
    let size = 0;
    for (const part of this.fileParts()) {
      crc = crc32(part, crc);
      size += part.length;
      await writeAll(fh, part);
    }
    await writeAll(fh, u32(crc));
    return size + 4;
  }

  /** The file's sections before the CRC, in order: views of the segment's arrays, the header and padding. */
  private fileParts(): Buffer[] {
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
    return parts;
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

/**
 * A segment in the making: each document is turned into its postings when it is added (term ids in a dictionary per
 * field, the document's distinct terms and frequencies in two typed arrays), so that its token lists can be dropped
 * at once instead of being held until the commit; `build` then lays the postings out by a counting sort over the
 * term ids in dictionary order. The result is exactly `Segment.fromPostingMap` of the same documents (the tests
 * compare the bytes).
 */
export class SegmentBuilder {
  /** Per field: token → term id. */
  private readonly dict = FIELDS.map(() => new Map<string, number>());
  /** Per term id: its field index and token. */
  private readonly termField: number[] = [];
  private readonly termToken: string[] = [];
  private docs: Array<{ id: string; path: string; lens: Uint32Array; terms: Uint32Array; tfs: Uint32Array }> = [];
  /** Scratch per term id while a document is added: the serial of the last document-field that counted it, its count. */
  private stamp = new Int32Array(1024).fill(-1);
  private count = new Uint32Array(1024);
  private serial = 0;
  private scratch = new Uint32Array(256);

  get docCount(): number {
    return this.docs.length;
  }

  add(doc: LexicalDoc): void {
    const lens = new Uint32Array(FIELDS.length);
    const ids: number[] = [];
    const tfs: number[] = [];
    for (let f = 0; f < FIELDS.length; f++) {
      const tokens = doc.fields[FIELDS[f]] ?? [];
      lens[f] = tokens.length;
      const dict = this.dict[f];
      const serial = this.serial++;
      let distinct = 0;
      for (const tok of tokens) {
        let t = dict.get(tok);
        if (t === undefined) {
          t = this.termToken.length;
          dict.set(tok, t);
          this.termField.push(f);
          this.termToken.push(tok);
          if (t >= this.stamp.length) this.grow();
        }
        if (this.stamp[t] !== serial) {
          this.stamp[t] = serial;
          this.count[t] = 0;
          if (distinct >= this.scratch.length) {
            const more = new Uint32Array(this.scratch.length * 2);
            more.set(this.scratch);
            this.scratch = more;
          }
          this.scratch[distinct++] = t;
        }
        this.count[t]++;
      }
      for (let i = 0; i < distinct; i++) {
        const t = this.scratch[i];
        ids.push(t);
        tfs.push(this.count[t]);
      }
    }
    this.docs.push({ id: doc.id, path: doc.path, lens, terms: Uint32Array.from(ids), tfs: Uint32Array.from(tfs) });
  }

  /** Drops the documents of a path added so far; returns whether there were any. */
  removePath(path: string): boolean {
    const before = this.docs.length;
    this.docs = this.docs.filter((d) => d.path !== path);
    return this.docs.length !== before;
  }

  /** The segment of the documents added. */
  build(name: string): Segment {
    const docs = this.docs;
    const nTerms = this.termToken.length;
    const df = new Uint32Array(nTerms);
    let total = 0;
    for (const d of docs) {
      for (const t of d.terms) df[t]++;
      total += d.terms.length;
    }
    // the terms present (a removed document's may not be), in dictionary order of their keys
    const keys: string[] = [];
    const order: number[] = [];
    for (let t = 0; t < nTerms; t++) {
      if (!df[t]) continue;
      keys[t] = termKey(FIELDS[this.termField[t]], this.termToken[t]);
      order.push(t);
    }
    order.sort((a, b) => (keys[a] < keys[b] ? -1 : keys[a] > keys[b] ? 1 : 0));
    const termStarts = new Uint32Array(order.length + 1);
    const cursor = new Uint32Array(nTerms);
    let at = 0;
    order.forEach((t, i) => {
      termStarts[i] = at;
      cursor[t] = at;
      at += df[t];
    });
    termStarts[order.length] = at;
    const postDocs = new Uint32Array(total);
    const postTfs = new Uint16Array(total);
    const fieldLens = new Uint32Array(docs.length * FIELDS.length);
    docs.forEach((doc, d) => {
      fieldLens.set(doc.lens, d * FIELDS.length);
      for (let i = 0; i < doc.terms.length; i++) {
        const p = cursor[doc.terms[i]]++;
        postDocs[p] = d;
        postTfs[p] = Math.min(doc.tfs[i], MAX_TF);
      }
    });
    const pathIndex = new Map<string, number>();
    const paths: string[] = [];
    const docPathIdx = new Uint32Array(docs.length);
    docs.forEach((doc, d) => {
      let i = pathIndex.get(doc.path);
      if (i === undefined) {
        i = paths.length;
        paths.push(doc.path);
        pathIndex.set(doc.path, i);
      }
      docPathIdx[d] = i;
    });
    return Segment.fromParts(name, paths, docPathIdx, docs.map((d) => d.id), fieldLens, order.map((t) => keys[t]), termStarts, postDocs, postTfs);
  }

  private grow(): void {
    const stamp = new Int32Array(this.stamp.length * 2).fill(-1);
    stamp.set(this.stamp);
    this.stamp = stamp;
    const count = new Uint32Array(this.count.length * 2);
    count.set(this.count);
    this.count = count;
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

async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  for (let off = 0; off < buf.length; ) {
    const { bytesWritten } = await fh.write(buf, off, buf.length - off);
    off += bytesWritten;
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}
