/**
 * The two intent stages (stage contract of ../candidate):
 *  - codeIntentStage: seed 002 FR-019 — multiplies code chunks' scores by the multiplier of their
 *    SemanticClass for the query's code-task intent (optionally × an ImportanceScores·AgentTask factor).
 *  - informationIntentStage: seed 004 — adds the information-intent bonus to document/knowledge chunks
 *    on the min-max normalised similarity (final = similarity + bonus), and reports both on every candidate.
 * Both do nothing for an absent, unknown or low-confidence intent, are deterministic (stable re-sort by
 * score) and are linear in the number of candidates (well under 1 ms for 100; see the timing test).
 */
import type { Candidate, Stage } from '../candidate';
import { quote, round3 } from './cues';
import { type IntentAnnotations, annotations, intentsOf, isDocumentChunk } from './context';
import type { QueryIntent } from './codeTask';
import { type InfoIntent, infoBonus } from './information';
import {
  AGENT_TASK_PROFILES,
  FR019_MULTIPLIERS,
  IMPORTANCE_SCORES,
  INTENT_TO_AGENT_TASK,
  type ImportanceScores,
  type MultiplierRule,
  agentTaskFor,
  multiplierRuleFor,
  taskImportance,
} from './semantic';

/** Seed 004 §1.1: retrieve 2 × top_k candidates for the intent re-ranking. */
export const INFO_CANDIDATE_FACTOR = 2;
export const candidatePoolSize = (topK: number): number => Math.max(0, Math.ceil(topK)) * INFO_CANDIDATE_FACTOR;

const byScore = (list: Candidate[]): Candidate[] =>
  list
    .map((c, i) => [c, i] as const)
    .sort((a, b) => b[0].score - a[0].score || a[1] - b[1])
    .map(([c]) => c);

const intentLabel = (intent: { confidence: number; cues: string[]; source: string }): string =>
  intent.source === 'explicit' ? 'explicit' : `${round3(intent.confidence)}: ${quote(intent.cues)}`;

// ---------------------------------------------------------------------------------------------
// Code-task intent (seed 002)

export interface CodeIntentParams {
  /** FR-019 table (replace or extend from configuration). */
  rules: readonly MultiplierRule[];
  /** A detected intent below this confidence has no effect (an explicit one has confidence 1). */
  minConfidence: number;
  /**
   * Strength of the optional ImportanceScores × AgentTask factor: 1 + w · (taskImportance − neutral).
   * 0 (default) switches it off; FR-019's multipliers alone reproduce seed 002's examples.
   */
  importanceWeight: number;
  importanceNeutral: number;
  importance: Readonly<Record<string, ImportanceScores>>;
  profiles: Readonly<Record<string, ImportanceScores>>;
  intentToTask: Readonly<Record<string, string>>;
}

export const DEFAULT_CODE_INTENT_PARAMS: CodeIntentParams = {
  rules: FR019_MULTIPLIERS,
  minConfidence: 0.4,
  importanceWeight: 0,
  importanceNeutral: 0.5,
  importance: IMPORTANCE_SCORES,
  profiles: AGENT_TASK_PROFILES,
  intentToTask: INTENT_TO_AGENT_TASK,
};

/** Applies a code-task intent to candidates (pure except for the candidates it updates). */
export function applyCodeIntent(candidates: Candidate[], intent: QueryIntent | null, params: Partial<CodeIntentParams> = {}): Candidate[] {
  const p = { ...DEFAULT_CODE_INTENT_PARAMS, ...params };
  if (!intent || !(intent.confidence >= p.minConfidence)) return candidates;
  const task = agentTaskFor(intent.intentType, p.intentToTask);
  let changed = false;
  for (const c of candidates) {
    const chunk = c.chunk;
    if (!chunk || isDocumentChunk(chunk)) continue;
    const rule = multiplierRuleFor(intent.intentType, chunk.semanticClass, p.rules);
    const mult = rule?.factor ?? 1;
    let imp = 1;
    let impText = '';
    if (p.importanceWeight > 0) {
      const ti = taskImportance(chunk.semanticClass, task, p.importance, p.profiles);
      imp = 1 + p.importanceWeight * (ti - p.importanceNeutral);
      impText = ` × importance ${round3(imp)} (${task} ${round3(ti)})`;
    }
    const factor = mult * imp;
    if (factor === 1) continue;
    c.score *= factor;
    changed = true;
    const ruleText = rule && mult !== 1 ? `${rule.intent} ${rule.match} ×${rule.factor} (${rule.source})` : 'none';
    annotations(c).codeTask = { intent: intent.intentType, confidence: intent.confidence, factor: round3(factor), rule: ruleText };
    c.explanation.push(`intent ${intent.intentType} (${intentLabel(intent)}) ×${round3(mult)} for ${chunk.semanticClass}${impText}`);
  }
  return changed ? byScore(candidates) : candidates;
}

