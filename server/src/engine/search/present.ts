/**
 * Presentation of ranked candidates as the result schema every door returns (api/results.ts `CodeMatch`):
 * relevance relative to the best, match type, git and activation facts, the member an identifier names, and
 * (with explanations) the FR-6 score breakdown.
 */
import type { Candidate } from '../ranking/candidate';
import type { CodeMatch, CodeMatchType, NameRangeResult } from '../api/results';
import { memberRangeOf, nameRangeOf, type Chunk } from '../types';
import { scoreBreakdown } from './breakdown';

function matchTypeOf(c: Candidate): CodeMatchType {
  if (!c.bm25 && c.dense) return 'SEMANTIC';
  const fields = new Set(c.bm25?.matches.map((m) => m.field));
  if (fields.has('name') || fields.has('symbols')) return 'SYNTACTIC';
  if (fields.size === 1 && fields.has('path')) return 'FILE_PATTERN';
  return 'KEYWORD';
}

/** How far below the last result of a group the next group's best result is shown (see `relevances`). */
const GROUP_STEP = 0.95;

/**
 * Each result's relevance in (0, 1], never rising down the list: the first result is 1, each result is its score
 * relative to the best of its ordering group (Candidate.group: the contracts put declarations before uses,
 * implementations before the rest, phrase matches first) times where the previous group ended, one step lower. A use
 * of a name that out-scores its declaration on words is shown below the declaration, not as "more relevant" than it.
 */
export function relevances(ranked: readonly Candidate[]): number[] {
  const out: number[] = [];
  let ceiling = 1;
  let groupBest = 0;
  let group = Number.NaN;
  for (const c of ranked) {
    if ((c.group ?? 0) !== group) {
      if (out.length) ceiling = out[out.length - 1] * GROUP_STEP;
      group = c.group ?? 0;
      groupBest = c.score;
    }
    const r = groupBest > 0 ? Math.min(1, Math.max(0, c.score / groupBest)) * ceiling : 0;
    out.push(Math.round(Math.min(r, out.length ? out[out.length - 1] : 1) * 10000) / 10000);
  }
  return out;
}

export function toCodeMatch(c: Candidate, relevance: number, explain: boolean, words: readonly string[]): CodeMatch {
  const chunk = c.chunk!;
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
    why: '',
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
 * The name range of a member an identifier query named inside a chunk (`matched_symbol`, see `declaredMember`): where
 * the member is declared, from `Chunk.symbolRanges`; undefined when the chunk does not record it.
 */
export function memberNameRange(chunk: Pick<Chunk, 'symbolRanges'>, member: string): NameRangeResult | undefined {
  const r = memberRangeOf(chunk, member);
  return r ? { line: r.line, column: r.column, end_line: r.endLine, end_column: r.endColumn } : undefined;
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

