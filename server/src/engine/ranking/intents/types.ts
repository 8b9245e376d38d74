/**
 * The intent types the stage contract carries (StageContext.intent, Candidate.intent): a module of types only, so
 * that ranking/candidate.ts can name them without importing the intent stages.
 */
import type { QueryIntent } from './codeTask';
import type { InfoIntent } from './information';

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

