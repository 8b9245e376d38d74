/**
 * The relevance cut-off (last stage): a result list ends where relevance ends, so that a unique identifier does
 * not drag a page of unrelated results behind it. For an identifier query that some candidate matches as a whole
 * name (its definition, a chunk that uses it, a file named after it), the candidates that only share a PART of
 * the name (`parse` of `parseConfig`) or nothing but the dense channel's vague similarity are dropped. Queries with
 * no whole match (a typo, a partial name) keep every candidate. Descriptions are not cut: their order is the answer.
 */
import type { Candidate, Stage } from '../candidate';
import { normalizeIdentifier } from '../../tokenize/codeTokenizer';
import { isQuickId } from '../../quickWindows';

const WHOLE_FIELDS = new Set(['name', 'symbols', 'ident']);

/** `name` occurs in `text` as a whole identifier (no letter, digit, `_` or `$` on either side; case aside). */
export function holdsIdentifier(text: string, name: string): boolean {
  const hay = text.toLowerCase();
  const needle = name.toLowerCase();
  const part = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}_$]/u.test(ch);
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) {
    if (!part(hay[i - 1]) && !part(hay[i + needle.length])) return true;
  }
  return false;
}

function matchesWhole(c: Candidate, last: string, loose: string): boolean {
  if (c.bm25?.matches.some((m) => WHOLE_FIELDS.has(m.field))) return true;
  // a window of a file not parsed yet (a first index's quick pass) is indexed by parts only: its text decides
  if (isQuickId(c.id) && c.chunk && holdsIdentifier(c.chunk.content, last)) return true;
  if (c.conformsTo !== undefined) return true;
  const path = c.path.toLowerCase().replace(/[_$-]/g, '');
  return loose.length > 2 && path.includes(loose);
}

/** The identifier query's last segment (`fetch` of `Store.fetch`). */
export function lastQuerySegment(text: string): string {
  return text.split(/\.|::|#/).filter(Boolean).pop() ?? text;
}

/** Whether a candidate matches an identifier query's name whole (not only some of its parts). */
export function matchesWholeName(c: Candidate, queryText: string): boolean {
  const last = lastQuerySegment(queryText);
  return matchesWhole(c, last, normalizeIdentifier(last));
}

export const relevanceCutoffStage: Stage = {
  name: 'relevance-cutoff',
  apply(ctx, candidates) {
    if (ctx.query.form !== 'identifier') return candidates;
    const last = lastQuerySegment(ctx.query.text);
    const loose = normalizeIdentifier(last);
    const kept = candidates.filter((c) => matchesWhole(c, last, loose));
    if (!kept.length || kept.length === candidates.length) return candidates;
    return kept;
  },
};
