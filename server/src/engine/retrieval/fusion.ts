/**
 * Fusing the lexical (BM25) and dense channels. Pure functions over scores, so each is unit-tested and the
 * benchmark can compare them:
 *
 * - `staged` (seed 003 FR-2): stage 1 = BM25 top-K (raw scores kept, never normalised for filtering);
 *   stage 2 = min-max normalise BM25, semantic similarity and activation WITHIN the stage-1 candidates and
 *   combine with weights that sum to 1 (tri-hybrid default 0.3 / 0.4 / 0.3). Zero BM25 matches → the caller
 *   falls back to semantic search and says so.
 * - `rrf`: reciprocal-rank fusion, Σ weight_c / (k + rank_c), over the union of the channels' lists.
 * - `weighted`: min-max normalised scores of each channel over its own list, Σ weight_c · norm_c.
 */

export interface StagedWeights {
  bm25: number;
  semantic: number;
  activation: number;
}

export const DEFAULT_STAGED_WEIGHTS: StagedWeights = { bm25: 0.3, semantic: 0.4, activation: 0.3 };

export class FusionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FusionConfigError';
  }
}

/** Seed 003 UT-HYBRID-08: stage-2 weights must be non-negative and sum to 1. */
export function validateStagedWeights(w: StagedWeights): StagedWeights {
  for (const [k, v] of Object.entries(w)) {
    if (!Number.isFinite(v) || v < 0) throw new FusionConfigError(`retrieval.stagedWeights.${k} must be a non-negative number (got ${v})`);
  }
  const sum = w.bm25 + w.semantic + w.activation;
  if (Math.abs(sum - 1) > 1e-6) {
    throw new FusionConfigError(
      `retrieval.stagedWeights must sum to 1.0 (got bm25 ${w.bm25} + semantic ${w.semantic} + activation ${w.activation} = ${sum}); adjust them in .quarry/config.yml`,
    );
  }
  return w;
}

/** Min-max normalisation with the seed's ε: (x − min) / (max − min + ε); all-equal values map to 0. */
export function minMax(values: readonly number[], epsilon = 1e-8): number[] {
  if (!values.length) return [];
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return values.map((v) => (v - lo) / (hi - lo + epsilon));
}

export interface StagedCandidate {
  id: string;
  /** Raw BM25 (stage 1). */
  bm25: number;
  /** Cosine similarity; undefined when the chunk has no vector yet (scored as the candidates' minimum). */
  semantic?: number;
  /** ACT-R base-level activation (memory/activation.ts); undefined without evidence (counted below the rest). */
  activation?: number;
}

export interface StagedScore {
  id: string;
  bm25: number;
  bm25Norm: number;
  semantic: number;
  semanticNorm: number;
  activation: number;
  activationNorm: number;
  final: number;
}

/** Stage 1: the top K by raw BM25 (all of them when fewer; UT-HYBRID-01/03/06). */
export function stageOne<T extends { bm25: number }>(candidates: readonly T[], k: number): T[] {
  return [...candidates].sort((a, b) => b.bm25 - a.bm25).slice(0, k);
}

/** Stage 2: normalise within the candidates only and combine (UT-HYBRID-02/04/07). Sorted best first. */
export function stageTwo(candidates: readonly StagedCandidate[], weights: StagedWeights): StagedScore[] {
  validateStagedWeights(weights);
  const sems = candidates.map((c) => c.semantic);
  const known = sems.filter((s): s is number => s !== undefined);
  const floor = known.length ? Math.min(...known) : 0;
  const semantic = sems.map((s) => s ?? floor);
  // activation is a log (it can be negative): a candidate without evidence counts below every one with some
  const acts = candidates.map((c) => c.activation);
  const knownActs = acts.filter((a): a is number => a !== undefined);
  const actFloor = knownActs.length ? Math.min(...knownActs) - 1 : 0;
  const activation = acts.map((a) => a ?? actFloor);
  const bm25Norm = minMax(candidates.map((c) => c.bm25));
  const semNorm = minMax(semantic);
  const actNorm = minMax(activation);
  return candidates
    .map((c, i) => ({
      id: c.id,
      bm25: c.bm25,
      bm25Norm: bm25Norm[i],
      semantic: semantic[i],
      semanticNorm: semNorm[i],
      activation: activation[i],
      activationNorm: actNorm[i],
      final: weights.bm25 * bm25Norm[i] + weights.semantic * semNorm[i] + weights.activation * actNorm[i],
    }))
    .sort((a, b) => b.final - a.final || b.bm25 - a.bm25);
}

export interface RankedList {
  channel: string;
  /** Ids best first. */
  ids: readonly string[];
  weight: number;
}

/** Reciprocal-rank fusion: score(id) = Σ_c weight_c / (k + rank_c(id)), ranks 1-based. */
export function rrf(lists: readonly RankedList[], k = 60): Map<string, number> {
  const out = new Map<string, number>();
  for (const list of lists) {
    if (list.weight <= 0) continue;
    list.ids.forEach((id, i) => out.set(id, (out.get(id) ?? 0) + list.weight / (k + i + 1)));
  }
  return out;
}

export interface ScoredList {
  channel: string;
  scores: ReadonlyMap<string, number>;
  weight: number;
}

/** Weighted sum of per-channel min-max normalised scores (a missing id contributes 0 for that channel). */
export function weightedSum(lists: readonly ScoredList[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const list of lists) {
    if (list.weight <= 0 || !list.scores.size) continue;
    const ids = [...list.scores.keys()];
    const norm = minMax(ids.map((id) => list.scores.get(id)!));
    ids.forEach((id, i) => out.set(id, (out.get(id) ?? 0) + list.weight * norm[i]));
  }
  return out;
}