export function codeIntentStage(params: Partial<CodeIntentParams> = {}): Stage {
  return {
    name: 'code-intent',
    apply(ctx, candidates) {
      return applyCodeIntent(candidates, intentsOf(ctx).codeTask, params);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Information intent (seed 004)

export interface InformationIntentParams {
  /** A detected intent below this confidence adds no bonus (seed 004 §2.6). */
  minConfidence: number;
}

export const DEFAULT_INFORMATION_INTENT_PARAMS: InformationIntentParams = { minConfidence: 0.4 };

/**
 * Seed 004 re-ranking over `candidates`: similarity = score min-max normalised over the list; document
 * chunks get final = similarity + bonus, mapped back to the score scale (score += bonus · range) so that
 * code candidates, whose scores are unchanged, stay comparable. Every candidate is annotated.
 */
export function applyInformationIntent(candidates: Candidate[], intent: InfoIntent | null, params: Partial<InformationIntentParams> = {}): Candidate[] {
  const p = { ...DEFAULT_INFORMATION_INTENT_PARAMS, ...params };
  if (!candidates.length) return candidates;
  let min = Infinity;
  let max = -Infinity;
  for (const c of candidates) {
    if (c.score < min) min = c.score;
    if (c.score > max) max = c.score;
  }
  const range = max - min;
  // All equal (or one candidate): similarity 1, and a bonus is worth `bonus` on the score scale of max.
  const scale = range > 0 ? range : Math.abs(max) || 1;
  const active = intent && intent.rule && intent.confidence >= p.minConfidence ? intent : null;
  let changed = false;
  for (const c of candidates) {
    const sim = range > 0 ? (c.score - min) / range : 1;
    const a: IntentAnnotations = annotations(c);
    a.similarityScore = round3(sim);
    a.intentBonus = 0;
    a.finalScore = round3(sim);
    a.infoIntent = active ? active.intent : null;
    a.rule = null;
    if (!active || !c.chunk || !isDocumentChunk(c.chunk)) continue;
    const chunk = c.chunk;
    const { bonus, fired } = infoBonus(active.rule!, { text: chunk.content, section: chunk.symbol || chunk.name, startLine: chunk.startLine });
    if (bonus <= 0) continue;
    c.score += bonus * scale;
    changed = true;
    a.intentBonus = bonus;
    a.finalScore = round3(sim + bonus);
    a.rule = `${active.intent}: ${fired.join(', ')}`;
    c.explanation.push(
      `intent ${active.intent} (${intentLabel(active)}) +${bonus} [${fired.join(', ')}] on similarity ${round3(sim)} → ${round3(sim + bonus)}`,
    );
  }
  return changed ? byScore(candidates) : candidates;
}

export function informationIntentStage(params: Partial<InformationIntentParams> = {}): Stage {
  return {
    name: 'information-intent',
    apply(ctx, candidates) {
      return applyInformationIntent(candidates, intentsOf(ctx).information, params);
    },
  };
}

/** Seed 004 end to end on an already retrieved pool (ideally candidatePoolSize(topK) long): re-rank, keep top_k. */
export function informationRerank(candidates: Candidate[], intent: InfoIntent | null, topK: number, params: Partial<InformationIntentParams> = {}): Candidate[] {
  return byScore(applyInformationIntent(candidates, intent, params)).slice(0, Math.max(0, topK));
}
