/**
 * The ranking pipeline: the whole order of a search, in one list. Retrieval (retrieval/hybrid.ts) hands over the
 * candidates of every channel (BM25 fields, dense, the conformance index) with their fused score; then
 *
 *   score      learned-scorer       the learned scorer's relevance becomes the base score (off: the fused score)
 *   rules      bm25 → symbol-boosts → information-intent → code-intent → activation → test-demotion → release-notes
 *              → constructors → members-over-outlines
 *                                   the seeds' formulas on that base (boosts ×, bonuses +), each explained; then a
 *                                   description of behaviour lands on the code that does it rather than on a
 *                                   constructor, and on a class's member rather than on its outline
 *   contracts  implements-partition → declarations-first → callers-first → phrase-partition
 *                                   the orderings the seeds promise (and, for a bare identifier, its declarations
 *                                   before its uses), as groups nothing later reorders
 *   filters    exclude-tests → language-filter → path-filter → type-filter → exclude-words → collapse-pieces
 *   cut        relevance-cutoff     an identifier's list ends where whole-name matches end
 *
 * and the final order is (group, score, id) — `compareCandidates` — cut to the limit by the caller. Every stage is
 * named, can be switched off (`SearchOptions.disabledStages`, the benchmark's ablations) and writes its own lines
 * into each candidate's explanation. With the learned scorer off, the rule stages alone satisfy every seed scenario.
 */
import type { AsyncStage, Candidate, Stage, StageContext } from './candidate';
import { compareCandidates } from './candidate';
import { bm25ExplainStage } from './stages/bm25Explain';
import { collapsePiecesStage, excludeTestsStage, excludeWordsStage, languageFilterStage, pathFilterStage, typeFilterStage } from './stages/filters';
import { phrasePartitionStage } from './stages/phrases';
import { symbolBoostStage } from './stages/symbolBoosts';
import { implementsPartitionStage } from './stages/implementsPartition';
import { declarationsFirstStage } from './stages/declarationsFirst';
import { callersFirstStage } from './stages/callersFirst';
import { testDemotionStage } from './stages/testDemotion';
import { testDoublesStage } from './stages/testDoubles';
import { releaseNotesStage } from './stages/releaseNotes';
import { activationStage } from './stages/activation';
import { learnedScorerStage } from './stages/learnedScorer';
import { membersOverOutlinesStage } from './stages/membersOverOutlines';
import { constructorsStage } from './stages/constructors';
import { relevanceCutoffStage } from './stages/relevanceCutoff';
import { codeIntentStage, informationIntentStage } from './intents';

export type StepKind = 'score' | 'rule' | 'contract' | 'filter' | 'cut';

export interface PipelineStep {
  kind: StepKind;
  stage: Stage | AsyncStage;
}

export function searchPipeline(): PipelineStep[] {
  const step = (kind: StepKind, stage: Stage | AsyncStage): PipelineStep => ({ kind, stage });
  return [
    step('score', learnedScorerStage),
    step('rule', bm25ExplainStage),
    step('rule', symbolBoostStage),
    step('rule', informationIntentStage()),
    step('rule', codeIntentStage()),
    step('rule', activationStage),
    step('rule', testDemotionStage),
    step('rule', testDoublesStage),
    step('rule', releaseNotesStage),
    step('rule', constructorsStage),
    step('rule', membersOverOutlinesStage),
    step('contract', implementsPartitionStage),
    step('contract', declarationsFirstStage),
    step('contract', callersFirstStage),
    step('contract', phrasePartitionStage),
    step('filter', excludeTestsStage),
    step('filter', languageFilterStage),
    step('filter', pathFilterStage),
    step('filter', typeFilterStage),
    step('filter', excludeWordsStage),
    step('filter', collapsePiecesStage),
    step('cut', relevanceCutoffStage),
  ];
}

/** The rule, contract, filter and cut stages (the synchronous part of the pipeline), in order. */
export function defaultStages(): Stage[] {
  return searchPipeline()
    .filter((s) => s.kind !== 'score')
    .map((s) => s.stage as Stage);
}

export function stageNames(): string[] {
  return searchPipeline().map((s) => s.stage.name);
}

/**
 * Runs the pipeline over retrieval's candidates and returns them in their final order. `disabled` names stages to
 * skip. A stage's candidates are passed in score order (ties by id), as the stages that look at ranks expect.
 */
export async function runPipeline(ctx: StageContext, candidates: Candidate[], disabled: ReadonlySet<string> = new Set(), steps = searchPipeline()): Promise<Candidate[]> {
  let out = [...candidates].sort(compareCandidates);
  for (const { stage } of steps) {
    if (disabled.has(stage.name)) continue;
    out = await stage.apply(ctx, out);
  }
  out.sort(compareCandidates);
  // explanations end with the final order, which is what the user sees (earlier lines speak of stage-local ranks)
  const grouped = out.some((c) => (c.group ?? 0) !== 0);
  const second = ctx.query.form === 'identifier' ? 'not a declaration of the name' : 'not an implementation';
  out.forEach((c, i) => c.explanation.push(`final #${i + 1}: score ${Math.round(c.score * 1000) / 1000}${grouped ? `, group ${c.group ?? 0} (${groupName(c.group ?? 0, second)})` : ''}`));
  return out;
}

/** The contract partitions' groups in words (see Candidate.group). */
function groupName(group: number, second: string): string {
  const phrase = group >= 10 ? 'missing a quoted phrase' : '';
  const impl = group % 10 >= 1 ? second : '';
  return [phrase, impl].filter(Boolean).join(', ') || 'first';
}
