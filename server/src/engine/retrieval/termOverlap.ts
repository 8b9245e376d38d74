/**
 * One query word, one saturated share of the keyword score. The lexical index scores each (field, token) term on its
 * own — a word of the query becomes up to six terms (the name, the symbols, the identifiers, the body, the path and
 * the stemmed field) — so a chunk that repeats one common query word in every field ("embedding provider" in
 * `createEmbeddingProvider`) collects that word's score four or five times over, and outranks the chunk that holds
 * the description's rarer, distinctive words once (`ConcurrencyLimiter` for "limit the number of concurrent
 * requests to the embedding provider"). BM25F (Robertson et al., 2004) saturates a word once across fields.
 *
 * Here, a description's keyword hits are re-scored: the terms are grouped by the query word they stand for (their
 * English stem), and each word counts its best field in full and its other fields by `overlap` (1 = the plain sum,
 * the index's own score; 0 = only the best field of each word). Identifier queries keep the plain sum: their terms
 * are whole names. Applied to the lexical channel's pool before fusion, so every later stage sees one score.
 */
import type { LexicalHit, TermMatch } from '../store/lexical/lexicalIndex';
import { EXACT_NAME, LOOSE_NAME, NAME_STEM, stemOf } from '../tokenize/codeTokenizer';

/** The query word a term stands for: its English stem (name-stem and stemmed-field tokens are stems already). */
export function termWord(m: Pick<TermMatch, 'field' | 'token'>): string {
  const t = m.token;
  const marked = t.startsWith(EXACT_NAME) || t.startsWith(LOOSE_NAME) || t.startsWith(NAME_STEM);
  const bare = marked ? t.slice(1) : t;
  return m.field === 'stem' || t.startsWith(NAME_STEM) ? bare : stemOf(bare);
}

/** Σ over query words of (best field + overlap × the word's other fields). */
export function overlapScore(matches: readonly TermMatch[], overlap: number): number {
  const best = new Map<string, number>();
  let total = 0;
  for (const m of matches) {
    total += m.contribution;
    const w = termWord(m);
    const b = best.get(w);
    if (b === undefined || m.contribution > b) best.set(w, m.contribution);
  }
  let bestSum = 0;
  for (const b of best.values()) bestSum += b;
  return bestSum + overlap * (total - bestSum);
}

/** The hits re-scored by `overlapScore` and re-sorted (score, then id); `overlap` ≥ 1 returns them as they are. */
export function withWordOverlap(hits: readonly LexicalHit[], overlap: number): LexicalHit[] {
  if (!(overlap < 1)) return [...hits];
  return hits
    .map((h) => ({ ...h, score: overlapScore(h.matches, overlap) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
