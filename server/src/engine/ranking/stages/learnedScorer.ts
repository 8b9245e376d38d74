/**
 * The learned scorer (first stage of the pipeline): the best fused candidates go to a reranker (Quarry's own
 * `quarry-rerank`, Voyage rerank-2.5 or a local cross-encoder) whose relevance becomes each candidate's BASE score.
 * The rule stages (seed 000 boosts, seed 002/004 intents, activation, test demotion) then act on that base and the
 * contract partitions (phrase-first, implementers-first) order the groups, so nothing a seed promises is undone by
 * a model that only sees text.
 *
 * Scale: the scored head is mapped to [0.5, 1] (min-max of the blend `weight · learned + (1 − weight) · fused`, both
 * min-max within the head); the candidates below the head keep their fused order under 0.5. Knowledge and reasoning
 * chunks (Markdown sections, conversation logs, recorded patterns) are not what the scorer was trained on: they keep
 * their fused score on the same scale. A reranker that fails leaves the fused order and says so.
 */
import type { AsyncStage, Candidate, CandidateScorer } from '../candidate';
import type { ParsedQuery } from '../query';
import { codeView } from '../../embedding/views';
import { isDocumentChunk } from '../intents/context';

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Knowledge (Markdown, text, conversation logs) and reasoning chunks: not what the scorer was trained on. */
const knowledgeLike = (c: Candidate): boolean => !!c.chunk && (isDocumentChunk(c.chunk) || c.chunk.kind === 'reasoning');

async function scoresOf(reranker: CandidateScorer, query: ParsedQuery, head: Candidate[]): Promise<number[]> {
  if (reranker.scoreCandidates) return reranker.scoreCandidates(query, head);
  const results = await reranker.rerank(query.text, head.map((c) => codeView(c.chunk!, { maxChars: 4000 })), head.length);
  const out: number[] = head.map(() => Number.NaN);
  for (const r of results) if (r.index >= 0 && r.index < head.length && Number.isNaN(out[r.index])) out[r.index] = r.score;
  return out;
}

function minMax(values: number[]): (v: number) => number {
  const finite = values.filter((v) => Number.isFinite(v));
  const lo = Math.min(...finite);
  const hi = Math.max(...finite);
  return (v) => (hi > lo ? (v - lo) / (hi - lo) : 1);
}

/** Whether the scorer applies to this search (identifier queries keep BM25's exact-name order). */
export function scorerApplies(reranker: CandidateScorer | null | undefined, query: ParsedQuery, hybrid: boolean): reranker is CandidateScorer {
  return !!reranker && query.form === 'natural' && (!reranker.needsBothChannels || hybrid);
}

export const learnedScorerStage: AsyncStage = {
  name: 'learned-scorer',
  async apply(ctx, candidates) {
    const reranker = ctx.scorer;
    const hybrid = ctx.effects?.strategy.includes('HYBRID_SEARCH') ?? false;
    if (!scorerApplies(reranker, ctx.query, hybrid) || candidates.length < 2) return candidates;
    const sorted = [...candidates].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    const count = ctx.scorerOptions?.candidates ?? 50;
    const head = sorted.filter((c) => c.chunk && !knowledgeLike(c)).slice(0, count);
    if (head.length < 2) return candidates;
    let learned: number[];
    try {
      learned = await scoresOf(reranker, ctx.query, head);
    } catch (e) {
      ctx.effects?.warnings.push(`Reranker ${reranker.id} unavailable (${(e as Error).message}); results keep the fused order.`);
      return candidates;
    }
    const inHead = new Set(head);
    const cutoff = head[head.length - 1].score;
    // The fused scores the head spans, and the candidates (knowledge chunks included) inside that range.
    const span = sorted.filter((c) => inHead.has(c) || (c.score >= cutoff && knowledgeLike(c)));
    const inSpan = new Set(span);
    const rest = sorted.filter((c) => !inSpan.has(c));
    const fusedNorm = minMax(span.map((c) => c.score));
    const learnedNorm = minMax(learned);
    const w = ctx.scorerOptions?.weight ?? 1;
    const blend = new Map<Candidate, number>();
    head.forEach((c, i) => {
      const l = Number.isFinite(learned[i]) ? learnedNorm(learned[i]) : 0;
      blend.set(c, w * l + (1 - w) * fusedNorm(c.score));
    });
    const blendNorm = minMax([...blend.values()]);
    const rankBefore = new Map(sorted.map((c, i) => [c, i + 1]));
    const byLearned = [...head].sort((a, b) => blend.get(b)! - blend.get(a)!);
    const rankAfter = new Map(byLearned.map((c, i) => [c, i + 1]));
    for (const c of span) {
      if (inHead.has(c)) {
        const i = head.indexOf(c);
        const base = 0.5 + 0.5 * blendNorm(blend.get(c)!);
        c.explanation.push(
          `scorer ${reranker.id}: ${round(Number.isFinite(learned[i]) ? learned[i] : 0)} (#${rankAfter.get(c)} of ${head.length} scored; fusion had it #${rankBefore.get(c)}) → base ${round(base)}`,
        );
        c.score = base;
      } else {
        // a knowledge/reasoning chunk among the head's fused scores: its fused position on the same scale
        const base = 0.5 + 0.5 * fusedNorm(c.score);
        c.explanation.push(`scorer: ${c.chunk ? 'knowledge chunk' : 'candidate'} keeps its fused score → base ${round(base)}`);
        c.score = base;
      }
    }
    // Below the head: the fused order, under the head.
    const top = rest.length ? Math.max(...rest.map((c) => c.score)) : 0;
    for (const c of rest) c.score = top > 0 ? 0.5 * (c.score / top) * 0.999 : 0;
    ctx.effects?.strategy.push('SEMANTIC_RERANK');
    return candidates;
  },
};
