/**
 * Quarry's own BM25 index, persisted under `.quarry/lexical/` as immutable segments plus a manifest
 * (the segment list and, per segment, the ordinals of deleted documents). LanceDB's FTS cannot take
 * the seed's formula, configurable k1/b or per-term explanations, so the lexical side lives here.
 *
 * Invariants:
 * - A commit writes a new segment file first, then replaces the manifest atomically (write + rename);
 *   a crash leaves either the old or the new manifest, never a half one. Unreferenced files are swept.
 * - Documents are replaced per path: `removePaths` then `add` (stable chunk ids can reappear, so
 *   deletions are tracked by (segment, ordinal), not by id).
 * - Segments merge into one when there are many of them or many deletions.
 */
import { promises as fs, readFileSync, existsSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { FIELDS, Field, LexicalDoc, Segment, termKey } from './segment';
import { Bm25Params, idf, tfWeight } from '../../retrieval/bm25';

const MANIFEST = 'manifest.json';
const MAX_SEGMENTS = 8;
const MAX_DELETED_RATIO = 0.3;

interface Manifest {
  version: 1;
  /** Which tokenization produced the terms; an index built by another one is rebuilt. */
  analyzer: string;
  generation: number;
  segments: Array<{ name: string; deleted: number[] }>;
}

export interface QueryTerm {
  field: Field;
  token: string;
  /** Field weight × occurrences in the query. */
  weight: number;
}

export interface TermMatch {
  field: Field;
  token: string;
  tf: number;
  df: number;
  idf: number;
  /** weight × idf × tf factor: this term's share of the score. */
  contribution: number;
}

export interface LexicalHit {
  id: string;
  path: string;
  score: number;
  matches: TermMatch[];
}

export class LexicalIndexCorruptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LexicalIndexCorruptError';
  }
}

class SegmentVanishedError extends LexicalIndexCorruptError {
  constructor(name: string) {
    super(`lexical segment ${name} is missing`);
  }
}

export class LexicalIndex {
  private segments: Segment[] = [];
  private generation = 0;
  private pending: LexicalDoc[] = [];
  private dirty = false;
  /** path → live (segment, ordinal) pairs. */
  private byPath = new Map<string, Array<[Segment, number]>>();
  private liveDocs = 0;
  private lenSums = new Float64Array(FIELDS.length);

  private constructor(
    private readonly dir: string,
    private readonly analyzer: string,
  ) {}

  /** Opens (or creates) the index in `dir`. Throws LexicalIndexCorruptError when files are damaged. */
  /**
   * Opens (or creates) the index in `dir`. `analyzer` names the tokenization of the documents (see
   * indexer/lexicalDoc.ts); an index written by another analyzer is reported as LexicalIndexCorruptError.
   */
  static open(dir: string, analyzer: string): LexicalIndex {
    try {
      mkdirSync(dir, { recursive: true });
    } catch {
      // A read-only or full disk: reading needs no folder (a missing one is an empty index); a commit reports the error.
    }
    const index = new LexicalIndex(dir, analyzer);
    // A writer in another process may replace the manifest and sweep old segments between our reading the
    // manifest and reading a segment: re-read the manifest a few times before calling the index damaged.
    for (let attempt = 0; ; attempt++) {
      try {
        index.load();
        return index;
      } catch (e) {
        if (attempt >= 3 || !(e instanceof SegmentVanishedError)) throw e;
      }
    }
  }

