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
 * - Segments merge into one when there are many of them or many deletions — except segments of interim
 *   documents (ids starting with `~`: a large first index's quick keyword windows, indexer/quickPass.ts), which are
 *   replaced path by path as the real documents arrive: such a segment is never rewritten or merged, and goes when
 *   its last document is deleted. (Merged at 30% deleted, the Go tree's 38k windows were copied through seven merges,
 *   into real segments too, before the last was replaced.)
 */
import { promises as fs, readFileSync, existsSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { advance, FIELDS, Field, LexicalDoc, Segment, SegmentBuilder, termKey, WINDOW, WINDOW_SHIFT } from './segment';
import { Bm25Params, idf, tfWeight } from '../../retrieval/bm25';

const MANIFEST = 'manifest.json';
const MAX_SEGMENTS = 8;
const MAX_DELETED_RATIO = 0.3;
/**
 * Segment files of this size or smaller keep their postings in memory; larger ones are read per term from their files
 * (segment.ts). 1 MiB: a small workspace's whole index, and a large one's newest segments, search without a read.
 */
export const POSTINGS_IN_MEMORY_BELOW = 1 << 20;

export interface LexicalIndexOptions {
  /** Segment files up to this many bytes keep their postings in memory (default POSTINGS_IN_MEMORY_BELOW; 0: none). */
  postingsInMemoryBelow?: number;
}

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
  /** Documents added since the last commit, already turned into postings (their token lists are not kept). */
  private pending: SegmentBuilder | undefined;
  private dirty = false;
  private liveDocs = 0;
  private lenSums = new Float64Array(FIELDS.length);
  /** The segments were dropped from memory by `release` (read again on the next use). */
  private released = false;

  private constructor(
    private readonly dir: string,
    private readonly analyzer: string,
    private readonly inMemoryBelow: number,
  ) {}

  /**
   * Opens (or creates) the index in `dir`. `analyzer` names the tokenization of the documents (see
   * indexer/lexicalDoc.ts); an index written by another analyzer is reported as LexicalIndexCorruptError.
   */
  static open(dir: string, analyzer: string, options: LexicalIndexOptions = {}): LexicalIndex {
    try {
      mkdirSync(dir, { recursive: true });
    } catch {
      // A read-only or full disk: reading needs no folder (a missing one is an empty index); a commit reports the error.
    }
    const index = new LexicalIndex(dir, analyzer, options.postingsInMemoryBelow ?? POSTINGS_IN_MEMORY_BELOW);
    index.loadSettled();
    return index;
  }

  /**
   * Loads the manifest and its segments. A writer in another process may replace the manifest and sweep old segments
   * between our reading the manifest and reading a segment: the manifest is read again a few times before the index
   * is called damaged.
   */
  private loadSettled(): void {
    for (let attempt = 0; ; attempt++) {
      try {
        this.load();
        return;
      } catch (e) {
        if (attempt >= 3 || !(e instanceof SegmentVanishedError)) throw e;
      }
    }
  }

  /**
   * Drops the committed segments from memory; the next use of the index reads them again from disk. For a one-shot
   * `quarry index` once its lexical phase is committed (issue 21): on the Go tree the segments were 130 MB of array
   * buffers held through the dense and git phases, which never read them, beside the vector index's build (LanceDB
   * holds the vectors twice while it builds it) — the run's highest memory. Does nothing while changes are pending.
   */
  release(): void {
    if (this.dirty || this.pending || this.released) return;
    for (const seg of this.segments) seg.close();
    this.segments = [];
    this.liveDocs = 0;
    this.lenSums.fill(0);
    this.released = true;
  }

  /**
   * Closes the segment files held open for their postings and drops uncommitted changes. The index reads the
   * committed segments again if used afterwards (as after `release`).
   */
  close(): void {
    for (const seg of this.segments) seg.close();
    this.pending = undefined;
    this.dirty = false;
    this.segments = [];
    this.liveDocs = 0;
    this.lenSums.fill(0);
    this.released = true;
  }

  /** Whether the segments were released and not read again yet. */
  get isReleased(): boolean {
    return this.released;
  }

  /** Reads the segments again after `release`. */
  private loaded(): void {
    if (!this.released) return;
    this.loadSettled();
    this.released = false;
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
    try {
      for (const entry of manifest.segments) {
        let seg: Segment;
        try {
          seg = Segment.open(entry.name, join(this.dir, entry.name), this.inMemoryBelow);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new SegmentVanishedError(entry.name);
          throw new LexicalIndexCorruptError(`lexical segment ${entry.name}: ${(e as Error).message}`);
        }
        segments.push(seg);
        for (const ord of entry.deleted) if (ord < seg.docCount) seg.markDeleted(ord);
      }
    } catch (e) {
      for (const seg of segments) seg.close();
      throw e;
    }
    for (const seg of this.segments) seg.close();
    this.segments = segments;
    this.generation = manifest.generation;
    this.rebuildDerived();
  }

  /** The live document count and field length sums, from the segments (a path's documents: `Segment.docsOfPath`). */
  private rebuildDerived(): void {
    this.liveDocs = 0;
    this.lenSums.fill(0);
    for (const seg of this.segments) this.track(seg);
  }

  /** Adds a segment's live documents to the count and the field length sums. */
  private track(seg: Segment): void {
    const nf = FIELDS.length;
    const lens = seg.fieldLengths;
    for (let d = 0; d < seg.docCount; d++) {
      if (seg.deleted[d]) continue;
      this.liveDocs++;
      for (let f = 0; f < nf; f++) this.lenSums[f] += lens[d * nf + f];
    }
  }

  /** Generation of the manifest this instance last loaded or committed (another process's commit raises the file's). */
  get committedGeneration(): number {
    return this.generation;
  }

  /** Live documents (committed; pending additions are not searchable until commit). */
  get documentCount(): number {
    this.loaded();
    return this.liveDocs;
  }

  get segmentCount(): number {
    this.loaded();
    return this.segments.length;
  }

  /** Ids of the live documents of a path. */
  idsForPath(path: string): string[] {
    this.loaded();
    const out: string[] = [];
    for (const seg of this.segments) for (const d of seg.docsOfPath(path)) if (!seg.deleted[d]) out.push(seg.docId(d));
    return out;
  }

  /** Every live document id (for consistency checks against the chunk store). */
  allIds(): string[] {
    this.loaded();
    const out: string[] = [];
    for (const seg of this.segments) for (let d = 0; d < seg.docCount; d++) if (!seg.deleted[d]) out.push(seg.docId(d));
    return out;
  }

  /** Marks every live document of these paths deleted (pending until commit). Returns how many. */
  removePaths(paths: Iterable<string>, options: { pending?: boolean } = {}): number {
    this.loaded();
    let removed = 0;
    for (const path of paths) {
      for (const seg of this.segments) {
        for (const d of seg.docsOfPath(path)) {
          if (seg.deleted[d]) continue;
          seg.markDeleted(d);
          this.liveDocs--;
          for (let f = 0; f < FIELDS.length; f++) this.lenSums[f] -= seg.fieldLength(d, f);
          removed++;
          this.dirty = true;
        }
      }
      // the documents added since the last commit too, unless told (`pending: false`: they are the paths' new ones)
      if (options.pending !== false && this.pending?.removePath(path)) this.dirty = true;
    }
    return removed;
  }

  add(docs: readonly LexicalDoc[]): void {
    if (!docs.length) return;
    this.loaded();
    this.pending ??= new SegmentBuilder();
    for (const doc of docs) this.pending.add(doc);
    this.dirty = true;
  }

  /** Drops the documents added since the last commit (a batch that failed before its commit). */
  discardPending(): void {
    this.pending = undefined;
  }

  /** Writes pending changes: a new segment (if any) and the manifest; merges when due. */
  async commit(): Promise<void> {
    if (!this.dirty) return;
    mkdirSync(this.dir, { recursive: true }); // (removed since open, or not creatable then: the error is reported here)
    const generation = this.generation + 1;
    const obsolete: string[] = [];
    let segments = this.segments;
    const obsoleteSegments: Segment[] = [];
    if (this.pending?.docCount) {
      const seg = this.pending.build(this.segmentName(generation));
      const bytes = await this.writeAtomic(seg.name, (fh) => seg.write(fh));
      // a large segment's postings are read from its file from now on (segment.ts)
      if (bytes > this.inMemoryBelow) seg.attachFile(join(this.dir, seg.name));
      segments = [...segments, seg];
      this.track(seg);
    }
    const toMerge = chooseMerge(segments);
    if (toMerge.length) {
      let merged: Segment | undefined;
      if (Segment.liveTotal(toMerge)) {
        const name = this.segmentName(generation, 'm');
        let out: Segment | undefined;
        const bytes = await this.writeAtomic(name, async (fh) => {
          out = await Segment.mergeInto(toMerge, name, fh);
          return (await fh.stat()).size;
        });
        // (a small one is read back whole: its postings are kept in memory)
        if (bytes > this.inMemoryBelow) (merged = out!).attachFile(join(this.dir, name));
        else merged = Segment.open(name, join(this.dir, name), this.inMemoryBelow);
      }
      obsolete.push(...toMerge.map((s) => s.name));
      obsoleteSegments.push(...toMerge);
      const mergedSet = new Set(toMerge);
      segments = [...segments.filter((s) => !mergedSet.has(s)), ...(merged ? [merged] : [])];
    }
    // Drop segments whose documents are all deleted.
    const kept: Segment[] = [];
    for (const s of segments) {
      if (s.deleted.every((x) => x === 1)) {
        obsolete.push(s.name);
        obsoleteSegments.push(s);
      } else kept.push(s);
    }
    const manifest: Manifest = {
      version: 1,
      analyzer: this.analyzer,
      generation,
      segments: kept.map((s) => ({ name: s.name, deleted: deletedOrdinals(s) })),
    };
    const manifestBytes = Buffer.from(JSON.stringify(manifest));
    await this.writeAtomic(MANIFEST, (fh) => fh.writeFile(manifestBytes));
    this.segments = kept;
    this.generation = generation;
    this.pending = undefined;
    this.dirty = false;
    if (obsolete.length) this.rebuildDerived();
    for (const seg of obsoleteSegments) seg.close();
    this.sweep();
  }

  /** Discards every document (used by a full rebuild); takes effect on commit. */
  clear(): void {
    this.loaded();
    for (const seg of this.segments) seg.markAllDeleted();
    this.pending = undefined;
    this.liveDocs = 0;
    this.lenSums.fill(0);
    this.dirty = true;
  }

  private segmentName(generation: number, suffix = ''): string {
    return `seg-${String(generation).padStart(8, '0')}${suffix}-${randomBytes(3).toString('hex')}.qlx`;
  }

  /** Writes a file by `write` into a temporary file, fsyncs it and renames it into place; returns what `write` did. */
  private async writeAtomic<T>(name: string, write: (fh: FileHandle) => Promise<T>): Promise<T> {
    const tmp = join(this.dir, `${name}.tmp-${process.pid}`);
    const fh = await fs.open(tmp, 'w');
    let out: T;
    try {
      out = await write(fh);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, join(this.dir, name));
    return out;
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
    this.loaded();
    return this.liveDocs ? this.lenSums[FIELDS.indexOf(field)] / this.liveDocs : 0;
  }

  /** Number of live documents containing a token in a field. */
  documentFrequency(field: Field, token: string): number {
    this.loaded();
    const key = termKey(field, token);
    let df = 0;
    for (const seg of this.segments) {
      const t = seg.findTerm(key);
      if (t >= 0) df += seg.liveDf(t);
    }
    return df;
  }

  /**
   * Occurrences of a token in a field over live documents (the sum of its term frequencies), counted up to `cap`:
   * the answer is exact below `cap` and `cap` at or above it, so a common token costs at most `cap` postings.
   */
  termOccurrences(field: Field, token: string, cap = Number.POSITIVE_INFINITY): number {
    this.loaded();
    const key = termKey(field, token);
    let n = 0;
    for (const seg of this.segments) {
      const t = seg.findTerm(key);
      if (t < 0) continue;
      const { docs, tfs } = seg.postings(t);
      for (let p = 0; p < docs.length; p++) {
        if (seg.deleted[docs[p]]) continue;
        n += tfs[p];
        if (n >= cap) return cap;
      }
    }
    return n;
  }

  /**
   * The query's distinct (field, token) terms that some live document contains, in the order of their first
   * occurrence (the order scores are summed in), with their weights summed, document frequency, IDF and term
   * index per segment (-1 where absent).
   */
  private termStats(terms: readonly QueryTerm[]): TermStat[] {
    const merged = new Map<string, QueryTerm>();
    for (const q of terms) {
      const k = termKey(q.field, q.token);
      const prev = merged.get(k);
      merged.set(k, prev ? { ...prev, weight: prev.weight + q.weight } : { ...q });
    }
    const N = this.liveDocs;
    const stats: TermStat[] = [];
    for (const [key, q] of merged) {
      if (q.weight <= 0) continue;
      const termIdx = this.segments.map((s) => s.findTerm(key));
      let df = 0;
      this.segments.forEach((seg, si) => {
        if (termIdx[si] >= 0) df += seg.liveDf(termIdx[si]);
      });
      if (!df) continue;
      const fi = FIELDS.indexOf(q.field);
      stats.push({ q, idf: idf(N, df), df, termIdx, fi, avg: this.lenSums[fi] / N });
    }
    return stats;
  }

  /**
   * The hits with their per-term explanations, computed the way scores are (the same products). Term frequencies
   * are read with one forward pass per segment and term over the hits in document order.
   */
  private explain(stats: readonly TermStat[], best: ReadonlyArray<{ si: number; d: number; score: number }>, params: Bm25Params): LexicalHit[] {
    const tfs = best.map(() => new Uint32Array(stats.length));
    const bySegment = new Map<number, number[]>();
    best.forEach((h, i) => {
      const list = bySegment.get(h.si);
      if (list) list.push(i);
      else bySegment.set(h.si, [i]);
    });
    for (const [si, hits] of bySegment) {
      const seg = this.segments[si];
      hits.sort((a, b) => best[a].d - best[b].d);
      stats.forEach((s, j) => {
        const t = s.termIdx[si];
        if (t < 0) return;
        const post = seg.postings(t);
        const end = post.docs.length;
        let p = 0;
        for (const h of hits) {
          p = advance(post.docs, p, end, best[h].d);
          if (p >= end) break;
          if (post.docs[p] === best[h].d) tfs[h][j] = post.tfs[p];
        }
      });
    }
    return best.map(({ si, d, score }, h) => {
      const seg = this.segments[si];
      const matches: TermMatch[] = [];
      stats.forEach((s, j) => {
        const tf = tfs[h][j];
        if (!tf) return;
        const contribution = s.q.weight * s.idf * tfWeight(tf, seg.fieldLength(d, s.fi), s.avg, params);
        matches.push({ field: s.q.field, token: s.q.token, tf, df: s.df, idf: s.idf, contribution });
      });
      matches.sort((a, b) => b.contribution - a.contribution);
      return { id: seg.docId(d), path: seg.docPath(d), score, matches };
    });
  }

  /**
   * BM25 over the fields: score(D) = Σ_terms weight · IDF_field(t) · tfWeight(tf, |D|_field, avgdl_field).
   * Returns the best `limit` hits (optionally filtered by path), ordered by score then id, with per-term
   * explanations: exactly the hits, scores and explanations of `searchExhaustive`.
   *
   * MaxScore (Turtle & Flood 1995) with block-max bounds, document at a time within each segment, one top k
   * across segments. Each term's score is bounded by weight · IDF · its largest tf factor, in the segment and in
   * each window of WINDOW documents (see `Segment.windowBounds`). With the terms sorted by their segment bound,
   * those whose bounds together stay under the k-th best score so far cannot bring a document into the top k
   * alone: they are "non-essential", and only documents holding an essential term are visited. Window by window,
   * the window's bounds skip it whole or leave fewer terms essential there; a non-essential term is looked up in
   * a visited document only while the bounds can still lift it into the top k. A document is set aside only when
   * its bound is below the k-th score by a relative margin (1e-9) far above floating-point error, so ties and
   * near-ties are always scored in full, and every score that enters the top k is summed over the terms in the
   * query's order, as the reference does.
   *
   * `matched` counts the live, accepted documents that contain any query term. It is exact when the pass never
   * pruned (e.g. when at most `limit` documents match) and in segments no larger than COUNT_SAMPLE (segment.ts).
   * Otherwise, once pruning starts in a segment, the filter is asked only about documents that may enter the
   * top k, and the count is estimated from a fixed sample of the segment's documents: the visited documents
   * (counted exactly) times the share of visited sample documents the filter accepts, plus the unvisited matches
   * of the sample scaled to the segment. Its cost does not grow with the index; the benchmark reports its error.
   */
  search(terms: readonly QueryTerm[], limit: number, params: Bm25Params, accept?: (path: string) => boolean): { hits: LexicalHit[]; matched: number } {
    this.loaded();
    const N = this.liveDocs;
    if (!N || !terms.length) return { hits: [], matched: 0 };
    if (!(limit >= 1)) return this.searchExhaustive(terms, limit, params, accept);
    const stats = this.termStats(terms);
    if (!stats.length) return { hits: [], matched: 0 };
    const top = new TopK(Math.floor(limit), this.segments);
    let matched = 0;
    for (let si = 0; si < this.segments.length; si++) matched += this.searchSegment(si, stats, top, params, accept);
    const best = top.sorted();
    matched = Math.min(N, Math.max(matched, best.length));
    return { hits: this.explain(stats, best, params), matched };
  }

  /** MaxScore over one segment (see `search`): offers its documents to `top`, returns its (estimated) match count. */
  private searchSegment(si: number, stats: readonly TermStat[], top: TopK, params: Bm25Params, accept?: (path: string) => boolean): number {
    const seg = this.segments[si];
    const js: number[] = [];
    for (let j = 0; j < stats.length; j++) if (stats[j].termIdx[si] >= 0 && seg.liveDf(stats[j].termIdx[si]) > 0) js.push(j);
    const n = js.length;
    if (!n) return 0;
    const wb = js.map((j) => seg.windowBounds(stats[j].termIdx[si], stats[j].fi, stats[j].avg, params));
    const bounds = js.map((j, i) => stats[j].q.weight * stats[j].idf * wb[i].max);
    // Per term, by ascending bound (position `pos`): bound prefix sums, cursor, its document, end, field, weight · IDF,
    // avgdl, term index, window bounds and a cursor in them.
    const order = js.map((_, i) => i).sort((a, b) => bounds[a] - bounds[b] || a - b);
    const pre = new Float64Array(n);
    const cur = new Int32Array(n);
    const curDoc = new Uint32Array(n);
    const end = new Int32Array(n);
    const field = new Int32Array(n);
    const wIdf = new Float64Array(n);
    const avg = new Float64Array(n);
    const termOf = new Int32Array(n);
    const windowsOf: Uint32Array[] = [];
    const windowBoundsOf: Float64Array[] = [];
    const wcur = new Int32Array(n);
    /** Sorted position of the i-th present term in query order. */
    const posOf = new Int32Array(n);
    /** Per position: the term's postings (in memory, or read from the segment's file for this search). */
    const docsOf: Uint32Array[] = [];
    const tfsOf: Uint16Array[] = [];
    const { deleted } = seg;
    order.forEach((i, pos) => {
      const s = stats[js[i]];
      const t = s.termIdx[si];
      const post = seg.postings(t);
      docsOf.push(post.docs);
      tfsOf.push(post.tfs);
      pre[pos] = (pos ? pre[pos - 1] : 0) + bounds[i];
      cur[pos] = 0;
      curDoc[pos] = post.docs.length ? post.docs[0] : NO_DOC;
      end[pos] = post.docs.length;
      field[pos] = s.fi;
      wIdf[pos] = s.q.weight * s.idf;
      avg[pos] = s.avg;
      termOf[pos] = t;
      windowsOf.push(wb[i].windows);
      windowBoundsOf.push(wb[i].bounds);
      posOf[i] = pos;
    });
    const nf = FIELDS.length;
    const lens = seg.fieldLengths;
    const acceptPath = accept ? new Int8Array(seg.pathCount) : undefined; // 0 unknown, 1 yes, 2 no
    const accepted = (d: number): boolean => {
      if (!acceptPath || !accept) return true;
      const p = seg.docPathIndex(d);
      if (!acceptPath[p]) acceptPath[p] = accept(seg.pathAt(p)) ? 1 : 2;
      return acceptPath[p] === 1;
    };

    let threshold = top.threshold * PRUNE_MARGIN;
    let e = 0; // terms at positions [0, e) are non-essential in the whole segment
    while (e < n && pre[e] < threshold) e++;
    // Which documents were visited, for the match count: from document visitFrom[k] on, those holding a term at
    // positions [visitAt[k], n) (until the next entry).
    const visitFrom = [0];
    const visitAt = [e];
    // Until the pass prunes, every match is visited and counted exactly (the filter asked about each); from
    // `lazyFrom` on, the filter is asked only about documents that may enter the top k, and the count estimated.
    let lazyFrom = e > 0 ? 0 : NO_DOC;
    const visitedFrom = (d: number, at: number) => {
      if (at > 0 && lazyFrom === NO_DOC) lazyFrom = d;
      if (visitAt[visitAt.length - 1] === at) return;
      if (visitFrom[visitFrom.length - 1] === d) visitAt[visitAt.length - 1] = at;
      else {
        visitFrom.push(d);
        visitAt.push(at);
      }
    };
    let visitedAccepted = 0;
    let visitedLazily = 0;
    let lazyAsked = 0;
    let lazyAccepted = 0;
    const scratch = windowScratch(n);
    const { partial, state, docStamp, contrib, termStamp, windowPre } = scratch;
    const touched = scratch.touched;
    // Window by window (WINDOW documents, aligned): from the terms' bounds in the window, skip it whole or split
    // its terms into essential and not; accumulate the essential terms' postings in it term at a time, then
    // complete each document they touched (non-essential terms) or set it aside, in document order.
    for (;;) {
      let first = NO_DOC;
      for (let i = e; i < n; i++) if (curDoc[i] < first) first = curDoc[i];
      if (first === NO_DOC) break;
      const w = first >>> WINDOW_SHIFT;
      const lo = w << WINDOW_SHIFT;
      const hi = lo + WINDOW;
      let sumBound = 0;
      for (let i = 0; i < n; i++) {
        const ws = windowsOf[i];
        let c = wcur[i];
        while (c < ws.length && ws[c] < w) c++;
        wcur[i] = c;
        if (c < ws.length && ws[c] === w) sumBound += wIdf[i] * windowBoundsOf[i][c];
        windowPre[i] = sumBound;
      }
      let ew = e;
      while (ew < n && windowPre[ew] < threshold) ew++;
      if (ew < n) {
        visitedFrom(lo, ew);
        const lazy = lo >= lazyFrom;
        const win = ++scratch.stamp;
        let count = 0;
        for (let i = ew; i < n; i++) {
          let p = cur[i];
          const pe = end[i];
          const postDocs = docsOf[i];
          const postTfs = tfsOf[i];
          for (; p < pe; p++) {
            const d = postDocs[p];
            if (d >= hi) break;
            const x = d - lo;
            if (docStamp[x] !== win) {
              docStamp[x] = win;
              touched[count++] = x;
              partial[x] = 0;
              state[x] = deleted[d] || (!lazy && !accepted(d)) ? 0 : 1;
            }
            if (!state[x]) continue;
            const c = wIdf[i] * tfWeight(postTfs[p], lens[d * nf + field[i]], avg[i], params);
            contrib[x * n + i] = c;
            termStamp[x * n + i] = win;
            partial[x] += c;
          }
          cur[i] = p;
          curDoc[i] = p < pe ? postDocs[p] : NO_DOC;
        }
        // In document order: a crowded window is read off its stamps, a sparse one sorted.
        if (count > WINDOW / 16) {
          count = 0;
          for (let x = 0; x < WINDOW; x++) if (docStamp[x] === win) touched[count++] = x;
        } else touched.subarray(0, count).sort();
        for (let k = 0; k < count; k++) {
          const x = touched[k];
          if (!state[x]) continue;
          if (lazy) visitedLazily++;
          else visitedAccepted++;
          const d = lo + x;
          let sum = partial[x];
          let cut = false;
          for (let i = ew - 1; i >= 0; i--) {
            if (sum + windowPre[i] < threshold) {
              cut = true;
              break;
            }
            if (curDoc[i] < d) {
              const p = advance(docsOf[i], cur[i], end[i], d);
              cur[i] = p;
              curDoc[i] = p < end[i] ? docsOf[i][p] : NO_DOC;
            }
            if (curDoc[i] !== d) continue;
            const c = wIdf[i] * tfWeight(tfsOf[i][cur[i]], lens[d * nf + field[i]], avg[i], params);
            contrib[x * n + i] = c;
            termStamp[x * n + i] = win;
            sum += c;
          }
          if (cut) continue;
          if (lazy) {
            lazyAsked++;
            if (!accepted(d)) continue;
            lazyAccepted++;
          }
          // The score as the reference sums it: term by term in query order.
          let score = 0;
          for (let q = 0; q < n; q++) {
            const at = x * n + posOf[q];
            if (termStamp[at] === win) score += contrib[at];
          }
          if (top.offer(score, si, d)) {
            const next = top.threshold * PRUNE_MARGIN;
            if (next > threshold) {
              threshold = next;
              while (e < n && pre[e] < threshold) e++;
            }
          }
        }
      } else visitedFrom(lo, n); // no document of the window can reach the top k
      // Past the window: the terms not read through in it (essential in the segment, not in the window).
      for (let i = e; i < n; i++) {
        if (curDoc[i] < hi) {
          const p = advance(docsOf[i], cur[i], end[i], hi);
          cur[i] = p;
          curDoc[i] = p < end[i] ? docsOf[i][p] : NO_DOC;
        }
      }
      visitedFrom(hi, e);
    }
    if (lazyFrom === NO_DOC) return visitedAccepted;
    const est = this.estimateUnvisited(seg, termOf, visitFrom, visitAt, lazyFrom, accepted);
    // The share of lazily visited documents the filter accepts: from the sample, else from the documents asked.
    const share = est.visitedSampled ? est.visitedAccepted / est.visitedSampled : lazyAsked ? lazyAccepted / lazyAsked : 1;
    return visitedAccepted + Math.round(visitedLazily * share) + est.unvisited;
  }

  /**
   * What a pruned pass over `seg` leaves to estimate, from the segment's sample documents (all of its documents
   * when it is no larger than the sample): the live, accepted documents it did not visit (holding only terms
   * that were non-essential when the pass went by; scaled to the segment), and among the live sample documents
   * it visited from `lazyFrom` on (where the filter was asked only about documents that could enter the top k),
   * how many the filter accepts. `termOf`: the terms by position; `visitFrom`/`visitAt`: see `searchSegment`.
   */
  private estimateUnvisited(
    seg: Segment, termOf: Int32Array, visitFrom: number[], visitAt: number[], lazyFrom: number, accepted: (d: number) => boolean,
  ): { unvisited: number; visitedSampled: number; visitedAccepted: number } {
    const n = termOf.length;
    const bits = Array.from(termOf, (t) => seg.sampleBits(t));
    const samples = seg.sampleCount;
    let k = 0;
    let skipped = 0;
    let visitedSampled = 0;
    let visitedAccepted = 0;
    for (let w = 0; w * 32 < samples; w++) {
      const top = Math.min(samples, w * 32 + 32);
      const first = seg.sampleDoc(w * 32);
      const last = seg.sampleDoc(top - 1);
      while (k + 1 < visitFrom.length && visitFrom[k + 1] <= first) k++;
      // Per sample of the word: visited (holds a term then essential), or holds only other terms.
      let visited = 0;
      let other = 0;
      if (k + 1 < visitFrom.length && visitFrom[k + 1] <= last) {
        // The boundary moves within these 32 samples: one sample at a time.
        for (let j = w * 32; j < top; j++) {
          while (k + 1 < visitFrom.length && visitFrom[k + 1] <= seg.sampleDoc(j)) k++;
          const from = visitAt[k];
          const bit = 1 << (j & 31);
          for (let i = from; i < n; i++) visited |= bits[i][w] & bit;
          for (let i = 0; i < from; i++) other |= bits[i][w] & bit;
        }
      } else {
        const from = visitAt[k];
        for (let i = from; i < n; i++) visited |= bits[i][w];
        for (let i = 0; i < from; i++) other |= bits[i][w];
      }
      for (let m = other & ~visited; m; m &= m - 1) {
        const d = seg.sampleDoc(w * 32 + (31 - Math.clz32(m & -m)));
        if (!seg.deleted[d] && accepted(d)) skipped++;
      }
      if (last < lazyFrom) continue;
      for (let m = visited; m; m &= m - 1) {
        const d = seg.sampleDoc(w * 32 + (31 - Math.clz32(m & -m)));
        if (d < lazyFrom || seg.deleted[d]) continue;
        visitedSampled++;
        if (accepted(d)) visitedAccepted++;
      }
    }
    return { unvisited: Math.round((skipped * seg.docCount) / samples), visitedSampled, visitedAccepted };
  }

  /** The reference: scores every posting of every term (tests and the benchmark compare `search` with it). */
  searchExhaustive(terms: readonly QueryTerm[], limit: number, params: Bm25Params, accept?: (path: string) => boolean): { hits: LexicalHit[]; matched: number } {
    this.loaded();
    const N = this.liveDocs;
    if (!N || !terms.length) return { hits: [], matched: 0 };
    const stats = this.termStats(terms);
    const scores = this.segments.map((s) => new Float64Array(s.docCount));
    const touched = this.segments.map(() => [] as number[]);
    for (const s of stats) {
      this.segments.forEach((seg, si) => {
        const t = s.termIdx[si];
        if (t < 0) return;
        const sc = scores[si];
        const { docs, tfs } = seg.postings(t);
        for (let p = 0; p < docs.length; p++) {
          const d = docs[p];
          if (seg.deleted[d]) continue;
          if (sc[d] === 0) touched[si].push(d);
          sc[d] += s.q.weight * s.idf * tfWeight(tfs[p], seg.fieldLength(d, s.fi), s.avg, params);
        }
      });
    }
    const candidates: Array<{ si: number; d: number; score: number }> = [];
    this.segments.forEach((seg, si) => {
      for (const d of touched[si]) {
        if (accept && !accept(seg.docPath(d))) continue;
        candidates.push({ si, d, score: scores[si][d] });
      }
    });
    candidates.sort((a, b) => b.score - a.score || compareDocs(this.segments, a.si, a.d, b.si, b.d));
    const hits = this.explain(stats, candidates.slice(0, limit), params);
    return { hits, matched: candidates.length };
  }
}

interface TermStat {
  q: QueryTerm;
  idf: number;
  df: number;
  /** Term index per segment, -1 where absent. */
  termIdx: number[];
  /** Index of the field in FIELDS. */
  fi: number;
  /** Average length of the field over live documents. */
  avg: number;
}

/** A document is set aside only when its score bound is below the k-th score times this (see `search`). */
const PRUNE_MARGIN = 1 - 1e-9;
const NO_DOC = 0xffffffff;

/** Per-window working arrays, shared by every search (searches are synchronous), grown to the most terms seen. */
interface WindowScratch {
  /** Last window number handed out; a stamp equal to the current window marks an entry as written in it. */
  stamp: number;
  /** Per window document (document − window start): its essential terms' partial score, 1 if live and accepted, stamp. */
  partial: Float64Array;
  state: Uint8Array;
  docStamp: Int32Array;
  /** Window documents touched, in the order first seen. */
  touched: Int32Array;
  /** Per (window document, term position): contribution and stamp. */
  contrib: Float64Array;
  termStamp: Int32Array;
  /** Per term position: prefix sums of the terms' bounds in the current window. */
  windowPre: Float64Array;
}

let scratch: WindowScratch | undefined;

function windowScratch(terms: number): WindowScratch {
  if (!scratch || scratch.contrib.length < WINDOW * terms || scratch.stamp > 0x3fffffff) {
    const width = Math.max(terms, scratch ? scratch.contrib.length / WINDOW : 0, 16);
    scratch = {
      stamp: 0,
      partial: new Float64Array(WINDOW),
      state: new Uint8Array(WINDOW),
      docStamp: new Int32Array(WINDOW),
      touched: new Int32Array(WINDOW),
      contrib: new Float64Array(WINDOW * width),
      termStamp: new Int32Array(WINDOW * width),
      windowPre: new Float64Array(width),
    };
  }
  return scratch;
}

/** Ties on score are broken by id, then (for the same id twice) by segment and ordinal. */
function compareDocs(segments: readonly Segment[], sa: number, da: number, sb: number, db: number): number {
  const a = segments[sa].docId(da);
  const b = segments[sb].docId(db);
  if (a !== b) return a < b ? -1 : 1;
  return sa - sb || da - db;
}

/**
 * The best k (score, document) pairs: a binary heap whose root is the worst kept entry (lowest score; on equal
 * scores, the greatest id). Ids are decoded only when scores tie. Parallel typed arrays, no allocation per offer (a
 * description's search offers thousands of documents: the garbage of an object or array per offer was most of what
 * a warm search left to the young-generation collector).
 */
class TopK {
  private score: Float64Array;
  private si: Int32Array;
  private d: Int32Array;
  private readonly id: Array<string | undefined> = [];
  private size = 0;

  constructor(
    private readonly k: number,
    private readonly segments: readonly Segment[],
  ) {
    const capacity = Math.max(0, Math.min(k, 256));
    this.score = new Float64Array(capacity);
    this.si = new Int32Array(capacity);
    this.d = new Int32Array(capacity);
  }

  /** Room for one more entry while the heap fills (k may be large: the arrays grow as needed). */
  private grow(): void {
    const capacity = Math.min(this.k, Math.max(16, this.score.length * 2));
    const score = new Float64Array(capacity);
    score.set(this.score);
    const si = new Int32Array(capacity);
    si.set(this.si);
    const d = new Int32Array(capacity);
    d.set(this.d);
    this.score = score;
    this.si = si;
    this.d = d;
  }

  /** The score a document must reach to enter (0 until k documents are kept). */
  get threshold(): number {
    return this.size < this.k ? 0 : this.score[0];
  }

  private idOf(i: number): string {
    return (this.id[i] ??= this.segments[this.si[i]].docId(this.d[i]));
  }

  /** Whether kept entry i ranks below kept entry j (score, then id, then segment and ordinal). */
  private worse(i: number, j: number): boolean {
    if (this.score[i] !== this.score[j]) return this.score[i] < this.score[j];
    const a = this.idOf(i);
    const b = this.idOf(j);
    if (a !== b) return a > b;
    return this.si[i] - this.si[j] > 0 || (this.si[i] === this.si[j] && this.d[i] > this.d[j]);
  }

  /** Whether the document (score, si, d), not kept, ranks above kept entry j (the same order as `worse`). */
  private beats(score: number, si: number, d: number, j: number): boolean {
    if (score !== this.score[j]) return score > this.score[j];
    const a = this.segments[si].docId(d);
    const b = this.idOf(j);
    if (a !== b) return a < b;
    return si - this.si[j] < 0 || (si === this.si[j] && d < this.d[j]);
  }

  private swap(i: number, j: number): void {
    swapAt(this.score, i, j);
    swapAt(this.si, i, j);
    swapAt(this.d, i, j);
    swapAt(this.id, i, j);
  }

  /** Keeps (score, si, d) if it ranks among the best k; returns whether the k-th best score rose. */
  offer(score: number, si: number, d: number): boolean {
    const size = this.size;
    if (size < this.k) {
      if (size === this.score.length) this.grow();
      this.score[size] = score;
      this.si[size] = si;
      this.d[size] = d;
      this.id[size] = undefined;
      this.size = size + 1;
      for (let i = size; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!this.worse(i, parent)) break;
        this.swap(i, parent);
        i = parent;
      }
      return size + 1 === this.k;
    }
    if (size === 0 || score < this.score[0]) return false;
    const before = this.score[0];
    if (!this.beats(score, si, d, 0)) return false;
    // the new document replaces the root, then sinks to its place
    this.score[0] = score;
    this.si[0] = si;
    this.d[0] = d;
    this.id[0] = undefined;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < size && this.worse(l, w)) w = l;
      if (r < size && this.worse(r, w)) w = r;
      if (w === i) break;
      this.swap(i, w);
      i = w;
    }
    return this.score[0] > before;
  }

  /** The kept entries, best first. */
  sorted(): Array<{ score: number; si: number; d: number }> {
    const idx = Array.from({ length: this.size }, (_, i) => i);
    idx.sort((a, b) => (this.worse(a, b) ? 1 : this.worse(b, a) ? -1 : 0));
    return idx.map((i) => ({ score: this.score[i], si: this.si[i], d: this.d[i] }));
  }
}

/** Exchanges two entries of an array in place (no temporary array: the top-k's hot path). */
function swapAt<T>(arr: { [index: number]: T }, i: number, j: number): void {
  const x = arr[i];
  arr[i] = arr[j];
  arr[j] = x;
}

/**
 * Tiered merge policy: segments with many deletions are always rewritten; when there are more than
 * MAX_SEGMENTS, the smallest ones merge until half that many remain. Large segments are left alone, so
 * the cost of a commit stays proportional to the small, recent segments.
 */
/** A segment of interim documents (their ids start with `~`: indexer/quickPass.ts commits its windows alone). */
export function isInterimSegment(seg: Segment): boolean {
  return seg.docCount > 0 && seg.docId(0).startsWith('~');
}

function chooseMerge(all: Segment[]): Segment[] {
  // interim segments are neither rewritten nor merged, nor counted: they go when their last document does
  const segments = all.filter((s) => !isInterimSegment(s));
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
