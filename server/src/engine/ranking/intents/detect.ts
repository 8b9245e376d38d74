/** Detection of both vocabularies at once. */
import { type CodeTaskConfig, detectCodeTaskIntent } from './codeTask';
import { type InfoConfig, detectInformationIntent } from './information';
import type { DetectedIntents } from './types';

export interface DetectConfig {
  codeTask?: Partial<CodeTaskConfig>;
  information?: Partial<InfoConfig>;
}

/**
 * Detects the code-task intent (seed 002) and the information intent (seed 004) of a query.
 * `explicitIntent` (case-insensitive) pins whichever vocabulary knows it with confidence 1;
 * a string neither knows is accepted and ignored (FR-028).
 */
export function detectIntents(queryText: string, explicitIntent?: string | null, config: DetectConfig = {}): DetectedIntents {
  return {
    codeTask: detectCodeTaskIntent(queryText, explicitIntent, config.codeTask),
    information: detectInformationIntent(queryText, explicitIntent, config.information),
  };
}