  private load(): void {
    const manifestPath = join(this.dir, MANIFEST);
    let manifest: Manifest = { version: 1, analyzer: this.analyzer, generation: 0, segments: [] };
    if (existsSync(manifestPath)) {
      try {
        manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
      } catch (e) {
        throw new LexicalIndexCorruptError(`lexical index manifest unreadable: ${(e as Error).message}`);
      }
      if (manifest.version !== 1 || !Array.isArray(manifest.segments)) throw new LexicalIndexCorruptError('lexical index manifest has an unknown version');
      if (manifest.analyzer !== this.analyzer) {
        throw new LexicalIndexCorruptError(`lexical index was built by tokenizer ${manifest.analyzer ?? 'unknown'}, this version uses ${this.analyzer}`);
      }
    }
    const segments: Segment[] = [];
    for (const entry of manifest.segments) {
      let seg: Segment;
      let bytes: Buffer;
      try {
        bytes = readFileSync(join(this.dir, entry.name));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new SegmentVanishedError(entry.name);
        throw new LexicalIndexCorruptError(`lexical segment ${entry.name}: ${(e as Error).message}`);
      }
      try {
        seg = Segment.deserialize(entry.name, bytes);
      } catch (e) {
        throw new LexicalIndexCorruptError(`lexical segment ${entry.name}: ${(e as Error).message}`);
      }
      for (const ord of entry.deleted) if (ord < seg.docCount) seg.deleted[ord] = 1;
      segments.push(seg);
    }
    this.segments = segments;
    this.generation = manifest.generation;
    this.rebuildDerived();
  }

  private rebuildDerived(): void {
    this.byPath.clear();
    this.liveDocs = 0;
    this.lenSums.fill(0);
    for (const seg of this.segments) {
      for (let d = 0; d < seg.docCount; d++) {
        if (seg.deleted[d]) continue;
        this.track(seg, d);
      }
    }
  }

  private track(seg: Segment, d: number): void {
    this.liveDocs++;
    for (let f = 0; f < FIELDS.length; f++) this.lenSums[f] += seg.fieldLength(d, f);
    const path = seg.docPath(d);
    let list = this.byPath.get(path);
    if (!list) this.byPath.set(path, (list = []));
    list.push([seg, d]);
  }

  /** Generation of the manifest this instance last loaded or committed (another process's commit raises the file's). */
  get committedGeneration(): number {
    return this.generation;
  }

  /** Live documents (committed; pending additions are not searchable until commit). */
  get documentCount(): number {
    return this.liveDocs;
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  /** Ids of the live documents of a path. */
  idsForPath(path: string): string[] {
    return (this.byPath.get(path) ?? []).map(([seg, d]) => seg.docId(d));
  }

  /** Every live document id (for consistency checks against the chunk store). */
  allIds(): string[] {
    const out: string[] = [];
    for (const seg of this.segments) for (let d = 0; d < seg.docCount; d++) if (!seg.deleted[d]) out.push(seg.docId(d));
    return out;
  }

  /** Marks every live document of these paths deleted (pending until commit). Returns how many. */
  removePaths(paths: Iterable<string>): number {
    let removed = 0;
    for (const path of paths) {
      const list = this.byPath.get(path);
      if (list) {
        for (const [seg, d] of list) {
          seg.deleted[d] = 1;
          this.liveDocs--;
          for (let f = 0; f < FIELDS.length; f++) this.lenSums[f] -= seg.fieldLength(d, f);
          removed++;
        }
        this.byPath.delete(path);
        this.dirty = true;
      }
      const before = this.pending.length;
      this.pending = this.pending.filter((p) => p.path !== path);
      if (this.pending.length !== before) this.dirty = true;
    }
    return removed;
  }

  add(docs: readonly LexicalDoc[]): void {
    if (!docs.length) return;
    this.pending.push(...docs);
    this.dirty = true;
  }

  /** Writes pending changes: a new segment (if any) and the manifest; merges when due. */
  async commit(): Promise<void> {
    if (!this.dirty) return;
    mkdirSync(this.dir, { recursive: true }); // (removed since open, or not creatable then: the error is reported here)
    const generation = this.generation + 1;
    const obsolete: string[] = [];
    let segments = this.segments;
    if (this.pending.length) {
      const seg = Segment.build(this.segmentName(generation), this.pending);
      await this.writeAtomic(seg.name, seg.serialize());
      segments = [...segments, seg];
      for (let d = 0; d < seg.docCount; d++) this.track(seg, d);
    }
    const toMerge = chooseMerge(segments);
    if (toMerge.length) {
      const merged = Segment.merge(toMerge, this.segmentName(generation, 'm'));
      if (merged) await this.writeAtomic(merged.name, merged.serialize());
      obsolete.push(...toMerge.map((s) => s.name));
      const mergedSet = new Set(toMerge);
      segments = [...segments.filter((s) => !mergedSet.has(s)), ...(merged ? [merged] : [])];
    }
    // Drop segments whose documents are all deleted.
    const kept: Segment[] = [];
    for (const s of segments) {
      if (s.deleted.every((x) => x === 1)) obsolete.push(s.name);
      else kept.push(s);
    }
    const manifest: Manifest = {
      version: 1,
      analyzer: this.analyzer,
      generation,
      segments: kept.map((s) => ({ name: s.name, deleted: deletedOrdinals(s) })),
    };
    await this.writeAtomic(MANIFEST, Buffer.from(JSON.stringify(manifest)));
    this.segments = kept;
    this.generation = generation;
    this.pending = [];
    this.dirty = false;
    if (obsolete.length) this.rebuildDerived();
    this.sweep();
  }

  /** Discards every document (used by a full rebuild); takes effect on commit. */
  clear(): void {
    for (const seg of this.segments) seg.deleted.fill(1);
    this.pending = [];
    this.byPath.clear();
    this.liveDocs = 0;
    this.lenSums.fill(0);
    this.dirty = true;
  }

  private segmentName(generation: number, suffix = ''): string {
    return `seg-${String(generation).padStart(8, '0')}${suffix}-${randomBytes(3).toString('hex')}.qlx`;
  }

  private async writeAtomic(name: string, data: Buffer): Promise<void> {
    const tmp = join(this.dir, `${name}.tmp-${process.pid}`);
    const fh = await fs.open(tmp, 'w');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, join(this.dir, name));
  }

