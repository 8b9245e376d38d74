/**
 * The ranking pipeline: the ordered list of named stages a search runs after retrieval. Each stage is small,
 * tested on its own, writes one explanation line per effect, and can be switched off (benchmark ablations).
 *
 *   bm25 (explain) → symbol-boosts → information-intent → code-intent → activation → test-demotion → protocol-in-top-3
 *   → phrase-partition
 *   → exclude-tests → language-filter → path-filter → type-filter → exclude-words
 */
import type { Stage } from './candidate';
import { bm25ExplainStage } from './stages/bm25Explain';
import { excludeTestsStage, excludeWordsStage, languageFilterStage, pathFilterStage, typeFilterStage } from './stages/filters';
import { phrasePartitionStage } from './stages/phrases';
import { protocolInTopStage, symbolBoostStage } from './stages/symbolBoosts';
import { testDemotionStage } from './stages/testDemotion';
import { activationStage } from './stages/activation';
import { codeIntentStage, informationIntentStage } from './intents';

export function defaultStages(): Stage[] {
  return [
    bm25ExplainStage,
    symbolBoostStage,
    informationIntentStage(),
    codeIntentStage(),
    activationStage,
    testDemotionStage,
    protocolInTopStage,
    phrasePartitionStage,
    excludeTestsStage,
    languageFilterStage,
    pathFilterStage,
    typeFilterStage,
    excludeWordsStage,
  ];
}

export function stageNames(): string[] {
  return defaultStages().map((s) => s.name);
}
