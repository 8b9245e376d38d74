/**
 * The one candidate type that flows through the ranking pipeline, and the stage contract:
 * a stage is a small named step `(context, candidates) → candidates` that may change scores, must
 * append one explanation line per effect, and can be switched off for ablations.
 */
import type { Chunk } from '../types';
import type { TermMatch } from '../store/lexical/lexicalIndex';
import type { ParsedQuery } from './query';
import type { RankingConfig } from '../config/schema';
import type { DetectedIntents, IntentAnnotations } from './intents/types';
import type { SearchStrategy } from '../api/results';

export interface ActivationFacts {
  /** ACT-R base-level activation; undefined without evidence. */
  raw?: number;
  /** Normalised within the search's candidates, [0, 1] (set by the activation stage). */
  normalized?: number;
  accesses: number;
  lastAccessMs?: number;
  /** Git history of the chunk's lines (index time). */
  git?: { status: 'tracked' | 'untracked' | 'unavailable'; commits: number; lastModifiedMs: number; computedAt?: number };
}

/** `Candidate.conformsVia` of a Go type that satisfies X only through methods promoted from an embedded field. */
export const EMBEDDED_FIELD = 'an embedded field';

export interface Candidate {
  id: string;
  path: string;
  /** Filled by the hydrate step; stages after it may rely on it. */
  chunk?: Chunk;
  score: number;
  /**
   * Keyword channel: the score, its terms and, for a description, the factor its words' other fields were counted
   * by (`bm25.wordOverlap`; absent = every field summed, which is then what the terms add up to).
   */
  bm25?: { score: number; matches: TermMatch[]; wordOverlap?: number };
  /** Dense channel: cosine similarity and rank among the dense neighbours (0 when scored outside the kNN). */
  dense?: { similarity: number; rank: number };
  /** The factor retrieval put on the dense similarity of a prose chunk (`retrieval.denseProseFactor`), when it did. */
  denseDiscount?: number;
  /** Found through the conformance index ("what implements X"). */
  conformsTo?: string;
  /**
   * Set when the conformance is indirect: the sub-interface or superclass in between (`DescribedPolicy`), or
   * `EMBEDDED_FIELD` for a Go type whose every method of X is promoted from an embedded field.
   */
  conformsVia?: string;
  /**
   * Ordering group, ascending, set by the contract partitions (seed 001: results containing every quoted phrase
   * before the others, +10 for the rest; seed 000: for "what implements X", the implementations and X's definition
   * before the other results, +1 for the rest; for a bare identifier, the units declaring it before those that use it,
   * +1 for the rest — the two forms never meet); within a group, score decides. Undefined = 0.
   */
  group?: number;
  /**
   * Activation evidence (filled by the engine before the stages: accesses, git history) and, after the activation
   * stage, its value min-max normalised within the candidates.
   */
  activation?: ActivationFacts;
  /** What the intent stages did (seed 004: similarity_score, intent_bonus, rule; FR-019 factor). */
  intent?: IntentAnnotations;
  explanation: string[];
}

/** The pipeline's order: group first (phrase partition), then score, then id for determinism. */
export function compareCandidates(a: Candidate, b: Candidate): number {
  return (a.group ?? 0) - (b.group ?? 0) || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export interface SearchOptions {
  limit: number;
  includeTests: boolean;
  languages?: string[];
  intent?: string | null;
  /** Chunk types to keep (seed 003 `--type`), applied after ranking. */
  types?: string[];
  /** Include each result's score breakdown (default true). */
  explain?: boolean;
  /** Stages to switch off (benchmark ablations). */
  disabledStages?: string[];
  /**
   * Every shown result gets each channel's score, also when the search did not need a channel (an identifier query
   * skips the dense one): `--show-scores`. Costs a query embedding.
   */
  completeScores?: boolean;
}

/** What stages may ask the index. */
export interface IndexStats {
  /**
   * Occurrences of a whole identifier (lower-cased) in the indexed text (seed 000's "appears N times in index"),
   * counted up to `cap`: exact below it, `cap` at or above it.
   */
  identifierOccurrences(identifier: string, cap: number): number;
}

export interface StageContext {
  query: ParsedQuery;
  options: SearchOptions;
  ranking: RankingConfig;
  stats: IndexStats;
  /** Intents detected once per search (or given explicitly); the intent stages read them. */
  intent?: DetectedIntents;
  /** True when staged fusion already weighed activation in (the activation stage then only normalises). */
  stagedActivation?: boolean;
  /** The learned scorer (a reranker) of the `learned-scorer` stage; absent or null = the rule formulas alone. */
  scorer?: CandidateScorer | null;
  scorerOptions?: { candidates: number; weight: number; keepFusedBest?: number; keepKeywordBest?: number };
  /** What stages add to the answer: strategies used and warnings (never silent). */
  effects?: { strategy: SearchStrategy[]; warnings: string[] };
}

/**
 * What the learned-scorer stage needs of a reranker (embedding/types.ts `Reranker` has this shape): scores for
 * candidates (Quarry's own model) or for their texts (a remote or cross-encoder reranker).
 */
export interface CandidateScorer {
  readonly id: string;
  /** Trained on lists where both channels served: a one-channel search keeps its order. */
  readonly needsBothChannels?: boolean;
  /** Scores for these candidates, in their order: higher is more relevant, compared within this list only. */
  scoreCandidates?(query: ParsedQuery, candidates: readonly Candidate[]): number[];
  rerank(query: string, documents: string[], topK: number): Promise<Array<{ index: number; score: number }>>;
}

export interface Stage {
  name: string;
  apply(ctx: StageContext, candidates: Candidate[]): Candidate[];
}

/** A stage that waits on something (the learned scorer may call a service). */
export interface AsyncStage {
  name: string;
  apply(ctx: StageContext, candidates: Candidate[]): Promise<Candidate[]>;
}

export function runStages(stages: readonly Stage[], ctx: StageContext, candidates: Candidate[], disabled: ReadonlySet<string> = new Set()): Candidate[] {
  let out = candidates;
  for (const stage of stages) if (!disabled.has(stage.name)) out = stage.apply(ctx, out);
  return out;
}
