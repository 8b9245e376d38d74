/**
 * Query understanding (the part the lexical engine needs today): the query's form decides which
 * field-weight profile ranks it, and its tokens become per-field query terms.
 */
import { exactNameToken, identifierParts, identifierTokens, isIdentifierLike, looseNameToken, partTokens, words } from '../tokenize/codeTokenizer';
import type { FieldWeights } from '../config/schema';
import type { QueryTerm } from '../store/lexical/lexicalIndex';
import { INTENT_TYPES } from '../api/results';

export type QueryForm = 'identifier' | 'natural';

export interface ParsedQuery {
  raw: string;
  text: string;
  form: QueryForm;
  /** Identifier-looking words of the query, case preserved. */
  identifiers: string[];
  /** Known intent (upper-case) or null when absent or unknown (seed 002 FR-028). */
  intent: string | null;
}

export class QueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueryError';
  }
}

export function normalizeIntent(intent: string | null | undefined): string | null {
  if (!intent) return null;
  const up = intent.trim().toUpperCase();
  return (INTENT_TYPES as readonly string[]).includes(up) ? up : null;
}

export function parseQuery(raw: string, intent?: string | null): ParsedQuery {
  const text = raw.trim();
  if (!text) throw new QueryError('Empty query: give some words or an identifier to search for, e.g. quarry search "parse config".');
  if (!words(text).length) throw new QueryError(`The query "${raw}" has no letters or digits to search for.`);
  const form: QueryForm = isIdentifierLike(text) ? 'identifier' : 'natural';
  const identifiers = words(text).filter((w) => identifierParts(w).length > 1 || /[A-Z_]/.test(w));
  return { raw, text, form, identifiers, intent: normalizeIntent(intent) };
}

/**
 * Per-field query terms with the weight profile of the query's form.
 * An identifier query matches the name fields by the WHOLE identifier only (a part such as `parcel` of
 * `dispatchParcel` must not make `ParcelCarrier` look like a definition), and by parts in body and path.
 * A natural-language query matches names by their parts.
 */
export function lexicalTerms(q: ParsedQuery, weights: { identifier: FieldWeights; natural: FieldWeights }): QueryTerm[] {
  const w = weights[q.form];
  const terms: QueryTerm[] = [];
  const push = (field: QueryTerm['field'], tokens: string[], factor = 1) => {
    for (const token of tokens) terms.push({ field, token, weight: w[field] * factor });
  };
  // A name as written counts fully; the same name in another convention (parse_config for parseConfig) half.
  const names = (list: string[]) => {
    for (const field of ['name', 'symbols'] as const) {
      push(field, list.map(exactNameToken));
      push(field, list.map(looseNameToken), 0.5);
    }
  };
  if (q.form === 'identifier') {
    // The whole name (and for `A.b`, also `b` and `A`), never its parts.
    const segments = q.text.split(/\.|::|#/).filter(Boolean);
    names(segments.length > 1 ? [...segments, q.text] : segments);
  } else {
    // Parts of every word, plus the whole name of words that look like identifiers (`parseConfig`).
    const parts = words(q.text).flatMap((word) => identifierParts(word));
    push('name', parts);
    push('symbols', parts);
    names(words(q.text).filter((word) => identifierParts(word).length > 1));
  }
  push('ident', identifierTokens(q.text));
  push('body', partTokens(q.text));
  push('path', partTokens(q.text));
  return terms;
}
