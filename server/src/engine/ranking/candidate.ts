/**
 * The one candidate type that flows through the ranking pipeline, and the stage contract:
 * a stage is a small named step `(context, candidates) → candidates` that may change scores, must
 * append one explanation line per effect, and can be switched off for ablations.
 */
import type { Chunk } from '../types';
import type { TermMatch } from '../store/lexical/lexicalIndex';
import type { ParsedQuery } from './query';

export interface Candidate {
  id: string;
  path: string;
  /** Filled by the hydrate step; stages after it may rely on it. */
  chunk?: Chunk;
  score: number;
  bm25?: { score: number; matches: TermMatch[] };
  /** Dense channel: cosine similarity and rank among the dense neighbours (0 when scored outside the kNN). */
  dense?: { similarity: number; rank: number };
  explanation: string[];
}

export interface SearchOptions {
  limit: number;
  includeTests: boolean;
  languages?: string[];
  intent?: string | null;
}

export interface StageContext {
  query: ParsedQuery;
  options: SearchOptions;
}

export interface Stage {
  name: string;
  apply(ctx: StageContext, candidates: Candidate[]): Candidate[];
}

export function runStages(stages: readonly Stage[], ctx: StageContext, candidates: Candidate[], disabled: ReadonlySet<string> = new Set()): Candidate[] {
  let out = candidates;
  for (const stage of stages) if (!disabled.has(stage.name)) out = stage.apply(ctx, out);
  return out;
}
