/**
 * What the intent stages read from the stage context, and what they write on candidates.
 * The lead attaches `intent?: DetectedIntents` to StageContext and `intent?: IntentAnnotations` to Candidate;
 * until then the stages detect from `ctx.query` / `ctx.options.intent` and write through a cast.
 */
import type { Candidate, StageContext } from '../candidate';
import type { Chunk } from '../../types';
import type { QueryIntent } from './codeTask';
import type { InfoIntent } from './information';
import { detectIntents } from './detect';

/** Both vocabularies' detections for one query. */
export interface DetectedIntents {
  codeTask: QueryIntent | null;
  information: InfoIntent | null;
}

/** Optional field for StageContext: when absent, the stages detect from the query themselves. */
export interface IntentContext {
  intent?: DetectedIntents;
}

/** Optional per-candidate report (seed 004: score, similarity_score, intent_bonus and the rule that fired). */
export interface IntentAnnotations {
  /** The candidate's score min-max normalised over the candidate list, in [0, 1] (seed 004 similarity_score). */
  similarityScore?: number;
  /** Additive information-intent bonus on `similarityScore` (0 when none applied; seed 004 intent_bonus). */
  intentBonus?: number;
  /** similarityScore + intentBonus (seed 004 `score`, in normalised units). */
  finalScore?: number;
  /** Information intent in effect for the list (null when none). */
  infoIntent?: string | null;
  /** The information rule and features that fired, e.g. `RESULT: section "Results" +0.15, "%" +0.1` (null when none). */
  rule?: string | null;
  /** Code-task effect on this candidate (absent when none applied). */
  codeTask?: { intent: string; confidence: number; factor: number; rule: string };
}

export type IntentCandidate = Candidate & { intent?: IntentAnnotations };

export function annotations(c: Candidate): IntentAnnotations {
  const ic = c as IntentCandidate;
  return (ic.intent ??= {});
}

const cache = new WeakMap<object, DetectedIntents>();

/** `ctx.intent` when the pipeline attached it; otherwise detected once per context from the query. */
export function intentsOf(ctx: StageContext): DetectedIntents {
  const attached = (ctx as StageContext & IntentContext).intent;
  if (attached) return attached;
  let d = cache.get(ctx);
  if (!d) {
    d = detectIntents(ctx.query.text, ctx.options.intent ?? ctx.query.intent);
    cache.set(ctx, d);
  }
  return d;
}

/** Document/knowledge chunks (seed 004's domain): Markdown sections, text windows, any Markdown file. */
export function isDocumentChunk(chunk: Chunk): boolean {
  return chunk.kind === 'section' || chunk.kind === 'text' || chunk.language === 'markdown';
}
