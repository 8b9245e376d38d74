/**
 * Retrieval: runs the channels (BM25 always; dense when a provider and vectors exist), fuses them by the
 * configured mode, and hydrates candidates for the ranking stages. Honest about degraded modes: when the
 * dense channel cannot serve, the search runs on BM25 alone and says so (seed 002 FR-021a).
 */
import { dirOf, folderPackage } from '../chunking/languages/go/packages';
import { PROSE_KINDS, type Chunk } from '../types';
import { detectInformationIntent } from '../ranking/intents/information';
import { asksAboutUsage } from '../ranking/intents/usage';
import type { ChunkStore, ConformanceRow } from '../store/chunkStore';
import type { LexicalHit, LexicalIndex } from '../store/lexical/lexicalIndex';
import type { VectorStore } from '../store/vectorStore';
import type { EmbeddingProvider } from '../embedding/types';
import type { Bm25Config, RetrievalConfig, FieldWeights } from '../config/schema';
import { EMBEDDED_FIELD, type Candidate } from '../ranking/candidate';
import type { ParsedQuery } from '../ranking/query';
import { lexicalTerms } from '../ranking/query';
import type { SearchStrategy } from '../api/results';
import { rrf, stageTwo, weightedSum } from './fusion';
import { withWordOverlap } from './termOverlap';
import { isQuickId, QUICK_EXPLANATION } from '../quickWindows';

export interface DenseChannel {
  provider: EmbeddingProvider;
  vectors: VectorStore;
  /** Share of the index's distinct contents that have a vector (0..1). */
  coverage: number;
}

export interface RetrievalContext {
  lexical: LexicalIndex;
  store: ChunkStore;
  dense?: DenseChannel;
  bm25: Bm25Config & { fieldWeights: { identifier: FieldWeights; natural: FieldWeights } };
  retrieval: RetrievalConfig;
  /** Durations of the store's operations (kNN, hydration) and of query embeddings, for the FR-041 metrics. */
  timings?: { vectorStore(ms: number): void; embedding(ms: number): void };
  /** Chunks for the windows of a quick keyword pass (ids `~quick:…`, read from the files; indexer/quickPass.ts). */
  quickWindows?: (ids: string[]) => Chunk[];
  /** Raw activation of chunks (accesses, git history) for staged fusion's stage 2; absent = none. */
  activationOf?: (ids: string[]) => Promise<Map<string, number>>;
}

/** Runs `op` and reports its duration to `report` (when given). */
async function timedOp<T>(op: () => Promise<T>, report?: (ms: number) => void): Promise<T> {
  const t = performance.now();
  try {
    return await op();
  } finally {
    report?.(performance.now() - t);
  }
}

export interface RetrievalResult {
  candidates: Candidate[];
  /** Chunks that matched any channel before truncation. */
  matched: number;
  strategy: SearchStrategy[];
  warnings: string[];
}

