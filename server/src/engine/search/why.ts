/**
 * Why a result is in the list, in words a person reads at a glance (`CodeMatch.why`; issue 19): "defines `parse`",
 * "declares `Store.fetch`", "implements `Observer`", "contains "exact phrase"", "matches 3 of 4 words ("parse" in its name)",
 * "similar in meaning (no shared words)". The detailed, ranking-level account stays in `explanation` and
 * `score_breakdown` (for `--show-scores`, tooltips and agents).
 */
import { EMBEDDED_FIELD, type Candidate } from '../ranking/candidate';
import type { ParsedQuery } from '../ranking/query';
import { declaresName, lastNameSegment } from '../types';
import { FUNCTION_WORDS, partTokens, stemOf } from '../tokenize/codeTokenizer';
import { isTestUnit } from '../testPaths';
import { PROTOCOL_KINDS } from '../ranking/stages/implementsPartition';
import { holdsIdentifier } from '../ranking/stages/relevanceCutoff';
import { callsWithoutDeclaring } from '../ranking/stages/callersFirst';
import { contentStems, stemSet } from '../tokenize/stemSets';

const DOC_KINDS = new Set(['section', 'text']);

/**
 * The query's content words as typed (deduplicated whatever their case), function words left out unless nothing else
 * is: "SQLite" is one word, not "sq" and "lite"; "switchMap" keeps its parts.
 */
function contentWords(words: readonly string[]): string[] {
  const seen = new Set<string>();
  const all = words.filter((w) => w.length > 1 && !seen.has(w.toLowerCase()) && !!seen.add(w.toLowerCase()));
  const content = all.filter((w) => !FUNCTION_WORDS.has(w.toLowerCase()));
  return content.length ? content : all;
}

/** A word is in a set of stems when its own stem is, or every part of it is (`parse_config`, `switchMap`). */
function holds(stems: ReadonlySet<string>, word: string): boolean {
  if (stems.has(stemOf(word.toLowerCase()))) return true;
  const parts = partTokens(word);
  return parts.length > 0 && parts.every((p) => stems.has(stemOf(p)));
}

/** The words its name holds, as a note: ("parse", "config" in its name), or a count when there are many. */
function inNameNote(words: readonly string[]): string {
  if (!words.length) return '';
  if (words.length > 3) return ` (${words.length} of them in its name)`;
  return ` (${words.map((w) => `"${w}"`).join(', ')} in its name)`;
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
    else if (c.bm25) parts.push(holdsIdentifier(`${chunk.symbol}\n${chunk.content}`, name) ? `uses \`${name}\`` : `shares parts of \`${name}\``);
  } else if (target?.relation === 'implementations' && c.conformsTo !== undefined) {
    // an interface, protocol or trait that conforms refines X (it ranks with the other results): it extends it
    const verb = PROTOCOL_KINDS.has(chunk.kind) ? 'extends' : 'implements';
    const via = c.conformsVia === EMBEDDED_FIELD ? ` through ${EMBEDDED_FIELD}` : c.conformsVia ? ` through \`${c.conformsVia}\`` : '';
    parts.push(`${verb} \`${c.conformsTo}\`${via}`);
  } else if (target && chunk.name && chunk.name.toLowerCase() === lastNameSegment(target.name).toLowerCase()) {
    parts.push(`defines \`${chunk.symbol || chunk.name}\``);
  } else if (target?.relation === 'callers') {
    const name = lastNameSegment(target.name);
    if (callsWithoutDeclaring(c, name)) parts.push(`calls or refers to \`${name}\``);
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
    // the path without its extension: "Go" is not in "sqlite3.go"'s name
    const path = chunk.path.replace(/\.[^./]+$/, '');
    const text = stemSet(`${chunk.symbol}\n${chunk.doc}\n${path}`);
    const name = stemSet(`${chunk.symbol} ${path.split('/').pop() ?? ''}`);
    const hit = wanted.filter((w) => holds(text, w) || holds(body, w));
    if (hit.length && wanted.length) {
      const count = hit.length === wanted.length ? (wanted.length === 1 ? `matches "${hit[0]}"` : `matches all ${wanted.length} words`) : `matches ${hit.length} of ${wanted.length} words`;
      parts.push(count + (wanted.length === 1 ? (holds(name, hit[0]!) ? ' (in its name)' : '') : inNameNote(hit.filter((w) => holds(name, w)))));
    } else if (c.dense) {
      parts.push('similar in meaning (no shared words)');
    } else {
      parts.push('matches the query');
    }
  }
  if (DOC_KINDS.has(chunk.kind)) parts.unshift('documentation');
  if (isTestUnit(chunk.path, chunk)) parts.push('test');
  return parts.join(' · ');
}
