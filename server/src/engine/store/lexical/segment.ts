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
 *
 * Where the postings live (issue 21): a segment written to disk keeps everything before the posting arrays in memory
 * (documents, dictionary, term starts: about a fifth of the file) and reads a term's postings from its file when a
 * search asks for them (two positional reads; the recently read ones cached within POSTING_CACHE_BYTES). A merge
 * streams its output into the file term by term and reads its inputs in large sequential reads, so neither side's
 * posting arrays are ever whole in memory. Small segments (see `Segment.open`) and segments not written yet hold
 * their postings in memory.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
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
/** Memory for the postings a file-backed segment read for recent searches (a term's postings over a quarter of it are not kept). */
const POSTING_CACHE_BYTES = 2 * 1024 * 1024;
/** Postings per sequential read of a merge's inputs and per write of its output. */
const MERGE_CHUNK = 256 * 1024;

/** Postings of one term in one segment: its documents' ordinals (ascending) and their term frequencies. */
export interface Postings {
  docs: Uint32Array;
  tfs: Uint16Array;
}

/** The header of a segment file. */
interface SegmentHeader {
  v: number;
  fields: string[];
  paths: string[];
  counts: { docs: number; terms: number; postings: number; idBytes: number; termBytes: number };
}

/** Byte offsets of a segment file's sections (see the layout above), from its header's length and counts. */
function fileLayout(headerLen: number, c: SegmentHeader['counts']) {
  let off = 8 + headerLen;
  const align = () => (off += (4 - (off % 4)) % 4);
  const take = (n: number) => {
    const at = off;
    off += n;
    return at;
  };
  align();
  const fieldLensAt = take(c.docs * FIELDS.length * 4);
  const docPathAt = take(c.docs * 4);
  const idOffsetsAt = take((c.docs + 1) * 4);
  const idBlobAt = take(c.idBytes);
  align();
  const termOffsetsAt = take((c.terms + 1) * 4);
  const termBlobAt = take(c.termBytes);
  align();
  const termStartsAt = take((c.terms + 1) * 4);
  const docsAt = take(c.postings * 4);
  const tfsAt = take(c.postings * 2);
  align();
  return { fieldLensAt, docPathAt, idOffsetsAt, idBlobAt, termOffsetsAt, termBlobAt, termStartsAt, docsAt, tfsAt, end: off };
}

/** A segment file held open for its postings: closed by `Segment.close`, or when its segment is garbage-collected. */
class PostingsFile {
  constructor(
    public fd: number,
    /** Byte offsets of the posting documents and of the term frequencies. */
    readonly docsAt: number,
    readonly tfsAt: number,
  ) {}

  close(): void {
    if (this.fd < 0) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = -1;
  }
}

const unclosedFiles = new FinalizationRegistry<PostingsFile>((file) => file.close());

/** Fills `into` from the file at `position`; a file that ends first is reported as truncated. */
function readExactly(fd: number, into: ArrayBufferView, position: number, name: string): void {
  const bytes = new Uint8Array(into.buffer, into.byteOffset, into.byteLength);
  for (let off = 0; off < bytes.length; ) {
    const n = readSync(fd, bytes, off, bytes.length - off, position + off);
    if (n <= 0) throw new Error(`segment ${name}: file ends early (truncated)`);
    off += n;
  }
}

/**
 * One array of a segment's postings read front to back (a merge's input): the array itself when it is in memory,
 * else MERGE_CHUNK windows of its file. `at` makes [start, end) readable and returns where it starts in `buf` (valid
 * until the next call), so a merge indexes them without a view per term.
 */
class PostingWindow<T extends Uint32Array | Uint16Array> {
  private from = 0;
  private to: number;

  constructor(
    /** The elements of [from, to): the array itself when it is in memory, else the last window read. */
    public buf: T,
    private readonly make: (n: number) => T,
    private readonly read: ((into: T, start: number) => void) | undefined,
    private readonly total: number,
  ) {
    this.to = read ? 0 : total;
  }

