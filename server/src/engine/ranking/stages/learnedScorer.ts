/**
 * The learned scorer (first stage of the pipeline): a reranker (Quarry's own `quarry-rerank`, Voyage rerank-2.5 or a
 * local cross-encoder) orders the best fused CODE candidates of a natural-language search, and the rule stages
 * (seed 000 boosts, seed 002/004 intents, activation, test demotion) and the contract partitions (phrase-first,
 * implementers-first) then act on that order — so nothing a seed promises is undone by a model that only sees text.
 *
 * How it composes: the scored candidates trade places among the fused scores they held (the best-scored takes the
 * highest of those scores, and so on), so their scale stays the fusion's and every other candidate keeps its score
 * and position. Not scored, and so kept where fusion put them: knowledge and reasoning chunks (Markdown sections,
 * conversation logs, recorded patterns) and, when the query is about tests, test files — the model was trained on
 * questions answered by non-test code. `rerank.weight` < 1 blends the learned order with the fused one. The fused
 * order's best scored candidate stays in the learned order's first `rerank.keepFusedBest` places (default 3): the
 * model sees text features only and, on code unlike its training lists, sometimes drops the match both channels rank
 * first out of the page. A reranker that fails leaves the fused order and says so.
 */
import type { AsyncStage, Candidate, CandidateScorer, StageContext } from '../candidate';
import type { ParsedQuery } from '../query';
import { codeView } from '../../embedding/views';
import { isDocumentChunk } from '../intents/context';
import { isTestUnit } from '../../testPaths';
import { queryIsAboutTests } from './testDemotion';
import { minMax } from '../../retrieval/fusion';

const round = (x: number) => Math.round(x * 1000) / 1000;
/**
 * The learned order's resolution: scores (min-max over the scored candidates) are compared in steps of 1/20. Measured
 * with quarry-rerank's logits (BENCHMARKS.md, 2026-11-29 afternoon): 1/100 and 1/20 equal on the frozen evaluation's
 * tune half (NDCG@10 0.887 / 0.889), 1/20 nearer the benchmark's docstring sets (rxjs 0.441 / 0.453, CPython 0.468 / 0.483).
 */
const LEARNED_STEPS = 20;

/** What the scorer was trained on: code units (not knowledge or reasoning chunks; not tests when tests are asked for). */
function scorable(ctx: StageContext, c: Candidate): boolean {
  const chunk = c.chunk;
  if (!chunk || isDocumentChunk(chunk) || chunk.kind === 'reasoning') return false;
  return !(isTestUnit(c.path, chunk) && queryIsAboutTests(ctx));
}

async function scoresOf(reranker: CandidateScorer, query: ParsedQuery, head: Candidate[]): Promise<number[]> {
  if (reranker.scoreCandidates) return reranker.scoreCandidates(query, head);
  const results = await reranker.rerank(query.text, head.map((c) => codeView(c.chunk!, { maxChars: 4000 })), head.length);
  const out: number[] = head.map(() => Number.NaN);
  for (const r of results) if (r.index >= 0 && r.index < head.length && Number.isNaN(out[r.index])) out[r.index] = r.score;
  return out;
}

/**
 * Whether the scorer applies to this search: descriptions, yes; identifier queries and the forms that name a
 * declaration ("what is X", "X protocol") keep the exact-name order of BM25 and the seed 000 boosts.
 */
export function scorerApplies(reranker: CandidateScorer | null | undefined, query: ParsedQuery, hybrid: boolean): reranker is CandidateScorer {
  const namesDeclaration = query.target?.relation === 'definition' || query.target?.relation === 'protocol';
  return !!reranker && query.form === 'natural' && !namesDeclaration && (!reranker.needsBothChannels || hybrid);
}

/** Default of `rerank.keepFusedBest`: the fused order's best scored candidate stays in the scorer's first 3. */
export const DEFAULT_KEEP_FUSED_BEST = 3;

/**
 * The learned order never buries what both channels agree on most: the fused order's best scored candidate (head
 * index 0) is moved up to place `keep` when the scorer put it lower (`keep` 0 = no floor). Reorders `order` (head
 * indexes, learned order) in place; returns the place (1-based) the scorer had given it when it moved, else 0.
 */
export function keepFusedBest(order: number[], keep: number): number {
  if (!(keep >= 1)) return 0;
  const at = order.indexOf(0);
  if (at < keep) return 0;
  order.splice(at, 1);
  order.splice(keep - 1, 0, 0);
  return at + 1;
}

/** Default of `rerank.keepKeywordBest`: the keyword channel's best scored candidate stays in the scorer's first 5. */
export const DEFAULT_KEEP_KEYWORD_BEST = 5;