function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export async function retrieve(ctx: RetrievalContext, q: ParsedQuery, limit: number, accept: (path: string) => boolean): Promise<RetrievalResult> {
  const cfg = ctx.retrieval;
  const warnings: string[] = [];
  const k1 = Math.max(limit * 3, cfg.stage1TopK);
  // The dense channel's query embedding and kNN (LanceDB, off the main thread), started before the lexical search
  // (JavaScript, on it) so that the two overlap: a description always asks both. An identifier asks the dense channel
  // only when the lexical hits hold no definition of it, so its kNN starts after them.
  const denseOn = !!ctx.dense && cfg.fusion !== 'lexical';
  const nearestOf = (dense: DenseChannel) => async () => {
    const vec = await timedOp(() => dense.provider.embedQuery(q.text), ctx.timings?.embedding);
    return { vec, near: await timedOp(() => dense.vectors.nearest(vec, cfg.denseTopK), ctx.timings?.vectorStore) };
  };
  const early = denseOn && q.form !== 'identifier' ? settle(nearestOf(ctx.dense!)) : undefined;
  // The embedding resolves in a later microtask, and only then is the kNN asked for: one turn of the event loop lets
  // that happen before the (synchronous) lexical search, so that LanceDB searches beside it instead of after it (a
  // local model: microseconds; a remote one: its request is on its way meanwhile). At 96k chunks the kNN took 8 ms
  // after a 5 ms lexical search.
  if (early) await new Promise<void>((r) => setImmediate(r));
  const lexical = ctx.lexical.search(lexicalTerms(q, ctx.bm25.fieldWeights, ctx.bm25.functionWordWeight), k1, ctx.bm25, accept);
  const { matched } = lexical;
  // a description's words saturate once across the fields (BM25F-like), not once per field
  const overlap = q.form === 'natural' && ctx.bm25.wordOverlap < 1 ? ctx.bm25.wordOverlap : undefined;
  const hits = overlap === undefined ? lexical.hits : withWordOverlap(lexical.hits, overlap);

  // A bare identifier that names a definition keeps BM25's order, so it needs no dense channel at all.
  const exactIdentifier = q.form === 'identifier' && hits.some((h) => h.matches.some((m) => (m.field === 'name' || m.field === 'symbols') && m.token.startsWith('=')));

  // Dense channel (query embedding + kNN), unless fusion is off or the identifier already has its definition.
  let qvec: Float32Array | undefined;
  let denseHits: Array<{ chunk: Chunk; similarity: number }> = [];
  let denseUsable = false;
  if (ctx.dense && denseOn && !exactIdentifier) {
    try {
      const { vec, near } = await (early ?? settle(nearestOf(ctx.dense))).then(unsettle);
      qvec = vec;
      const sim = new Map(near.map((h) => [h.contentHash, h.similarity]));
      const chunks = await timedOp(() => ctx.store.chunksByHashes(near.map((h) => h.contentHash)), ctx.timings?.vectorStore);
      denseHits = chunks
        .filter((c) => accept(c.path))
        .map((c) => ({ chunk: c, similarity: sim.get(c.contentHash) ?? 0 }))
        .sort((a, b) => b.similarity - a.similarity || (a.chunk.id < b.chunk.id ? -1 : 1));
      denseUsable = true;
      if (ctx.dense.coverage < 0.999) {
        warnings.push(`Semantic search covers ${Math.floor(ctx.dense.coverage * 100)}% of the code so far (embedding in progress or interrupted; \`quarry index\` continues it).`);
      }
    } catch (e) {
      warnings.push(`Dense embedding service unavailable (${ctx.dense.provider.id}: ${(e as Error).message}); using sparse (BM25) search only. Results may have reduced semantic accuracy.`);
    }
  }

  const byId = new Map<string, Chunk>();
  for (const d of denseHits) byId.set(d.chunk.id, d.chunk);
  const lexicalCandidates = (list: LexicalHit[]): Candidate[] =>
    list.map((h) => ({ id: h.id, path: h.path, score: h.score, bm25: { score: h.score, matches: h.matches, wordOverlap: overlap }, explanation: [] }));

  let candidates: Candidate[];
  let strategy: SearchStrategy[];
  if (exactIdentifier) {
    // Fuzzy neighbours never outrank the definition of a bare identifier.
    candidates = lexicalCandidates(hits);
    for (const c of candidates) c.explanation.push('fusion: identifier query with an exact name match keeps the BM25 order');
    strategy = ['SPARSE_ONLY'];
  } else if (!denseUsable || !qvec) {
    candidates = lexicalCandidates(hits);
    strategy = ['SPARSE_ONLY'];
  } else if (!hits.length) {
    // Zero keyword matches: semantic fallback (seed 003 FR-2, UT-HYBRID-05), without the neighbours any text has.
    const floor = ctx.dense!.provider.minFallbackSimilarity ?? 0;
    const near = denseHits.filter((d) => d.similarity >= floor);
    if (near.length) warnings.push('No keyword matches: showing semantic matches only.');
    candidates = near.map((d, i) => ({
      id: d.chunk.id, path: d.chunk.path, score: d.similarity, dense: { similarity: d.similarity, rank: i + 1 },
      explanation: [`dense ${round(d.similarity)} (rank ${i + 1}; no keyword matched)`],
    }));
    strategy = ['DENSE_ONLY'];
  } else {
    candidates = cfg.fusion === 'staged' ? await staged(ctx, cfg, hits, denseHits, qvec, overlap) : fuse(cfg, ctx.dense!, q.form, hits, denseHits, lexicalCandidates, proseFactor(cfg, q));
    strategy = ['HYBRID_SEARCH'];
  }

  // "what implements X": the conformance index answers by lookup (btree on protocol_name), so every conformer is
  // a candidate even when its text shares no word with the query.
  if (q.target?.relation === 'implementations') {
    const name = q.target.name.split(/\.|::/).pop()!;
    let rows: ConformanceRow[] = await ctx.store.conformancesOf(name);
    // a name typed in lower case ("response middleware implementations") names the type as declared (Middleware)
    if (!rows.length && name === name.toLowerCase()) rows = await ctx.store.conformancesOf(name[0]!.toUpperCase() + name.slice(1));
    // rows that carry a package (Go's io.Reader, http.Handler, declared outside the index; a name the index declares
    // in several packages, `lines.Reader`): asked by its qualified name, those rows join the index's own; asked by its
    // bare name, see withOwnQualifiedRows
    const qualified = q.target.name.includes('.') ? q.target.name.split(/::/).join('.') : '';
    if (qualified) rows = [...rows, ...(await ctx.store.conformancesOf(qualified))];
    else rows = await withOwnQualifiedRows(ctx.store, name, rows);
    const have = new Set(candidates.map((c) => c.id));
    const base = Math.max(0, ...candidates.map((c) => c.score));
    for (const { row: r, via: through } of await withIndirectConformers(ctx.store, rows)) {
      if (!accept(r.path)) continue;
      const how = through ? `${r.typeName} ${conformanceVerb(r.kind)} ${through}, which conforms to ${name}` : `${r.typeName || r.kind} ${conformanceVerb(r.kind)} ${r.protocolName}`;
      // a Go wrapper whose methods are all promoted from an embedded field conforms through that field
      const via = through ?? (r.kind === 'implicit-embedded' ? EMBEDDED_FIELD : undefined);
      // what it conforms to: the target (an indirect row names the type in between), with its package when the row has one
      const conformsTo = through ? name : r.protocolName;
      const existing = candidates.find((c) => c.id === r.chunkId);
      if (existing) {
        if (existing.conformsTo === undefined && (via || r.kind.startsWith('implicit'))) existing.explanation.push(`conformance index: ${how}`);
        existing.conformsTo = conformsTo;
        if (via && existing.conformsVia === undefined) existing.conformsVia = via;
        continue;
      }
      if (have.has(r.chunkId)) continue;
      have.add(r.chunkId);
      candidates.push({
        id: r.chunkId, path: r.path, score: base, conformsTo, conformsVia: via,
        explanation: [`conformance index: ${how} (no keyword match; starts at the best keyword score ${round(base)})`],
      });
    }
  }

  const need = candidates.filter((c) => !byId.has(c.id)).map((c) => c.id);
  for (const c of await timedOp(() => ctx.store.getChunks(need), ctx.timings?.vectorStore)) byId.set(c.id, c);
  // a file not parsed yet: its window of lines, read from the file (a first index's quick keyword pass)
  const quick = need.filter(isQuickId);
  if (quick.length && ctx.quickWindows) for (const c of ctx.quickWindows(quick)) byId.set(c.id, c);
  candidates = candidates.filter((c) => byId.has(c.id));
  for (const c of candidates) if (isQuickId(c.id)) c.explanation.push(QUICK_EXPLANATION);
  for (const c of candidates) c.chunk = byId.get(c.id);
  const matchedAll = new Set([...hits.map((h) => h.id), ...denseHits.map((d) => d.chunk.id)]).size;
  return { candidates, matched: Math.max(matched, matchedAll), strategy, warnings };
}