  /** Removes files no longer referenced by the manifest (old segments, stale temp files). */
  private sweep(): void {
    const live = new Set(this.segments.map((s) => s.name));
    live.add(MANIFEST);
    for (const f of readdirSync(this.dir)) {
      if (live.has(f)) continue;
      if (f.endsWith('.qlx') || f.includes('.tmp-')) {
        try {
          unlinkSync(join(this.dir, f));
        } catch {
          /* another process may hold it; swept next time */
        }
      }
    }
  }

  /** Average field length over live documents. */
  averageLength(field: Field): number {
    return this.liveDocs ? this.lenSums[FIELDS.indexOf(field)] / this.liveDocs : 0;
  }

  /** Number of live documents containing a token in a field. */
  documentFrequency(field: Field, token: string): number {
    const key = termKey(field, token);
    let df = 0;
    for (const seg of this.segments) {
      const t = seg.findTerm(key);
      if (t < 0) continue;
      for (let p = seg.termStarts[t]; p < seg.termStarts[t + 1]; p++) if (!seg.deleted[seg.postDocs[p]]) df++;
    }
    return df;
  }

  /**
   * BM25 over the fields: score(D) = Σ_terms weight · IDF_field(t) · tfWeight(tf, |D|_field, avgdl_field).
   * Returns the best `limit` hits (optionally filtered by path) with per-term explanations.
   */
  search(terms: readonly QueryTerm[], limit: number, params: Bm25Params, accept?: (path: string) => boolean): { hits: LexicalHit[]; matched: number } {
    const N = this.liveDocs;
    if (!N || !terms.length) return { hits: [], matched: 0 };
    // Merge duplicate (field, token) pairs.
    const merged = new Map<string, QueryTerm>();
    for (const q of terms) {
      const k = termKey(q.field, q.token);
      const prev = merged.get(k);
      merged.set(k, prev ? { ...prev, weight: prev.weight + q.weight } : { ...q });
    }
    const scores = this.segments.map((s) => new Float64Array(s.docCount));
    const touched = this.segments.map(() => [] as number[]);
    const stats: Array<{ q: QueryTerm; idf: number; df: number; termIdx: number[] }> = [];
    for (const [key, q] of merged) {
      if (q.weight <= 0) continue;
      const termIdx = this.segments.map((s) => s.findTerm(key));
      let df = 0;
      this.segments.forEach((seg, si) => {
        const t = termIdx[si];
        if (t < 0) return;
        for (let p = seg.termStarts[t]; p < seg.termStarts[t + 1]; p++) if (!seg.deleted[seg.postDocs[p]]) df++;
      });
      if (!df) continue;
      const termIdf = idf(N, df);
      const fi = FIELDS.indexOf(q.field);
      const avg = this.lenSums[fi] / N;
      this.segments.forEach((seg, si) => {
        const t = termIdx[si];
        if (t < 0) return;
        const sc = scores[si];
        for (let p = seg.termStarts[t]; p < seg.termStarts[t + 1]; p++) {
          const d = seg.postDocs[p];
          if (seg.deleted[d]) continue;
          if (sc[d] === 0) touched[si].push(d);
          sc[d] += q.weight * termIdf * tfWeight(seg.postTfs[p], seg.fieldLength(d, fi), avg, params);
        }
      });
      stats.push({ q, idf: termIdf, df, termIdx });
    }
    const candidates: Array<{ si: number; d: number; score: number }> = [];
    this.segments.forEach((seg, si) => {
      for (const d of touched[si]) {
        if (accept && !accept(seg.docPath(d))) continue;
        candidates.push({ si, d, score: scores[si][d] });
      }
    });
    candidates.sort((a, b) => b.score - a.score || (this.segments[a.si].docId(a.d) < this.segments[b.si].docId(b.d) ? -1 : 1));
    const hits = candidates.slice(0, limit).map(({ si, d, score }) => {
      const seg = this.segments[si];
      const matches: TermMatch[] = [];
      for (const s of stats) {
        const t = s.termIdx[si];
        if (t < 0) continue;
        const tf = seg.tfOf(t, d);
        if (!tf) continue;
        const fi = FIELDS.indexOf(s.q.field);
        const contribution = s.q.weight * s.idf * tfWeight(tf, seg.fieldLength(d, fi), this.lenSums[fi] / N, params);
        matches.push({ field: s.q.field, token: s.q.token, tf, df: s.df, idf: s.idf, contribution });
      }
      matches.sort((a, b) => b.contribution - a.contribution);
      return { id: seg.docId(d), path: seg.docPath(d), score, matches };
    });
    return { hits, matched: candidates.length };
  }
}

/**
 * Tiered merge policy: segments with many deletions are always rewritten; when there are more than
 * MAX_SEGMENTS, the smallest ones merge until half that many remain. Large segments are left alone, so
 * the cost of a commit stays proportional to the small, recent segments.
 */
function chooseMerge(segments: Segment[]): Segment[] {
  const live = (s: Segment) => s.docCount - s.deleted.reduce((n, x) => n + x, 0);
  const pick = segments.filter((s) => s.docCount > 0 && (s.docCount - live(s)) / s.docCount > MAX_DELETED_RATIO);
  if (segments.length > MAX_SEGMENTS) {
    const rest = segments.filter((s) => !pick.includes(s)).sort((a, b) => live(a) - live(b));
    // After the merge, segments.length - pick.length + 1 segments remain.
    for (const s of rest) {
      if (pick.length >= 2 && segments.length - pick.length + 1 <= MAX_SEGMENTS / 2) break;
      pick.push(s);
    }
  }
  return pick;
}

function deletedOrdinals(seg: Segment): number[] {
  const out: number[] = [];
  for (let d = 0; d < seg.docCount; d++) if (seg.deleted[d]) out.push(d);
  return out;
}
