/**
 * An immutable lexical segment: a batch of documents with their per-field lengths and an inverted
 * index (sorted term dictionary → postings of (doc ordinal, term frequency)), and its on-disk format.
 *
 * File layout (little-endian):
 *   "QLX1" | u32 headerBytes | header JSON (docIds, docPaths, terms, counts) | pad to 4
 *   | u32[docCount × FIELDS] field lengths | u32[termCount + 1] term starts | u32[postings] doc ordinals
 *   | u32[postings] term frequencies | u32 crc-like checksum of everything before it
 *
 * A term key is `<field code>:<token>` (`n:validate`, `b:user`), so one dictionary holds every field.
 */
import { createHash } from 'node:crypto';

export const FIELDS = ['name', 'symbols', 'ident', 'body', 'path'] as const;
export type Field = (typeof FIELDS)[number];
export const FIELD_CODE: Record<Field, string> = { name: 'n', symbols: 's', ident: 'i', body: 'b', path: 'p' };
export const CODE_FIELD: Record<string, Field> = { n: 'name', s: 'symbols', i: 'ident', b: 'body', p: 'path' };

export function termKey(field: Field, token: string): string {
  return `${FIELD_CODE[field]}:${token}`;
}

/** A document as the indexer hands it over: tokens per field (with repeats). */
export interface LexicalDoc {
  id: string;
  path: string;
  fields: Record<Field, string[]>;
}

export class Segment {
  /** Set by the index: 1 where a document has been deleted since the segment was written. */
  readonly deleted: Uint8Array;

  constructor(
    readonly name: string,
    readonly docIds: string[],
    readonly docPaths: string[],
    /** docCount × FIELDS.length token counts. */
    readonly fieldLens: Uint32Array,
    /** Sorted term keys. */
    readonly terms: string[],
    /** Postings of term t are [termStarts[t], termStarts[t+1]). */
    readonly termStarts: Uint32Array,
    readonly postDocs: Uint32Array,
    readonly postTfs: Uint32Array,
  ) {
    this.deleted = new Uint8Array(docIds.length);
  }

  get docCount(): number {
    return this.docIds.length;
  }

  fieldLength(doc: number, fieldIndex: number): number {
    return this.fieldLens[doc * FIELDS.length + fieldIndex];
  }

  /** Index of a term key in the dictionary, or -1 (binary search; dictionary sorted by UTF-16 code units). */
  findTerm(key: string): number {
    let lo = 0;
    let hi = this.terms.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.terms[mid];
      if (t === key) return mid;
      if (t < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
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
  static fromPostingMap(name: string, ids: string[], paths: string[], fieldLens: Uint32Array, postings: Map<string, number[]>): Segment {
    const terms = [...postings.keys()].sort();
    let total = 0;
    for (const list of postings.values()) total += list.length / 2;
    const termStarts = new Uint32Array(terms.length + 1);
    const postDocs = new Uint32Array(total);
    const postTfs = new Uint32Array(total);
    let at = 0;
    terms.forEach((t, i) => {
      termStarts[i] = at;
      const list = postings.get(t)!;
      for (let j = 0; j < list.length; j += 2) {
        postDocs[at] = list[j];
        postTfs[at] = list[j + 1];
        at++;
      }
    });
    termStarts[terms.length] = at;
    return new Segment(name, ids, paths, fieldLens, terms, termStarts, postDocs, postTfs);
  }

  serialize(): Buffer {
    const header = Buffer.from(
      JSON.stringify({ v: 1, fields: FIELDS, docIds: this.docIds, docPaths: this.docPaths, terms: this.terms }),
      'utf8',
    );
    const headPad = (4 - ((8 + header.length) % 4)) % 4;
    const arrays = [this.fieldLens, this.termStarts, this.postDocs, this.postTfs];
    const body = Buffer.concat([
      Buffer.from('QLX1', 'ascii'),
      u32(header.length),
      header,
      Buffer.alloc(headPad),
      ...arrays.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)),
    ]);
    const digest = createHash('sha1').update(body).digest().subarray(0, 4);
    return Buffer.concat([body, digest]);
  }

  static deserialize(name: string, buf: Buffer): Segment {
    if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'QLX1') throw new Error(`segment ${name}: not a Quarry lexical segment (bad magic)`);
    const body = buf.subarray(0, buf.length - 4);
    const digest = createHash('sha1').update(body).digest().subarray(0, 4);
    if (!digest.equals(buf.subarray(buf.length - 4))) throw new Error(`segment ${name}: checksum mismatch (file damaged or truncated)`);
    const headerLen = buf.readUInt32LE(4);
    const header = JSON.parse(buf.toString('utf8', 8, 8 + headerLen)) as {
      v: number; fields: string[]; docIds: string[]; docPaths: string[]; terms: string[];
    };
    if (header.v !== 1 || header.fields.join(',') !== FIELDS.join(',')) throw new Error(`segment ${name}: unsupported version or field layout`);
    let off = 8 + headerLen;
    off += (4 - (off % 4)) % 4;
    const take = (n: number): Uint32Array => {
      const bytes = n * 4;
      // Copy into an aligned buffer (Buffers from the pool may not be 4-byte aligned).
      const out = new Uint32Array(n);
      Buffer.from(out.buffer).set(buf.subarray(off, off + bytes));
      off += bytes;
      return out;
    };
    const docCount = header.docIds.length;
    const fieldLens = take(docCount * FIELDS.length);
    const termStarts = take(header.terms.length + 1);
    const total = termStarts[header.terms.length];
    const postDocs = take(total);
    const postTfs = take(total);
    if (off !== body.length) throw new Error(`segment ${name}: length mismatch`);
    return new Segment(name, header.docIds, header.docPaths, fieldLens, header.terms, termStarts, postDocs, postTfs);
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}
