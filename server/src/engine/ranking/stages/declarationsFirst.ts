/**
 * Declarations first (contract) for a bare identifier: the units that declare the name — as their own name
 * (`fetch`, `Store.fetch`, `fetch_all` for `fetchAll`) or as a member held inside them (a small class kept whole,
 * `HashWithIndifferentAccess` holding `fetch`) — come before the units that only use it, whatever their lexical
 * scores: a three-line method that calls `fetch` twice out-scores a 90-line class that defines it on BM25's length
 * normalisation, but the user who types a name wants where it is declared (issue 18). Within each group score
 * decides. When nothing declares the name (a typo, a partial name, a name declared outside the workspace) the order
 * is left as it is.
 */
import type { Stage } from '../candidate';
import { declaresName } from '../../types';

export const declarationsFirstStage: Stage = {
  name: 'declarations-first',
  apply(ctx, candidates) {
    if (ctx.query.form !== 'identifier') return candidates;
    const declaring = candidates.filter((c) => c.chunk && declaresName(c.chunk, ctx.query.text));
    if (!declaring.length || declaring.length === candidates.length) return candidates;
    const first = new Set(declaring);
    for (const c of candidates) {
      if (first.has(c)) {
        c.explanation.push(`declarations first: declares '${ctx.query.text}' → first group`);
      } else {
        c.group = (c.group ?? 0) + 1;
        c.explanation.push(`declarations first: does not declare '${ctx.query.text}' → after its declarations`);
      }
    }
    return candidates;
  },
};
