/**
 * Why a result is in the list, in words a person reads at a glance (`CodeMatch.why`; issue 19): "defines `parse`",
 * "declares `Store.fetch`", "implements `Observer`", "contains "exact phrase"", "matches 3 of 4 words (in its name)",
 * "similar in meaning (no shared words)". The detailed, ranking-level account stays in `explanation` and
 * `score_breakdown` (for `--show-scores`, tooltips and agents).
 */
import type { Candidate } from '../ranking/candidate';
import type { ParsedQuery } from '../ranking/query';
import { declaresName, lastNameSegment } from '../types';
import { FUNCTION_WORDS, partTokens, stemOf } from '../tokenize/codeTokenizer';
import { isTestPath } from '../testPaths';
import { contentStems, stemSet } from '../tokenize/stemSets';

const DOC_KINDS = new Set(['section', 'text']);

/** The query's content words: their lower-cased parts, deduplicated, function words left out unless nothing else is. */
function contentWords(words: readonly string[]): string[] {
  const all = [...new Set(partTokens(words.join(' ')).filter((w) => w.length > 1))];
  const content = all.filter((w) => !FUNCTION_WORDS.has(w));
  return content.length ? content : all;
}

export function whyOf(c: Candidate, query: ParsedQuery, words: readonly string[], matchedSymbol?: string): string {
  const chunk = c.chunk!;
  const parts: string[] = [];
  const target = query.target;
  if (query.form === 'identifier') {
    const name = lastNameSegment(query.text);
    if (matchedSymbol) parts.push(`declares \`${matchedSymbol}\``);
    else if (declaresName(chunk, query.text)) parts.push(`defines \`${chunk.symbol || name}\``);
    else if (chunk.conformances.some((x) => lastNameSegment(x).toLowerCase() === name.toLowerCase())) parts.push(`implements \`${name}\``);
    else if (c.bm25?.matches.length && c.bm25.matches.every((m) => m.field === 'path')) parts.push(`in ${chunk.path.split('/').pop()}`);
    else if (c.bm25) parts.push(`uses \`${name}\``);
  } else if (target?.relation === 'implementations' && c.conformsTo !== undefined) {
    parts.push(c.conformsVia ? `implements \`${c.conformsTo}\` through \`${c.conformsVia}\`` : `implements \`${c.conformsTo}\``);
  } else if (target && chunk.name && chunk.name.toLowerCase() === lastNameSegment(target.name).toLowerCase()) {
    parts.push(`defines \`${chunk.symbol || chunk.name}\``);
  }
  if (!parts.length && query.phrases.length) {
    const lower = chunk.content.toLowerCase();
    const found = query.phrases.filter((p) => lower.includes(p.toLowerCase()));
    if (found.length) parts.push(`contains ${found.map((p) => `"${p}"`).join(', ')}`);
  }
  if (!parts.length) {
    const wanted = contentWords(words);
    // the body's stems are remembered by content hash (the scorer computed them already for most results)
    const body = contentStems(chunk);
    const text = stemSet(`${chunk.symbol}\n${chunk.doc}\n${chunk.path}`);
    const name = stemSet(`${chunk.symbol} ${chunk.path.split('/').pop() ?? ''}`);
    const hit = wanted.filter((w) => text.has(stemOf(w)) || body.has(stemOf(w)));
    if (hit.length && wanted.length) {
      const inName = hit.some((w) => name.has(stemOf(w)));
      const count = hit.length === wanted.length ? (wanted.length === 1 ? `matches "${hit[0]}"` : `matches all ${wanted.length} words`) : `matches ${hit.length} of ${wanted.length} words`;
      parts.push(inName ? `${count} (in its name)` : count);
    } else if (c.dense) {
      parts.push('similar in meaning (no shared words)');
    } else {
      parts.push('matches the query');
    }
  }
  if (DOC_KINDS.has(chunk.kind)) parts.unshift('documentation');
  if (isTestPath(chunk.path)) parts.push('test');
  return parts.join(' · ');
}