  /** Makes [start, end) readable; returns where it starts in `buf`. */
  at(start: number, end: number): number {
    if (this.read && (start < this.from || end > this.to)) {
      const n = Math.min(Math.max(end - start, MERGE_CHUNK), this.total - start);
      if (this.buf.length < n) this.buf = this.make(n);
      this.read(this.buf.subarray(0, n) as T, start);
      this.from = start;
      this.to = start + n;
    }
    return start - this.from;
  }
}

/** The two windows of one segment's postings (see PostingWindow). */
interface PostingReader {
  docs: PostingWindow<Uint32Array>;
  tfs: PostingWindow<Uint16Array>;
}

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
    private readonly termStarts: Uint32Array,
    /** The postings, while they are in memory (else read from `file`). */
    private postDocs: Uint32Array | undefined,
    private postTfs: Uint16Array | undefined,
  ) {
    this.deleted = new Uint8Array(docPathIdx.length);
  }

  /** The open file postings are read from (none while they are in memory). */
  private file: PostingsFile | undefined;
  /** Byte offsets of the posting arrays in the segment's file, once it was written or opened. */
  private layout: { docsAt: number; tfsAt: number } | undefined;
  /** term index → postings read from the file for recent searches, and their size in bytes. */
  private readonly postingCache = new Map<number, Postings>();
  private postingCacheBytes = 0;

  /** Postings in the segment (every term's, deleted documents' included). */
  get postingCount(): number {
    return this.termStarts[this.termStarts.length - 1];
  }

  /** Whether the postings are held in memory (not written yet, or a small segment). */
  get postingsInMemory(): boolean {
    return !!this.postDocs;
  }

  /** Number of postings of term index `t` (deleted documents' included). */
  df(t: number): number {
    return this.termStarts[t + 1] - this.termStarts[t];
  }

  /**
   * Postings of term index `t`: views of the arrays in memory, or read from the file (two positional reads), cached
   * for the next searches within POSTING_CACHE_BYTES. Do not modify them.
   */
  postings(t: number): Postings {
    const start = this.termStarts[t];
    const end = this.termStarts[t + 1];
    if (this.postDocs && this.postTfs) return { docs: this.postDocs.subarray(start, end), tfs: this.postTfs.subarray(start, end) };
    const cached = this.postingCache.get(t);
    if (cached) return cached;
    const file = this.file;
    if (!file || file.fd < 0) throw new Error(`lexical segment ${this.name} is closed`);
    const out: Postings = { docs: new Uint32Array(end - start), tfs: new Uint16Array(end - start) };
    readExactly(file.fd, out.docs, file.docsAt + 4 * start, this.name);
    readExactly(file.fd, out.tfs, file.tfsAt + 2 * start, this.name);
    const bytes = 6 * (end - start);
    if (bytes <= POSTING_CACHE_BYTES / 4) {
      if (this.postingCacheBytes + bytes > POSTING_CACHE_BYTES || this.postingCache.size >= CACHE_ENTRIES) {
        this.postingCache.clear();
        this.postingCacheBytes = 0;
      }
      this.postingCache.set(t, out);
      this.postingCacheBytes += bytes;
    }
    return out;
  }

  /**
   * From now on reads the postings from the segment's file at `path` (written by `write` or `Segment.mergeInto`) and
   * drops them from memory.
   */
  attachFile(path: string): void {
    if (!this.layout) throw new Error(`segment ${this.name}: attached to a file before it was written`);
    this.useFile(new PostingsFile(openSync(path, 'r'), this.layout.docsAt, this.layout.tfsAt));
  }

  private useFile(file: PostingsFile): void {
    this.file?.close();
    this.file = file;
    unclosedFiles.register(this, file, this);
    this.postDocs = undefined;
    this.postTfs = undefined;
  }

  /** Closes the segment's file (a file-backed segment cannot be searched afterwards). */
  close(): void {
    if (!this.file) return;
    unclosedFiles.unregister(this);
    this.file.close();
    this.postingCache.clear();
    this.postingCacheBytes = 0;
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

  /** Path → its index (built on first use). */
  private pathIndexes: Map<string, number> | undefined;
  /** The documents grouped by path index, ascending within a path: path i's are pathDocs[pathStarts[i], pathStarts[i+1]). */
  private pathStarts: Uint32Array | undefined;
  private pathDocs: Uint32Array | undefined;

  /**
   * The documents of a path, ascending, deleted ones included (a counting sort of the documents by path, done on first
   * use: two typed arrays, no object per document).
   */
  docsOfPath(path: string): Uint32Array {
    if (!this.pathIndexes || !this.pathStarts || !this.pathDocs) {
      this.pathIndexes = new Map(this.paths.map((p, i) => [p, i]));
      const starts = new Uint32Array(this.paths.length + 1);
      for (let d = 0; d < this.docCount; d++) starts[this.docPathIdx[d] + 1]++;
      for (let i = 0; i < this.paths.length; i++) starts[i + 1] += starts[i];
      const next = starts.slice(0, this.paths.length);
      const docs = new Uint32Array(this.docCount);
      for (let d = 0; d < this.docCount; d++) docs[next[this.docPathIdx[d]]++] = d;
      this.pathStarts = starts;
      this.pathDocs = docs;
    }
    const i = this.pathIndexes.get(path);
    return i === undefined ? this.pathDocs.subarray(0, 0) : this.pathDocs.subarray(this.pathStarts[i], this.pathStarts[i + 1]);
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
    const all = this.df(t);
    if (!this.deletedDocs) return all;
    let n = this.liveDfs.get(t);
    if (n === undefined) {
      const docs = this.postings(t).docs;
      if (this.deletedDocs * 16 < all) {
        if (!this.deletedSorted) {
          const list = new Uint32Array(this.deletedDocs);
          for (let d = 0, i = 0; d < this.docCount; d++) if (this.deleted[d]) list[i++] = d;
          this.deletedSorted = list;
        }
        n = all;
        let p = 0;
        for (const d of this.deletedSorted) {
          p = advance(docs, p, all, d);
          if (p >= all) break;
          if (docs[p] === d) n--;
        }
      } else {
        n = 0;
        for (let p = 0; p < all; p++) if (!this.deleted[docs[p]]) n++;
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
    const { docs, tfs } = this.postings(t);
    const windows: number[] = [];
    const bounds: number[] = [];
    const nf = FIELDS.length;
    const lens = this.fieldLens;
    let max = 0;
    for (let p = 0; p < docs.length; p++) {
      const d = docs[p];
      const w = d >>> WINDOW_SHIFT;
      const f = tfWeight(tfs[p], lens[d * nf + fieldIndex], ref, params);
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
    const docs = this.postings(t).docs;
    let p = 0;
    const end = docs.length;
    if (end <= count) {
      for (let j = 0; p < end; p++) {
        const d = docs[p];
        while (j < count && this.sampleDoc(j) < d) j++;
        if (j >= count) break;
        if (this.sampleDoc(j) === d) bits[j >>> 5] |= 1 << (j & 31);
      }
    } else {
      for (let j = 0; j < count && p < end; j++) {
        const d = this.sampleDoc(j);
        p = advance(docs, p, end, d);
        if (p < end && docs[p] === d) bits[j >>> 5] |= 1 << (j & 31);
      }
    }
    if (this.samples.size >= CACHE_ENTRIES) this.samples.clear();
    this.samples.set(t, bits);
    return bits;
  }

  /** Term frequency of term index `t` in document `doc` (postings are sorted by doc), 0 if absent. */
  tfOf(t: number, doc: number): number {
    const { docs, tfs } = this.postings(t);
    let lo = 0;
    let hi = docs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const d = docs[mid];
      if (d === doc) return tfs[mid];
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

  /** Live documents across `segments` (a merge of none writes nothing). */
  static liveTotal(segments: readonly Segment[]): number {
    return segments.reduce((n, s) => n + s.liveCount, 0);
  }

  /** Reads the postings of this segment front to back (a merge's input). */
  private sequential(): PostingReader {
    const file = this.postDocs ? undefined : this.file;
    if (!this.postDocs && (!file || file.fd < 0)) throw new Error(`lexical segment ${this.name} is closed`);
    const total = this.postingCount;
    const reader = <T extends Uint32Array | Uint16Array>(mem: T | undefined, make: (n: number) => T, offset: number, width: number) =>
      new PostingWindow<T>(mem ?? make(Math.min(MERGE_CHUNK, total)), make, mem ? undefined : (into, start) => {
        if (!file || file.fd < 0) throw new Error(`lexical segment ${this.name} is closed`);
        readExactly(file.fd, into, offset + width * start, this.name);
      }, total);
    return {
      docs: reader(this.postDocs, (n) => new Uint32Array(n), file?.docsAt ?? 0, 4),
      tfs: reader(this.postTfs, (n) => new Uint16Array(n), file?.tfsAt ?? 0, 2),
    };
  }

  /**
   * Merges the live documents of several segments (at least one) into a new segment file written to `fh`, and
   * returns that segment (its postings in the file: `attachFile` once the file is in place). Bounded memory: the
   * output's documents and dictionary are built in memory (what the segment keeps), then its postings are streamed
   * out in MERGE_CHUNK pieces while the inputs' are read in order (in memory, or from their files in large sequential
   * reads). Three passes over the inputs' dictionaries in order: a k-way merge of the sorted dictionaries finds the
   * output's terms and their live postings (terms left with none are dropped), then the documents and the term
   * frequencies are written. Ids and terms are copied as UTF-8 bytes (no string per term or id is kept). The file is
   * byte for byte the segment built from the live documents.
   */
  static async mergeInto(segments: readonly Segment[], name: string, fh: FileHandle): Promise<Segment> {
    const nf = FIELDS.length;
    const live = Segment.liveTotal(segments);
    if (!live) throw new Error(`merge ${name}: no live document`);
    let idBytes = 0;
    for (const seg of segments) for (let d = 0; d < seg.docCount; d++) if (!seg.deleted[d]) idBytes += seg.ids.byteLength(d);
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
    const hasDeletions = segments.map((s) => s.deletedDocs > 0);

    // Pass 1: the output dictionary. outTerm[si][t]: the output term of input term t, -1 when it has no live posting.
    const terms = new StringTableBuilder(segments.reduce((k, s) => k + s.termCount, 0), segments.reduce((k, s) => k + s.terms.blob.length, 0));
    const outTerm = segments.map((s) => new Int32Array(s.termCount).fill(-1));
    let starts = new Uint32Array(1024);
    let total = 0;
    {
      const readers = segments.map((s, si) => (hasDeletions[si] ? s.sequential() : undefined));
      const cursor = segments.map(() => 0);
      const current = segments.map((s) => (s.termCount ? s.term(0) : undefined));
      const from: number[] = [];
      for (;;) {
        let min: string | undefined;
        for (const t of current) if (t !== undefined && (min === undefined || t < min)) min = t;
        if (min === undefined) break;
        from.length = 0;
        let count = 0;
        for (let si = 0; si < segments.length; si++) {
          if (current[si] !== min) continue;
          from.push(si);
          const seg = segments[si];
          const t = cursor[si];
          const reader = readers[si];
          if (!reader) count += seg.df(t);
          else {
            const df = seg.df(t);
            const at = reader.docs.at(seg.termStarts[t], seg.termStarts[t + 1]);
            const docs = reader.docs.buf;
            const remap = remaps[si];
            for (let p = at; p < at + df; p++) if (remap[docs[p]] >= 0) count++;
          }
        }
        if (count) {
          const o = terms.length;
          if (o + 1 >= starts.length) {
            const grown = new Uint32Array(starts.length * 2);
            grown.set(starts);
            starts = grown;
          }
          starts[o] = total;
          total += count;
          terms.copy(segments[from[0]].terms, cursor[from[0]]);
          for (const si of from) outTerm[si][cursor[si]] = o;
        }
        for (const si of from) {
          const seg = segments[si];
          const t = ++cursor[si];
          current[si] = t < seg.termCount ? seg.term(t) : undefined;
        }
      }
    }
    const termCount = terms.length;
    starts[termCount] = total;
    const termStarts = starts.slice(0, termCount + 1);
    const idTable = ids.build();
    const termTable = terms.build();

    let crc = 0;
    let size = 0;
    const emit = async (buf: Buffer) => {
      crc = crc32(buf, crc);
      size += buf.length;
      await writeAll(fh, buf);
    };
    const meta = fileStart(paths, { docs: live, terms: termCount, postings: total, idBytes: idTable.blob.length, termBytes: termTable.blob.length }, [
      lens, docPathIdx, idTable.offsets, idTable.blob, PAD, termTable.offsets, termTable.blob, PAD, termStarts,
    ]);
    for (const part of meta) await emit(part);
    const docsAt = size;
    let tfsAt = size;

    // Passes 2 and 3: every output term's postings, input by input (their documents ascend), documents then tfs.
    // An input without deletions keeps its documents' order: their new ordinals are the old ones plus its offset.
    const offsets = remaps.map((r, si) => (hasDeletions[si] ? -1 : r.length ? r[0] : 0));
    // (a term's postings larger than the chunk get a chunk of their own)
    const chunk = Math.max(MERGE_CHUNK, ...segments.map((s) => s.maxDf()));
    for (const pass of ['docs', 'tfs'] as const) {
      const out = pass === 'docs' ? new Uint32Array(chunk) : new Uint16Array(chunk);
      const bytes = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
      const readers = segments.map((s) => s.sequential());
      const docReaders = pass === 'tfs' ? segments.map((s, si) => (hasDeletions[si] ? s.sequential() : undefined)) : [];
      if (pass === 'tfs') tfsAt = size;
      const cursor = segments.map(() => 0);
      let at = 0;
      for (let o = 0; o < termCount; o++) {
        for (let si = 0; si < segments.length; si++) {
          const map = outTerm[si];
          let t = cursor[si];
          while (t < map.length && map[t] < o) t++;
          cursor[si] = t + 1;
          if (t >= map.length || map[t] !== o) {
            cursor[si] = t;
            continue;
          }
          const seg = segments[si];
          const a = seg.termStarts[t];
          const b = seg.termStarts[t + 1];
          if (at + (b - a) > out.length) {
            await emit(bytes.subarray(0, at * out.BYTES_PER_ELEMENT));
            at = 0;
          }
          const offset = offsets[si];
          if (pass === 'docs') {
            const from = readers[si].docs.at(a, b);
            const docs = readers[si].docs.buf;
            if (offset >= 0) for (let p = from; p < from + (b - a); p++) out[at++] = docs[p] + offset;
            else {
              const remap = remaps[si];
              for (let p = from; p < from + (b - a); p++) {
                const nd = remap[docs[p]];
                if (nd >= 0) out[at++] = nd;
              }
            }
          } else {
            const from = readers[si].tfs.at(a, b);
            const tfs = readers[si].tfs.buf;
            const docReader = docReaders[si];
            if (!docReader) {
              out.set(tfs.subarray(from, from + (b - a)), at);
              at += b - a;
            } else {
              const dfrom = docReader.docs.at(a, b);
              const docs = docReader.docs.buf;
              const remap = remaps[si];
              for (let p = 0; p < b - a; p++) if (remap[docs[dfrom + p]] >= 0) out[at++] = tfs[from + p];
            }
          }
        }
      }
      if (at) await emit(bytes.subarray(0, at * out.BYTES_PER_ELEMENT));
    }
    if (size % 4) await emit(Buffer.alloc(4 - (size % 4)));
    await writeAll(fh, u32(crc));
    const seg = new Segment(name, paths, docPathIdx, idTable, lens, termTable, termStarts, undefined, undefined);
    seg.layout = { docsAt, tfsAt };
    return seg;
  }

  /** The largest number of postings of one term. */
  private maxDf(): number {
    let max = 0;
    for (let t = 0; t < this.termCount; t++) max = Math.max(max, this.termStarts[t + 1] - this.termStarts[t]);
    return max;
  }

  /** The file's bytes in one buffer, for a segment whose postings are in memory (see `write` for writing it without the copy). */
  serialize(): Buffer {
    const parts = this.fileParts();
    const body = Buffer.concat(parts);
    return Buffer.concat([body, u32(crc32(body))]);
  }

  /**
   * Writes the file's bytes to an open file, section by section from the arrays themselves (no copy of the segment in
   * one buffer), the CRC-32 computed on the way; returns the bytes written. The postings must be in memory.
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
    if (!this.postDocs || !this.postTfs) throw new Error(`segment ${this.name}: its postings are in its file, not in memory`);
    const parts = fileStart(this.paths, { docs: this.docCount, terms: this.terms.length, postings: this.postDocs.length, idBytes: this.ids.blob.length, termBytes: this.terms.blob.length }, [
      this.fieldLens, this.docPathIdx, this.ids.offsets, this.ids.blob, PAD, this.terms.offsets, this.terms.blob, PAD, this.termStarts,
    ]);
    let size = parts.reduce((k, b) => k + b.length, 0);
    const docsAt = size;
    parts.push(view(this.postDocs));
    size += this.postDocs.byteLength;
    const tfsAt = size;
    parts.push(view(this.postTfs));
    size += this.postTfs.byteLength;
    if (size % 4) parts.push(Buffer.alloc(4 - (size % 4)));
    this.layout = { docsAt, tfsAt };
    return parts;
  }

  /**
   * Opens a segment file. One that holds `inMemoryBelow` bytes or fewer is read whole (postings in memory); a larger
   * one keeps its documents and dictionary in memory and its file open for the postings. Either way every byte is
   * checked against the CRC-32 (the postings in 1 MiB reads that are not kept). Errors name the damage; a missing
   * file throws the ENOENT of `open`.
   */
  static open(name: string, path: string, inMemoryBelow = 0): Segment {
    const fd = openSync(path, 'r');
    let file: PostingsFile | undefined;
    try {
      const size = fstatSync(fd).size;
      if (size <= inMemoryBelow) return Segment.deserialize(name, readFileSync(fd));
      if (size < 12) throw new Error(`segment ${name}: not a Quarry lexical segment of this version (bad magic)`);
      const head = Buffer.alloc(8);
      readExactly(fd, head, 0, name);
      if (head.toString('ascii', 0, 4) !== MAGIC) throw new Error(`segment ${name}: not a Quarry lexical segment of this version (bad magic)`);
      const headerLen = head.readUInt32LE(4);
      if (8 + headerLen > size - 4) throw new Error(`segment ${name}: length mismatch`);
      const headerBytes = Buffer.alloc(headerLen);
      readExactly(fd, headerBytes, 8, name);
      const header = parseHeader(name, headerBytes);
      const layout = fileLayout(headerLen, header.counts);
      if (layout.end + 4 !== size) throw new Error(`segment ${name}: length mismatch`);
      const meta = Buffer.allocUnsafe(layout.docsAt);
      readExactly(fd, meta, 0, name);
      let crc = crc32(meta);
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, Math.max(1, layout.end - layout.docsAt)));
      for (let off = layout.docsAt; off < layout.end; ) {
        const n = Math.min(chunk.length, layout.end - off);
        readExactly(fd, chunk.subarray(0, n), off, name);
        crc = crc32(chunk.subarray(0, n), crc);
        off += n;
      }
      const stored = Buffer.alloc(4);
      readExactly(fd, stored, layout.end, name);
      if (crc !== stored.readUInt32LE(0)) throw new Error(`segment ${name}: checksum mismatch (file damaged or truncated)`);
      const seg = Segment.fromSections(name, header, meta, layout, false);
      file = new PostingsFile(fd, layout.docsAt, layout.tfsAt);
      seg.layout = { docsAt: layout.docsAt, tfsAt: layout.tfsAt };
      seg.useFile(file);
      return seg;
    } finally {
      if (!file) closeSync(fd);
    }
  }

  /** Opens a serialized segment, postings in memory. Sections are views into `buf` (no copies) when it is 4-byte aligned. */
  static deserialize(name: string, buf: Buffer): Segment {
    if (buf.length < 12 || buf.toString('ascii', 0, 4) !== MAGIC) throw new Error(`segment ${name}: not a Quarry lexical segment of this version (bad magic)`);
    const body = buf.subarray(0, buf.length - 4);
    if (crc32(body) !== buf.readUInt32LE(buf.length - 4)) throw new Error(`segment ${name}: checksum mismatch (file damaged or truncated)`);
    const headerLen = buf.readUInt32LE(4);
    if (8 + headerLen > body.length) throw new Error(`segment ${name}: length mismatch`);
    const header = parseHeader(name, buf.subarray(8, 8 + headerLen));
    const layout = fileLayout(headerLen, header.counts);
    if (layout.end !== body.length) throw new Error(`segment ${name}: length mismatch`);
    const seg = Segment.fromSections(name, header, buf, layout, true);
    seg.layout = { docsAt: layout.docsAt, tfsAt: layout.tfsAt };
    return seg;
  }

  /** A segment from a file's bytes (`buf` holds at least everything before the postings; with `postings`, all of them too). */
  private static fromSections(name: string, header: SegmentHeader, buf: Buffer, at: ReturnType<typeof fileLayout>, postings: boolean): Segment {
    const { docs, terms, postings: count, idBytes, termBytes } = header.counts;
    const arr = <T extends Uint32Array | Uint16Array>(Ctor: { new (b: ArrayBufferLike, o: number, n: number): T; new (n: number): T; BYTES_PER_ELEMENT: number }, off: number, n: number): T => {
      const b = buf.subarray(off, off + n * Ctor.BYTES_PER_ELEMENT);
      if (b.byteOffset % Ctor.BYTES_PER_ELEMENT === 0) return new Ctor(b.buffer, b.byteOffset, n);
      const out = new Ctor(n);
      Buffer.from(out.buffer).set(b);
      return out;
    };
    return new Segment(
      name, header.paths, arr(Uint32Array, at.docPathAt, docs),
      new StringTable(buf.subarray(at.idBlobAt, at.idBlobAt + idBytes), arr(Uint32Array, at.idOffsetsAt, docs + 1)),
      arr(Uint32Array, at.fieldLensAt, docs * FIELDS.length),
      new StringTable(buf.subarray(at.termBlobAt, at.termBlobAt + termBytes), arr(Uint32Array, at.termOffsetsAt, terms + 1)),
      arr(Uint32Array, at.termStartsAt, terms + 1),
      postings ? arr(Uint32Array, at.docsAt, count) : undefined,
      postings ? arr(Uint16Array, at.tfsAt, count) : undefined,
    );
  }
}

/** Marks where `fileStart` pads to a 4-byte boundary. */
const PAD = Symbol('pad');

const view = (b: Buffer | ArrayBufferView): Buffer => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** The file's magic, header and the sections before the postings (`PAD` where the layout aligns), padded as laid out. */
function fileStart(paths: string[], counts: SegmentHeader['counts'], sections: Array<Buffer | ArrayBufferView | typeof PAD>): Buffer[] {
  const header = Buffer.from(JSON.stringify({ v: 2, fields: FIELDS, paths, counts }), 'utf8');
  const parts: Buffer[] = [Buffer.from(MAGIC, 'ascii'), u32(header.length), header];
  let size = 8 + header.length;
  const pad = () => {
    const n = (4 - (size % 4)) % 4;
    if (n) {
      parts.push(Buffer.alloc(n));
      size += n;
    }
  };
  pad();
  for (const s of sections) {
    if (s === PAD) pad();
    else {
      const b = view(s);
      parts.push(b);
      size += b.length;
    }
  }
  return parts;
}

function parseHeader(name: string, bytes: Buffer): SegmentHeader {
  let header: SegmentHeader;
  try {
    header = JSON.parse(bytes.toString('utf8')) as SegmentHeader;
  } catch {
    throw new Error(`segment ${name}: header unreadable`);
  }
  if (header.v !== 2 || header.fields?.join(',') !== FIELDS.join(',') || !header.counts) throw new Error(`segment ${name}: unsupported version or field layout`);
  return header;
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
