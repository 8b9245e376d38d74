/**
 * The ranking pipeline: the ordered list of stages a search runs after retrieval.
 * Later capabilities (symbol and conformance boosts, phrases, intents, activation, rerank) add stages here.
 */
import type { Stage } from './candidate';
import { bm25ExplainStage } from './stages/bm25Explain';
import { excludeTestsStage, languageFilterStage } from './stages/filters';

export function defaultStages(): Stage[] {
  return [bm25ExplainStage, excludeTestsStage, languageFilterStage];
}
