/**
 * The relevance cut-off (last stage): a result list ends where relevance ends, so that a unique identifier does
 * not drag a page of unrelated results behind it. For an identifier query that some candidate matches as a whole
 * name (its definition, a chunk that uses it, a file named after it), the candidates that only share a PART of
 * the name (`parse` of `parseConfig`) or nothing but the dense channel's vague similarity are dropped. Queries with
 * no whole match (a typo, a partial name) keep every candidate. Descriptions are not cut: their order is the answer.
 */
import type { Candidate, Stage } from '../candidate';
import { normalizeIdentifier } from '../../tokenize/codeTokenizer';

const WHOLE_FIELDS = new Set(['name', 'symbols', 'ident']);

function matchesWhole(c: Candidate, loose: string): boolean {
  if (c.bm25?.matches.some((m) => WHOLE_FIELDS.has(m.field))) return true;
  if (c.conformsTo !== undefined) return true;
  const path = c.path.toLowerCase().replace(/[_$-]/g, '');
  return loose.length > 2 && path.includes(loose);
}

export const relevanceCutoffStage: Stage = {
  name: 'relevance-cutoff',
  apply(ctx, candidates) {
    if (ctx.query.form !== 'identifier') return candidates;
    const last = ctx.query.text.split(/\.|::|#/).filter(Boolean).pop() ?? ctx.query.text;
    const loose = normalizeIdentifier(last);
    const kept = candidates.filter((c) => matchesWhole(c, loose));
    if (!kept.length || kept.length === candidates.length) return candidates;
    return kept;
  },
};
