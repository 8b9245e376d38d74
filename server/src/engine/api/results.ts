/**
 * The one result schema every door returns (seed 002 FR-014b `FindCodeResponseSummary`).
 * Field names are the seed's (snake_case) so the CLI's `--format json`, `codeSearch/find` and MCP's
 * `find_code` serialize the same object.
 */

export { INTENT_TYPES, type IntentType } from './intentTypes';

export type CodeMatchType = 'SEMANTIC' | 'SYNTACTIC' | 'KEYWORD' | 'FILE_PATTERN';
export type SearchStrategy = 'HYBRID_SEARCH' | 'SEMANTIC_RERANK' | 'SPARSE_ONLY' | 'DENSE_ONLY' | 'KEYWORD_FALLBACK';

/** The per-result score breakdown (seed 003 FR-6), built by search/breakdown.ts. */
export interface ScoreBreakdown {
  /** The relevance shown to users (score relative to the best match), [0, 1]. */
  final: number;
  bm25?: { score: number; reason: string; exact: boolean };
  semantic?: { similarity: number; reason: string };
  activation?: { score: number; reason: string };
  git?: string;
}

export interface MatchFile {
  path: string;
  language: string;
}

export interface MatchContent {
  chunk_id: string;
  content: string;
  line_range: [number, number];
  language: string;
  kind: string;
  symbol: string;
  semantic_class: string;
  doc: string;
  signature: string;
  token_count: number;
  /**
   * Source-specific facts, present only when the chunk has them: conversation-log phases (seed 003 FR-3.4) carry
   * `source_file`, `topic`, `conversation_date`, `query`, `phase_number`, `phase_name`; their `symbol` is the seed's
   * knowledge chunk id `conv-{filename}-phase{N}`.
   */
  metadata?: Record<string, string | number>;
}

/**
 * Where a result is named: 1-based line, 1-based column in UTF-16 code units (as editors count), exclusive end column.
 * For a declaration, its identifier; for a Markdown section, the heading title; for unnamed code, its first own line.
 */
export interface NameRangeResult {
  line: number;
  column: number;
  end_line: number;
  end_column: number;
}

export interface CodeMatch {
  file: MatchFile;
  content: MatchContent;
  /** 1-based inclusive line range of the unit (what is shown and highlighted). */
  span: [number, number];
  /** Where the unit's name is (issue 18): what opening a result, `path:line:col` and LSP locations point at. */
  name_range: NameRangeResult;
  /** Score relative to the best match of this search, in [0, 1]. */
  relevance_score: number;
  /** The raw ranking score (BM25 sum with boosts), for comparisons within one search. */
  score: number;
  match_type: CodeMatchType;
  related_symbols: string[];
  /**
   * Why the result is here, in plain words for people (issue 19): "defines `parse`", "declares `Store.fetch`",
   * "implements `Observer`", "contains "a phrase"", "matches 3 of 4 words (in its name)", "similar in meaning (no
   * shared words)"; "documentation · …" and "… · test" mark documents and tests (search/why.ts).
   */
  why: string;
  /** One line per ranking effect: what it did, by how much, why. */
  explanation: string[];
  /**
   * Git history of the chunk's lines (seed 003 FR-5.3/5.4), computed at index time: commits touching them and the
   * last modification (ISO). `untracked`: not in git; `unavailable`: git failed. Absent for knowledge and reasoning
   * chunks and before the git pass has run.
   */
  git?: { status: 'tracked' | 'untracked' | 'unavailable'; commits: number | null; last_modified: string | null };
  /**
   * Activation (seed 003 FR-6.4): `score` normalised within this search's candidates, times the chunk was opened
   * or reported used, and the last time (ISO). Absent when nothing is known about the chunk.
   */
  activation?: { score: number; accesses: number; last_accessed: string | null };
  /**
   * For an identifier query that names a member of this chunk rather than its main symbol (a small class is kept
   * whole, so `chunk_id` finds `BaseChunk`): the member, qualified (`BaseChunk.chunk_id`).
   */
  matched_symbol?: string;
  /** The FR-6 breakdown shown by `--show-scores`, tooltips and MCP text (search/breakdown.ts); with explanations only. */
  score_breakdown?: ScoreBreakdown;
}

export interface FindCodeResponseSummary {
  matches: CodeMatch[];
  /** At most 1000 characters. */
  summary: string;
  query_intent: string | null;
  /**
   * Candidates that matched before ranking and truncation. Exact on small indexes; on large ones the lexical channel
   * stops counting once its top-k is settled and estimates the rest from a fixed sample per segment (median error
   * about 2% at 100k–1M chunks; store/lexical/lexicalIndex.ts).
   */
  total_matches: number;
  total_results: number;
  /** Tokens of the returned chunk contents. */
  token_count: number;
  execution_time_ms: number;
  search_strategy: SearchStrategy[];
  languages_found: string[];
  /** Degraded modes and notes (never silent). */
  warnings: string[];
  /** Hints when nothing was found (seed 002 Example 3). */
  suggestions: string[];
  /** Index size the search ran over. */
  searched: { chunks: number; files: number };
}
