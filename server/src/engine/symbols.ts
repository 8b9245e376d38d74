/**
 * The workspace symbol table (LSP `workspace/symbol`, the `symbols` engine call): every chunk's main symbol,
 * held in memory and matched per keystroke — exact > prefix > camel-hump ("OSP", "ordSumPan" → OrderSummaryPanel)
 * > fuzzy (the query's letters in order).
 */
import { identifierParts } from './tokenize/codeTokenizer';
import type { NameRange } from './types';

export interface SymbolEntry {
  name: string;
  symbol: string;
  kind: string;
  container: string;
  path: string;
  startLine: number;
  endLine: number;
  /** Where the symbol's name is (1-based line and UTF-16 column, exclusive end): where Go to Symbol lands. */
  nameRange: NameRange;
}

export type SymbolMatch = 'exact' | 'prefix' | 'camel' | 'fuzzy';

export interface SymbolHit extends SymbolEntry {
  score: number;
  match: SymbolMatch;
}

const RANK: Record<SymbolMatch, number> = { exact: 4, prefix: 3, camel: 2, fuzzy: 1 };

/** Whether `query` is a sequence of prefixes of consecutive parts of the name, from the first part. */
export function camelHumpMatch(query: string, parts: readonly string[]): boolean {
  const q = query.toLowerCase();
  const go = (qi: number, pi: number): boolean => {
    if (qi === q.length) return true;
    if (pi >= parts.length) return false;
    const part = parts[pi];
    // Take 1..n characters of this part (at least one), then continue with the next part.
    for (let n = Math.min(part.length, q.length - qi); n >= 1; n--) {
      if (q.startsWith(part.slice(0, n), qi) && go(qi + n, pi + 1)) return true;
    }
    return false;
  };
  return go(0, 0);
}

/** Subsequence match; the score prefers tight matches (fewer gaps). */
export function fuzzyScore(query: string, name: string): number {
  const q = query.toLowerCase();
  const n = name.toLowerCase();
  let i = 0;
  let gaps = 0;
  let last = -1;
  for (let j = 0; j < n.length && i < q.length; j++) {
    if (n[j] === q[i]) {
      if (last >= 0 && j !== last + 1) gaps++;
      last = j;
      i++;
    }
  }
  return i === q.length ? 1 / (1 + gaps) : 0;
}

export function matchSymbols(entries: readonly SymbolEntry[], query: string, limit: number): SymbolHit[] {
  const q = query.trim();
  if (!q) return [];
  const lower = q.toLowerCase();
  const hits: SymbolHit[] = [];
  for (const e of entries) {
    const name = e.name.toLowerCase();
    let match: SymbolMatch | undefined;
    let within = 0;
    if (name === lower || e.symbol.toLowerCase() === lower) {
      match = 'exact';
      within = e.name === q ? 1 : 0.5;
    } else if (name.startsWith(lower)) {
      match = 'prefix';
      within = lower.length / name.length;
    } else if (q.length >= 2 && camelHumpMatch(q, identifierParts(e.name))) {
      match = 'camel';
      within = lower.length / name.length;
    } else if (q.length >= 3) {
      const f = fuzzyScore(q, e.name);
      if (f > 0) {
        match = 'fuzzy';
        within = f * (lower.length / name.length);
      }
    }
    if (match) hits.push({ ...e, match, score: RANK[match] + within });
  }
  hits.sort((a, b) => b.score - a.score || a.name.length - b.name.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.startLine - b.startLine);
  // the parts of a declaration split over the hard maximum share its name: one symbol
  const seen = new Set<string>();
  const out: SymbolHit[] = [];
  for (const h of hits) {
    const key = `${h.path}\u0000${h.symbol}\u0000${h.nameRange.line}:${h.nameRange.column}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(h);
    if (out.length >= limit) break;
  }
  return out;
}