/**
 * A bare name's rows that carry a package: Go's rows of an interface name the index declares in several packages
 * (`lines.Reader`, `bytesio.Reader`: every one of them is the project's own, so they join the bare rows), and those of
 * a standard interface the index does not declare (`io.Reader`: only when the index has nothing of its own for the name,
 * so that a project's `Reader` never lists io.Reader's implementers).
 */
async function withOwnQualifiedRows(store: ChunkStore, name: string, rows: ConformanceRow[]): Promise<ConformanceRow[]> {
  const qualified = await store.conformancesQualifiedAs(name);
  if (!qualified.length) return rows;
  const packages = new Set((await store.chunkColumns({ language: 'go', kinds: ['interface'], names: [name] }, ['path'])).map((r) => folderPackage(dirOf(String(r.path)))));
  const own = qualified.filter((r) => packages.has(r.protocolName.slice(0, -name.length - 1).split('.').pop()!));
  const out = [...rows, ...own];
  return out.length ? out : qualified;
}

/** Runs `op` now; its outcome, a failure included, is kept for whoever awaits it later (no unhandled rejection meanwhile). */
function settle<T>(op: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return op().then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

function unsettle<T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T {
  if (!r.ok) throw r.error;
  return r.value;
}

/** How far "what implements X" follows declared conformances: X's sub-interfaces' and subclasses' conformers, and theirs. */
const INDIRECT_DEPTH = 3;
/** At most this many intermediate types are looked up (a hierarchy of hundreds of types needs no more to fill a page). */
const INDIRECT_LOOKUPS = 64;

/**
 * X's conformers and, through declared conformances, the types that implement X indirectly — by implementing a
 * sub-interface of X (`RandomPolicy : DescribedPolicy : EvictionPolicy`) or by extending a class that implements X
 * (`PinningFifoPolicy : FifoPolicy`), as an editor's Go to Implementations lists them. `via` names the type in
 * between. Go's implicit conformances are computed per method set already and are not followed.
 */
async function withIndirectConformers(store: Pick<ChunkStore, 'conformancesOf'>, direct: ConformanceRow[]): Promise<Array<{ row: ConformanceRow; via?: string }>> {
  const out: Array<{ row: ConformanceRow; via?: string }> = direct.map((row) => ({ row }));
  const seen = new Set(direct.map((r) => r.chunkId));
  const looked = new Set<string>();
  let frontier = direct;
  for (let depth = 1; depth < INDIRECT_DEPTH && frontier.length; depth++) {
    const next: ConformanceRow[] = [];
    for (const r of frontier) {
      const type = r.typeName.split(/\.|::/).pop()!;
      if (!type || r.kind.startsWith('implicit') || looked.has(type) || looked.size >= INDIRECT_LOOKUPS) continue;
      looked.add(type);
      for (const sub of await store.conformancesOf(type)) {
        if (seen.has(sub.chunkId) || sub.kind.startsWith('implicit')) continue;
        seen.add(sub.chunkId);
        out.push({ row: sub, via: type });
        next.push(sub);
      }
    }
    frontier = next;
  }
  return out;
}

/** How a conformance row reads in an explanation: declared, or derived from a Go method set (chunking/languages/go/). */
function conformanceVerb(kind: string): string {
  if (kind === 'implicit') return 'satisfies (its method set has every method of)';
  if (kind === 'implicit-pointer') return 'satisfies as a pointer (the method set of *T has every method of)';
  if (kind === 'implicit-interface') return 'satisfies (an interface whose methods include those of)';
  if (kind === 'implicit-embedded') return 'satisfies (every method promoted from an embedded field)';
  return 'conforms to';
}

/**
 * The dense channel's fusion weight: configured, or (`auto`) the provider's measured weight for the query's form —
 * identifier-like queries lean on the keyword channel, natural-language ones on the model.
 */
export function denseWeight(cfg: RetrievalConfig, dense: DenseChannel, form: 'identifier' | 'natural' = 'natural'): number {
  const w = cfg.channelWeights.dense;
  if (w !== 'auto') return w;
  return dense.provider.fusionWeights?.[form] ?? 1;
}

/**
 * The factor on prose's dense similarity for this query (`denseProseFactor`): 1 when the query asks an information
 * question (seed 004: results, methods, usage, definitions, comparisons) or how to use the library (a how-to, a
 * recommendation, what is supported, upgrading: intents/usage.ts), which documentation answers.
 */
function proseFactor(cfg: RetrievalConfig, q: ParsedQuery): number {
  if (cfg.denseProseFactor >= 1 || asksAboutUsage(q.text) || detectInformationIntent(q.text)) return 1;
  return cfg.denseProseFactor;
}

/** The dense hits with prose's similarity times `factor` (`proseFactor`), in their new order (1 = unchanged). */
export function discountProse<T extends { chunk: Pick<Chunk, 'kind'>; similarity: number }>(hits: readonly T[], factor: number): T[] {
  if (factor >= 1) return [...hits];
  return hits.map((d) => (PROSE_KINDS.has(d.chunk.kind) ? { ...d, similarity: d.similarity * factor } : d)).sort((a, b) => b.similarity - a.similarity);
}

function fuse(
  cfg: RetrievalConfig,
  dense: DenseChannel,
  form: 'identifier' | 'natural',
  hits: LexicalHit[],
  rawDenseHits: Array<{ chunk: Chunk; similarity: number }>,
  lexicalCandidates: (l: LexicalHit[]) => Candidate[],
  prose = 1,
): Candidate[] {
  const lex = lexicalCandidates(hits);
  const byId = new Map(lex.map((c) => [c.id, c]));
  const discounted = (d: { chunk: Chunk }) => prose < 1 && PROSE_KINDS.has(d.chunk.kind);
  const denseHits = discountProse(rawDenseHits, prose);
  denseHits.forEach((d, i) => {
    let c = byId.get(d.chunk.id);
    if (!c) byId.set(d.chunk.id, (c = { id: d.chunk.id, path: d.chunk.path, score: 0, explanation: [] }));
    c.dense = { similarity: d.similarity, rank: i + 1 };
    if (discounted(d)) c.denseDiscount = prose;
  });
  const w = { lexical: cfg.channelWeights.lexical, dense: denseWeight(cfg, dense, form) };
  let scores: Map<string, number>;
  if (cfg.fusion === 'rrf') {
    scores = rrf([
      { channel: 'bm25', ids: hits.map((h) => h.id), weight: w.lexical },
      { channel: 'dense', ids: denseHits.map((d) => d.chunk.id), weight: w.dense },
    ], cfg.rrfK);
  } else {
    scores = weightedSum([
      { channel: 'bm25', scores: new Map(hits.map((h) => [h.id, h.score])), weight: w.lexical },
      { channel: 'dense', scores: new Map(denseHits.map((d) => [d.chunk.id, d.similarity])), weight: w.dense },
    ]);
  }
  const lexRank = new Map(hits.map((h, i) => [h.id, i + 1]));
  const out = [...byId.values()];
  for (const c of out) {
    c.score = scores.get(c.id) ?? 0;
    const parts = [
      c.bm25 ? `bm25 rank ${lexRank.get(c.id)}` : 'no keyword match',
      c.dense ? `dense ${round(c.dense.similarity)}${c.denseDiscount ? ` (×${c.denseDiscount}: prose, the question asks for no information or usage)` : ''} rank ${c.dense.rank}` : 'not among dense neighbours',
    ];
    c.explanation.push(`fusion ${cfg.fusion} ${round(c.score * (cfg.fusion === 'rrf' ? 1000 : 1))}${cfg.fusion === 'rrf' ? '‰' : ''} (${parts.join(', ')}; weights bm25 ${w.lexical}, dense ${w.dense})`);
  }
  return out.sort((a, b) => b.score - a.score);
}

/**
 * Seed 003 staged retrieval: BM25 top-K, then semantic (+ activation) min-max within those candidates.
 * Vectors of stage-1 candidates that the kNN did not return are fetched and scored here.
 */
async function staged(
  ctx: RetrievalContext,
  cfg: RetrievalConfig,
  hits: LexicalHit[],
  denseHits: Array<{ chunk: Chunk; similarity: number }>,
  qvec: Float32Array,
  overlap: number | undefined,
): Promise<Candidate[]> {
  const stage1 = hits.slice(0, cfg.stage1TopK);
  const chunks = await ctx.store.getChunks(stage1.map((h) => h.id));
  const hashOf = new Map(chunks.map((c) => [c.id, c.contentHash]));
  const sims = new Map(denseHits.map((d) => [d.chunk.contentHash, d.similarity]));
  const needed = [...new Set(chunks.map((c) => c.contentHash).filter((h) => !sims.has(h)))];
  for (const [h, v] of await ctx.dense!.vectors.vectorsOf(needed)) sims.set(h, cosine(qvec, v));
  const activation = (await ctx.activationOf?.(stage1.map((h) => h.id))) ?? new Map<string, number>();
  const scored = stageTwo(
    stage1.map((h) => ({ id: h.id, bm25: h.score, semantic: sims.get(hashOf.get(h.id) ?? ''), activation: activation.get(h.id) })),
    cfg.stagedWeights,
  );
  const byId = new Map(stage1.map((h) => [h.id, h]));
  return scored.map((s) => {
    const h = byId.get(s.id)!;
    return {
      id: s.id, path: h.path, score: s.final, bm25: { score: h.score, matches: h.matches, wordOverlap: overlap },
      dense: { similarity: s.semantic, rank: 0 },
      explanation: [
        `staged ${round(s.final)} = ${cfg.stagedWeights.bm25}·bm25 ${round(s.bm25Norm)} + ${cfg.stagedWeights.semantic}·semantic ${round(s.semanticNorm)} (cos ${round(s.semantic)}) + ${cfg.stagedWeights.activation}·activation ${round(s.activationNorm)} (normalised within ${scored.length} BM25 candidates)`,
      ],
    };
  });
}
