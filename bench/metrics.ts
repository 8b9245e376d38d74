/** Retrieval metrics over ranked hits judged by location (so systems with different units compare). */

export interface Hit {
  path: string;
  startLine: number;
  endLine: number;
  /**
   * Spans of other units inside the hit's span (1-based, inclusive), which the hit does not show: a class too large for
   * one unit is an outline (header, fields, members' signatures) spanning the whole class plus a unit per member, and
   * the outline does not answer a question about one member's body (`withHoles`).
   */
  holes?: ReadonlyArray<readonly [number, number]>;
}

/** The first line in [from, to] that `h` shows (in its span, in no hole), or 0. */
function firstShownLine(h: Hit, from: number, to: number): number {
  let line = Math.max(h.startLine, from);
  const last = Math.min(h.endLine, to);
  if (line > last) return 0;
  if (h.holes?.length) {
    for (const [a, b] of [...h.holes].sort((x, y) => x[0] - y[0])) {
      if (a > line) break;
      if (b >= line) line = b + 1;
    }
  }
  return line <= last ? line : 0;
}

/** Whether `h` shows some line of [from, to] of `path`. */
export function showsLines(h: Hit, path: string, from: number, to: number): boolean {
  return h.path === path && firstShownLine(h, from, to) > 0;
}

/** Each unit's lines by path (what `withHoles` subtracts), from a corpus's chunks or an index's chunk spans. */
export function spansByPath(units: Iterable<{ path: string; startLine: number; endLine: number }>): Map<string, Array<{ startLine: number; endLine: number }>> {
  const out = new Map<string, Array<{ startLine: number; endLine: number }>>();
  for (const u of units) {
    let list = out.get(u.path);
    if (!list) out.set(u.path, (list = []));
    list.push({ startLine: u.startLine, endLine: u.endLine });
  }
  return out;
}

/** The hits with the units nested in their spans as holes: what each result shows. */
export function withHoles(hits: readonly Hit[], spans: ReadonlyMap<string, ReadonlyArray<{ startLine: number; endLine: number }>>): Hit[] {
  return hits.map((h) => {
    const inside = (spans.get(h.path) ?? []).filter(
      (c) => h.startLine <= c.startLine && c.endLine <= h.endLine && !(c.startLine === h.startLine && c.endLine === h.endLine),
    );
    return inside.length ? { ...h, holes: inside.map((c) => [c.startLine, c.endLine] as const) } : h;
  });
}

export interface Target {
  path: string;
  /** The line that defines the answer (the declaration line). */
  anchorLine: number;
}

/** 1-based rank of the first hit that shows the target's anchor line within the first `k`, or 0. */
export function firstRelevantRank(hits: readonly Hit[], target: Target, k = 10): number {
  for (let i = 0; i < Math.min(k, hits.length); i++) {
    if (showsLines(hits[i]!, target.path, target.anchorLine, target.anchorLine)) return i + 1;
  }
  return 0;
}

/** Best rank over several acceptable answers (0 when none is in the first `k`). */
export function firstRelevantRankAny(hits: readonly Hit[], targets: readonly Target[], k = 10): number {
  let best = 0;
  for (const t of targets) {
    const r = firstRelevantRank(hits, t, k);
    if (r > 0 && (best === 0 || r < best)) best = r;
  }
  return best;
}

export interface QualityReport {
  queries: number;
  mrr10: number;
  recall1: number;
  recall5: number;
  recall10: number;
  ndcg10: number;
}

/** Aggregates ranks (0 = not found in the top 10) into MRR@10, Recall@1/5/10 and nDCG@10 (one relevant item). */
export function summarize(ranks: readonly number[]): QualityReport {
  const n = ranks.length || 1;
  const sum = (f: (r: number) => number) => ranks.reduce((s, r) => s + f(r), 0) / n;
  return {
    queries: ranks.length,
    mrr10: sum((r) => (r > 0 ? 1 / r : 0)),
    recall1: sum((r) => (r === 1 ? 1 : 0)),
    recall5: sum((r) => (r > 0 && r <= 5 ? 1 : 0)),
    recall10: sum((r) => (r > 0 && r <= 10 ? 1 : 0)),
    ndcg10: sum((r) => (r > 0 ? 1 / Math.log2(r + 1) : 0)),
  };
}

/** 95% bootstrap interval of the mean of `values` (fixed seed, so reruns on the same ranks agree). */
export function bootstrapCI(values: readonly number[], iterations = 1000, seed = 42): [number, number] {
  if (!values.length) return [NaN, NaN];
  let s = seed >>> 0;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const means: number[] = [];
  for (let it = 0; it < iterations; it++) {
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[Math.floor(rnd() * values.length)]!;
    means.push(sum / values.length);
  }
  means.sort((a, b) => a - b);
  return [means[Math.floor(0.025 * iterations)]!, means[Math.ceil(0.975 * iterations) - 1]!];
}

/** Reciprocal ranks (0 when not in the top 10) — the per-query values behind MRR@10. */
export const reciprocal = (ranks: readonly number[]): number[] => ranks.map((r) => (r > 0 ? 1 / r : 0));

export interface LatencyReport {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function latency(samplesMs: readonly number[]): LatencyReport {
  const s = [...samplesMs].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    mean: s.reduce((a, b) => a + b, 0) / (s.length || 1),
  };
}

/** Deterministic PRNG (mulberry32) for reproducible sampling. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sample<T>(items: readonly T[], n: number, seed: number): T[] {
  const rand = prng(seed);
  const arr = [...items];
  for (let i = arr.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [arr[i], arr[j]] = [arr[j], arr[i]];
  }
  return arr.slice(0, n);
}
