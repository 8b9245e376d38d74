/**
 * Writes the BM25 channel's term-by-term breakdown into each candidate's explanation; nothing when the search shows
 * no explanations (`explain: false`: the strings of every candidate were garbage for the collector).
 */
import type { Stage } from '../candidate';

const round = (x: number) => Math.round(x * 1000) / 1000;

export const bm25ExplainStage: Stage = {
  name: 'bm25',
  apply(ctx, candidates) {
    if (ctx.options.explain === false) return candidates;
    for (const c of candidates) {
      if (!c.bm25) continue;
      const parts = c.bm25.matches
        .slice(0, 8)
        .map((m) => `${m.field}:${m.token} ${round(m.contribution)} (tf ${m.tf}, df ${m.df}, idf ${round(m.idf)})`);
      const more = c.bm25.matches.length > 8 ? ` + ${c.bm25.matches.length - 8} more terms` : '';
      const w = c.bm25.wordOverlap;
      // with a word overlap below 1 the terms add up to more than the score: each word's other fields count by w
      const how = w === undefined ? '=' : `(each query word: its best field + ${w} × its other fields) from`;
      c.explanation.push(`bm25 ${round(c.bm25.score)} ${how} ${parts.join(' + ')}${more}`);
    }
    return candidates;
  },
};
