/**
 * Seed 001 phrase boosting: when the query has quoted phrases, results whose FULL chunk content (plus symbol
 * and path) contains every phrase (case-insensitive) come first, in score order, then all the others in score
 * order. Nothing is discarded. (Retrieval over-fetches at least max(limit × 3, 30) candidates.)
 */
import type { Stage } from '../candidate';

export const phrasePartitionStage: Stage = {
  name: 'phrase-partition',
  apply(ctx, candidates) {
    const phrases = ctx.query.phrases.map((p) => p.toLowerCase());
    if (!phrases.length) return candidates;
    for (const c of candidates) {
      const chunk = c.chunk;
      const haystack = chunk ? `${chunk.content}\n${chunk.symbol}\n${chunk.path}`.toLowerCase() : c.path.toLowerCase();
      const missing = phrases.filter((p) => !haystack.includes(p));
      c.group = missing.length ? 1 : 0;
      c.explanation.push(
        missing.length
          ? `phrase: missing ${missing.map((p) => JSON.stringify(p)).join(', ')} → after the results that contain every phrase`
          : `phrase: contains ${phrases.map((p) => JSON.stringify(p)).join(', ')} → first group`,
      );
    }
    return candidates;
  },
};
