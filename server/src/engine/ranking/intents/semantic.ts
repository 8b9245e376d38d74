/**
 * Seed 002's semantic weighting data: SemanticClass tiers, ImportanceScores per class, AgentTask
 * weight profiles, the IntentType → AgentTask mapping and the FR-019 multiplier table. Everything
 * here is a plain table exported as a default, so configuration can replace or extend any row.
 */

export type ImportanceDimension = 'discovery' | 'comprehension' | 'modification' | 'debugging' | 'documentation';
export type ImportanceScores = Record<ImportanceDimension, number>;
export const IMPORTANCE_DIMENSIONS: readonly ImportanceDimension[] = ['discovery', 'comprehension', 'modification', 'debugging', 'documentation'];

/** Seed 002 SemanticClass, five tiers (tier 5, syntax, is listed for completeness; Quarry's chunks never carry it). */
export const SEMANTIC_TIERS: Readonly<Record<string, 1 | 2 | 3 | 4 | 5>> = {
  DEFINITION_CALLABLE: 1,
  DEFINITION_TYPE: 1,
  DEFINITION_DATA: 1,
  DEFINITION_TEST: 1,
  BOUNDARY_MODULE: 2,
  BOUNDARY_ERROR: 2,
  BOUNDARY_RESOURCE: 2,
  DOCUMENTATION_STRUCTURED: 2,
  FLOW_BRANCHING: 3,
  FLOW_ITERATION: 3,
  FLOW_CONTROL: 3,
  FLOW_ASYNC: 3,
  OPERATION_INVOCATION: 4,
  OPERATION_DATA: 4,
  OPERATION_OPERATOR: 4,
  EXPRESSION_ANONYMOUS: 4,
  SYNTAX_KEYWORD: 5,
  SYNTAX_IDENTIFIER: 5,
  SYNTAX_LITERAL: 5,
  SYNTAX_ANNOTATION: 5,
  SYNTAX_PUNCTUATION: 5,
};

export const TIER_NAMES = ['', 'Primary Definitions', 'Behavioral Contracts', 'Control Flow', 'Operations', 'Syntax'] as const;

/** Tier of a class (1..5), or null for a class this table does not know. */
export function tierOf(semanticClass: string): number | null {
  return SEMANTIC_TIERS[semanticClass] ?? null;
}

const s = (discovery: number, comprehension: number, modification: number, debugging: number, documentation: number): ImportanceScores => ({
  discovery,
  comprehension,
  modification,
  debugging,
  documentation,
});

/** ImportanceScores per class. DEFINITION_TYPE discovery 0.95 (seed 002 Example 1); the rest are Quarry's estimates. */
export const IMPORTANCE_SCORES: Readonly<Record<string, ImportanceScores>> = {
  DEFINITION_CALLABLE: s(0.9, 0.85, 0.8, 0.7, 0.8),
  DEFINITION_TYPE: s(0.95, 0.9, 0.75, 0.6, 0.85),
  DEFINITION_DATA: s(0.75, 0.7, 0.65, 0.5, 0.6),
  DEFINITION_TEST: s(0.4, 0.5, 0.45, 0.6, 0.35),
  BOUNDARY_MODULE: s(0.7, 0.6, 0.55, 0.4, 0.55),
  BOUNDARY_ERROR: s(0.65, 0.7, 0.55, 0.9, 0.6),
  BOUNDARY_RESOURCE: s(0.6, 0.7, 0.65, 0.8, 0.55),
  DOCUMENTATION_STRUCTURED: s(0.6, 0.8, 0.3, 0.35, 0.95),
  FLOW_BRANCHING: s(0.4, 0.65, 0.55, 0.8, 0.35),
  FLOW_ITERATION: s(0.35, 0.6, 0.5, 0.75, 0.3),
  FLOW_CONTROL: s(0.3, 0.55, 0.45, 0.8, 0.25),
  FLOW_ASYNC: s(0.45, 0.7, 0.55, 0.85, 0.4),
  OPERATION_INVOCATION: s(0.45, 0.55, 0.5, 0.75, 0.35),
  OPERATION_DATA: s(0.4, 0.5, 0.55, 0.7, 0.3),
  OPERATION_OPERATOR: s(0.25, 0.45, 0.4, 0.6, 0.2),
  EXPRESSION_ANONYMOUS: s(0.3, 0.5, 0.45, 0.6, 0.25),
  SYNTAX_KEYWORD: s(0.15, 0.2, 0.1, 0.2, 0.1),
  SYNTAX_IDENTIFIER: s(0.2, 0.25, 0.15, 0.3, 0.1),
  SYNTAX_LITERAL: s(0.15, 0.2, 0.15, 0.25, 0.1),
  SYNTAX_ANNOTATION: s(0.25, 0.3, 0.2, 0.2, 0.3),
  SYNTAX_PUNCTUATION: s(0.05, 0.05, 0.05, 0.1, 0.05),
};

/** Neutral scores for a class the table does not know. */
export const DEFAULT_IMPORTANCE: ImportanceScores = s(0.5, 0.5, 0.5, 0.5, 0.5);

export const AGENT_TASKS = ['DEBUG', 'DEFAULT', 'DOCUMENT', 'IMPLEMENT', 'LOCAL_EDIT', 'REFACTOR', 'REVIEW', 'SEARCH', 'TEST'] as const;
export type AgentTask = (typeof AGENT_TASKS)[number];

