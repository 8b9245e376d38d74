/**
 * Presentation of ranked candidates as the result schema every door returns (api/results.ts `CodeMatch`):
 * relevance relative to the best, match type, git and activation facts, the member an identifier names, and
 * (with explanations) the FR-6 score breakdown.
 */
import type { Candidate } from '../ranking/candidate';
import type { CodeMatch, CodeMatchType, NameRangeResult } from '../api/results';
import { nameRangeOf, type Chunk } from '../types';
import { scoreBreakdown } from './breakdown';

function matchTypeOf(c: Candidate): CodeMatchType {
  if (!c.bm25 && c.dense) return 'SEMANTIC';
  const fields = new Set(c.bm25?.matches.map((m) => m.field));
  if (fields.has('name') || fields.has('symbols')) return 'SYNTACTIC';
  if (fields.size === 1 && fields.has('path')) return 'FILE_PATTERN';
  return 'KEYWORD';
}

export function toCodeMatch(c: Candidate, best: number, explain: boolean, words: readonly string[]): CodeMatch {
  const chunk = c.chunk!;
  const relevance = best > 0 ? Math.round((c.score / best) * 10000) / 10000 : 0;
  const related = [...new Set([...chunk.conformances, ...chunk.references])].slice(0, 12);
  return {
    file: { path: chunk.path, language: chunk.language },
    content: {
      chunk_id: chunk.id,
      content: chunk.content,
      line_range: [chunk.startLine, chunk.endLine],
      language: chunk.language,
      kind: chunk.kind,
      symbol: chunk.symbol,
      semantic_class: chunk.semanticClass,
      doc: chunk.doc,
      signature: chunk.signature,
      token_count: chunk.tokenCount,
      ...(chunk.metadata ? { metadata: { ...chunk.metadata } } : {}),
    },
    span: [chunk.startLine, chunk.endLine],
    name_range: nameRangeResult(chunk),
    relevance_score: relevance,
    score: Math.round(c.score * 10000) / 10000,
    match_type: matchTypeOf(c),
    related_symbols: related,
    explanation: explain ? c.explanation : [],
    ...gitAndActivation(c),
    ...(explain ? { score_breakdown: scoreBreakdown(c, relevance, words) } : {}),
  };
}

/** A chunk's name range in the result schema's spelling (`nameRangeOf` covers chunks stored without one). */
export function nameRangeResult(chunk: Pick<Chunk, 'nameRange' | 'startLine'>): NameRangeResult {
  const r = nameRangeOf(chunk);
  return { line: r.line, column: r.column, end_line: r.endLine, end_column: r.endColumn };
}

/**
 * The name range of a member an identifier query named inside a chunk (`matched_symbol`, see `matchedMember`): where the
 * member is declared, from `Chunk.symbolRanges`; undefined when the chunk does not record it.
 */
export function memberNameRange(chunk: Pick<Chunk, 'symbolRanges'>, member: string): NameRangeResult | undefined {
  const loose = (s: string) => s.toLowerCase().replace(/_/g, '');
  const want = loose(member.split('.').pop() ?? member);
  const r = chunk.symbolRanges?.find((x) => x.symbol === member) ?? chunk.symbolRanges?.find((x) => loose(x.name) === want);
  return r ? { line: r.range.line, column: r.range.column, end_line: r.range.endLine, end_column: r.range.endColumn } : undefined;
}

/**
 * The member of `chunk` an identifier query names when it is not the chunk's own symbol (see CodeMatch): only a member
 * declared inside the chunk's own text, whose range the chunk records (`symbolRanges`: a class kept whole). A split
 * class's unit lists its members' names too, but each member is a unit of its own: labelling the class unit
 * `Class.member` would name a result after a declaration it does not hold, and open it at the class's name (issue 18).
 */
export function matchedMember(chunk: Pick<Chunk, 'symbol' | 'symbols' | 'symbolRanges'>, query: string): string | undefined {
  const loose = (s: string) => s.toLowerCase().replace(/_/g, '');
  const want = loose(query.split(/\.|::|#/).pop() ?? query);
  if (!want || !chunk.symbol || loose(chunk.symbol.split('.').pop()!) === want) return undefined;
  const member = chunk.symbols.find((s) => loose(s.split('.').pop()!) === want);
  if (!member) return undefined;
  const qualified = member.includes('.') ? member : `${chunk.symbol}.${member}`;
  return memberNameRange(chunk, qualified) ? qualified : undefined;
}

function gitAndActivation(c: Candidate): Pick<CodeMatch, 'git' | 'activation'> {
  const a = c.activation;
  if (!a) return {};
  const out: Pick<CodeMatch, 'git' | 'activation'> = {};
  if (a.git) {
    const tracked = a.git.status === 'tracked';
    out.git = {
      status: a.git.status,
      commits: tracked ? a.git.commits : null,
      last_modified: tracked && a.git.lastModifiedMs > 0 ? new Date(a.git.lastModifiedMs).toISOString() : null,
    };
  }
  if (a.raw !== undefined) {
    out.activation = { score: a.normalized ?? 0, accesses: a.accesses, last_accessed: a.lastAccessMs ? new Date(a.lastAccessMs).toISOString() : null };
  }
  return out;
}

