/**
 * The rerank step (seed 002 FR-018/FR-025): the best fused candidates go to a reranker (Voyage rerank-2.5, a local
 * cross-encoder, or Quarry's learned reranker) which reorders them; the rest keep their order below. A reranker that
 * fails leaves the fused order in place and says so.
 */
import type { Candidate } from '../ranking/candidate';
import type { ParsedQuery } from '../ranking/query';
import type { Reranker, RerankResult } from '../embedding/types';
import { codeView } from '../embedding/views';

export interface RerankOutcome {
  candidates: Candidate[];
  applied: boolean;
  warning?: string;
}

async function scoresOf(reranker: Reranker, query: ParsedQuery, head: Candidate[]): Promise<RerankResult[]> {
  if (reranker.scoreCandidates) {
    return reranker
      .scoreCandidates(query, head)
      .map((score, index) => ({ index, score }))
      .sort((a, b) => b.score - a.score || a.index - b.index);
  }
  return reranker.rerank(query.text, head.map((c) => codeView(c.chunk!, { maxChars: 4000 })), head.length);
}

export async function rerankCandidates(reranker: Reranker, query: ParsedQuery, candidates: Candidate[], count: number): Promise<RerankOutcome> {
  const head = candidates.filter((c) => c.chunk).slice(0, count);
  if (head.length < 2) return { candidates, applied: false };
  let results;
  try {
    results = await scoresOf(reranker, query, head);
  } catch (e) {
    return { candidates, applied: false, warning: `Reranker ${reranker.id} unavailable (${(e as Error).message}); results keep the fused order.` };
  }
  const seen = new Set<number>();
  const top = results.filter((r) => r.index >= 0 && r.index < head.length && !seen.has(r.index) && (seen.add(r.index), true));
  const floor = head.length ? Math.min(...top.map((r) => r.score)) : 0;
  const reordered: Candidate[] = top.map((r, i) => {
    const c = head[r.index];
    c.explanation.push(`rerank ${reranker.id}: score ${Math.round(r.score * 1000) / 1000} (was #${r.index + 1}, now #${i + 1})`);
    c.score = r.score;
    return c;
  });
  // Candidates the reranker did not return, then the tail, keep their order below the reranked head.
  const rest = [...head.filter((_, i) => !seen.has(i)), ...candidates.filter((c) => !head.includes(c))];
  rest.forEach((c, i) => {
    c.score = floor - (i + 1) * 1e-6;
  });
  return { candidates: [...reordered, ...rest], applied: true };
}