/** AgentTask weight profiles (each sums to 1). DEBUG exactly as seed 002 gives it; the others are Quarry's. */
export const AGENT_TASK_PROFILES: Readonly<Record<string, ImportanceScores>> = {
  DEBUG: s(0.2, 0.3, 0.1, 0.35, 0.05),
  DEFAULT: s(0.25, 0.25, 0.2, 0.15, 0.15),
  DOCUMENT: s(0.2, 0.2, 0.05, 0.05, 0.5),
  IMPLEMENT: s(0.3, 0.3, 0.3, 0.05, 0.05),
  LOCAL_EDIT: s(0.15, 0.3, 0.45, 0.05, 0.05),
  REFACTOR: s(0.2, 0.35, 0.35, 0.05, 0.05),
  REVIEW: s(0.2, 0.4, 0.15, 0.15, 0.1),
  SEARCH: s(0.5, 0.25, 0.1, 0.05, 0.1),
  TEST: s(0.25, 0.3, 0.15, 0.25, 0.05),
};

/** IntentType → AgentTask (an intent not listed uses DEFAULT). */
export const INTENT_TO_AGENT_TASK: Readonly<Record<string, string>> = {
  UNDERSTAND: 'SEARCH',
  IMPLEMENT: 'IMPLEMENT',
  DEBUG: 'DEBUG',
  OPTIMIZE: 'REFACTOR',
  TEST: 'TEST',
  CONFIGURE: 'LOCAL_EDIT',
  DOCUMENT: 'DOCUMENT',
};

export function agentTaskFor(intent: string | null | undefined, mapping: Readonly<Record<string, string>> = INTENT_TO_AGENT_TASK): string {
  return (intent && mapping[intent]) || 'DEFAULT';
}

/** Weighted importance of a class for a task: Σ importance[d] · profile[d] (in [0, 1] for a profile summing to 1). */
export function taskImportance(
  semanticClass: string,
  task: string,
  importance: Readonly<Record<string, ImportanceScores>> = IMPORTANCE_SCORES,
  profiles: Readonly<Record<string, ImportanceScores>> = AGENT_TASK_PROFILES,
): number {
  const imp = importance[semanticClass] ?? DEFAULT_IMPORTANCE;
  const prof = profiles[task] ?? profiles.DEFAULT ?? AGENT_TASK_PROFILES.DEFAULT;
  let sum = 0;
  for (const d of IMPORTANCE_DIMENSIONS) sum += imp[d] * prof[d];
  return sum;
}

/**
 * One multiplier row: `match` is an exact class (`DEFINITION_TEST`) or a prefix wildcard (`DEFINITION_*`).
 * The most specific matching row wins (exact over wildcard, longer prefix over shorter, then table order).
 */
export interface MultiplierRule {
  intent: string;
  match: string;
  factor: number;
  /** Where the row comes from, for explanations and review. */
  source: string;
}

/** Seed 002 FR-019 weighting rules. */
export const FR019_MULTIPLIERS: readonly MultiplierRule[] = [
  { intent: 'UNDERSTAND', match: 'DEFINITION_*', factor: 1.5, source: 'FR-019' },
  // Example 1: "DEFINITION_TEST has lower weight for UNDERSTAND intent" (test fixtures rank below the definitions).
  { intent: 'UNDERSTAND', match: 'DEFINITION_TEST', factor: 1.0, source: 'FR-019 Example 1' },
  { intent: 'IMPLEMENT', match: 'DEFINITION_*', factor: 1.3, source: 'FR-019' },
  { intent: 'IMPLEMENT', match: 'BOUNDARY_*', factor: 1.3, source: 'FR-019' },
  { intent: 'DEBUG', match: 'FLOW_*', factor: 1.4, source: 'FR-019' },
  { intent: 'DEBUG', match: 'OPERATION_*', factor: 1.4, source: 'FR-019' },
  { intent: 'TEST', match: 'DEFINITION_TEST', factor: 2.0, source: 'FR-019' },
];

/**
 * Rows the seed does not give, for the intents FR-019 leaves unweighted. NOT applied by default;
 * pass `[...FR019_MULTIPLIERS, ...SUGGESTED_EXTRA_MULTIPLIERS]` to try them.
 */
export const SUGGESTED_EXTRA_MULTIPLIERS: readonly MultiplierRule[] = [
  { intent: 'DOCUMENT', match: 'DOCUMENTATION_STRUCTURED', factor: 1.3, source: 'Quarry (suggested)' },
  { intent: 'CONFIGURE', match: 'DEFINITION_DATA', factor: 1.3, source: 'Quarry (suggested)' },
  { intent: 'OPTIMIZE', match: 'FLOW_ITERATION', factor: 1.2, source: 'Quarry (suggested)' },
];

function specificity(match: string, semanticClass: string): number {
  if (match === semanticClass) return Number.MAX_SAFE_INTEGER;
  if (match.endsWith('*') && semanticClass.startsWith(match.slice(0, -1))) return match.length - 1;
  return -1;
}

/** The rule that applies to (intent, class), or null (factor 1). */
export function multiplierRuleFor(intent: string, semanticClass: string, rules: readonly MultiplierRule[] = FR019_MULTIPLIERS): MultiplierRule | null {
  let best: MultiplierRule | null = null;
  let bestSpec = -1;
  for (const r of rules) {
    if (r.intent !== intent) continue;
    const spec = specificity(r.match, semanticClass);
    if (spec > bestSpec) {
      best = r;
      bestSpec = spec;
    }
  }
  return best;
}

export function multiplierFor(intent: string, semanticClass: string, rules: readonly MultiplierRule[] = FR019_MULTIPLIERS): number {
  return multiplierRuleFor(intent, semanticClass, rules)?.factor ?? 1;
}