/**
 * Nor does it bury the keyword channel's best match: the scored candidate with the highest BM25 score is moved up to
 * place `keep` when the scorer put it lower (`keep` 0 = no floor). msw's `AsyncHandlersController`, BM25's first for
 * "how does the node integration keep mocks separate per async context" with a 30% lead, was 17th in the learned
 * order: the model was trained on documented functions and rates classes and config objects low. Runs after
 * `keepFusedBest` and never moves the fused best out of its first places (it is placed after it when both are kept).
 * Reorders `order` in place; returns the head index moved and the place (1-based) the scorer had given it, or null.
 */
export function keepKeywordBest(head: readonly Candidate[], order: number[], keep: number): { moved: number; from: number } | null {
  if (!(keep >= 1)) return null;
  let best = -1;
  head.forEach((c, i) => {
    if ((c.bm25?.score ?? 0) > (best < 0 ? 0 : head[best]!.bm25!.score)) best = i;
  });
  if (best < 0) return null;
  const at = order.indexOf(best);
  if (at < keep) return null;
  order.splice(at, 1);
  const fusedAt = order.indexOf(0);
  order.splice(fusedAt >= keep - 1 && fusedAt < keep ? keep : keep - 1, 0, best);
  return { moved: best, from: at + 1 };
}

export const learnedScorerStage: AsyncStage = {
  name: 'learned-scorer',
  async apply(ctx, candidates) {
    const reranker = ctx.scorer;
    const hybrid = ctx.effects?.strategy.includes('HYBRID_SEARCH') ?? false;
    if (!scorerApplies(reranker, ctx.query, hybrid) || candidates.length < 2) return candidates;
    const sorted = [...candidates].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    const head = sorted.filter((c) => scorable(ctx, c)).slice(0, ctx.scorerOptions?.candidates ?? 50);
    if (head.length < 2) return candidates;
    let learned: number[];
    try {
      learned = await scoresOf(reranker, ctx.query, head);
    } catch (e) {
      ctx.effects?.warnings.push(`Reranker ${reranker.id} unavailable (${(e as Error).message}); results keep the fused order.`);
      return candidates;
    }
    if (!learned.some((x) => Number.isFinite(x))) {
      ctx.effects?.warnings.push(`Reranker ${reranker.id} returned no scores; results keep the fused order.`);
      return candidates;
    }
    const w = ctx.scorerOptions?.weight ?? 1;
    // a candidate the reranker returned no score for ranks with its lowest score
    const floor = Math.min(...learned.filter((x) => Number.isFinite(x)));
    // Differences under 5% of the scored range are below what the model resolves: such near-ties keep the fused order
    // rather than an arbitrary last digit. (Quarry's model gives logits, where the best candidates stay apart; a
    // probability-like scale squeezes them together near 1 and this rule then kept most of a page in the fused order.)
    const learnedNorm = minMax(learned.map((x) => (Number.isFinite(x) ? x : floor))).map((x) => Math.round(x * LEARNED_STEPS) / LEARNED_STEPS);
    const fusedNorm = minMax(head.map((c) => c.score));
    const key = head.map((_, i) => w * learnedNorm[i] + (1 - w) * fusedNorm[i]);
    const slots = head.map((c) => c.score); // already descending
    const fusedRank = new Map(sorted.map((c, i) => [c, i + 1]));
    // ties keep the fused order (the lower head index, the higher fused score)
    const order = head.map((_, i) => i).sort((a, b) => key[b] - key[a] || a - b);
    const keep = ctx.scorerOptions?.keepFusedBest ?? DEFAULT_KEEP_FUSED_BEST;
    const kept = keepFusedBest(order, keep);
    const keepKw = ctx.scorerOptions?.keepKeywordBest ?? DEFAULT_KEEP_KEYWORD_BEST;
    const keptKw = keepKeywordBest(head, order, keepKw);
    order.forEach((h, i) => {
      const c = head[h];
      const raw = learned[h];
      c.explanation.push(
        `scorer ${reranker.id}: ${Number.isFinite(raw) ? round(raw) : 'no score'} (#${i + 1} of ${head.length} scored; fusion had it #${fusedRank.get(c)}${h === 0 && kept ? `; the scorer put it #${kept}, fusion's best stays in the first ${keep}` : ''}${keptKw?.moved === h ? `; the scorer put it #${keptKw.from}, the best keyword match stays in the first ${i + 1}` : ''}) → takes the fused score of scored #${i + 1}: ${round(slots[i])}`,
      );
      c.score = slots[i];
    });
    ctx.effects?.strategy.push('SEMANTIC_RERANK');
    return candidates;
  },
};
