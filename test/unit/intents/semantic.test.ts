import assert from 'node:assert/strict';
import {
  AGENT_TASKS,
  AGENT_TASK_PROFILES,
  FR019_MULTIPLIERS,
  IMPORTANCE_DIMENSIONS,
  IMPORTANCE_SCORES,
  INTENT_TO_AGENT_TASK,
  SEMANTIC_TIERS,
  SUGGESTED_EXTRA_MULTIPLIERS,
  agentTaskFor,
  multiplierFor,
  multiplierRuleFor,
  taskImportance,
  tierOf,
} from '../../../server/src/engine/ranking/intents';
import { INTENT_TYPES } from '../../../server/src/engine/api/results';
import type { SemanticClass } from '../../../server/src/engine/types';

/** Every SemanticClass a Quarry chunk can carry (types.ts). */
const CLASSES: SemanticClass[] = [
  'DEFINITION_CALLABLE', 'DEFINITION_TYPE', 'DEFINITION_DATA', 'DEFINITION_TEST',
  'BOUNDARY_MODULE', 'BOUNDARY_ERROR', 'BOUNDARY_RESOURCE', 'DOCUMENTATION_STRUCTURED',
  'FLOW_BRANCHING', 'FLOW_ITERATION', 'FLOW_CONTROL', 'FLOW_ASYNC',
  'OPERATION_INVOCATION', 'OPERATION_DATA', 'OPERATION_OPERATOR', 'EXPRESSION_ANONYMOUS',
];

describe('intents/semantic: SemanticClass tiers, ImportanceScores, AgentTask, FR-019', () => {
  it('five tiers as seed 002 lists them', () => {
    assert.deepEqual(CLASSES.map(tierOf), [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4]);
    assert.equal(tierOf('SYNTAX_LITERAL'), 5);
    assert.equal(tierOf('NOT_A_CLASS'), null);
    assert.equal(new Set(Object.values(SEMANTIC_TIERS)).size, 5);
  });

  it('ImportanceScores for every class, in [0, 1]; DEFINITION_TYPE discovery 0.95 (Example 1)', () => {
    for (const c of CLASSES) {
      const s = IMPORTANCE_SCORES[c];
      assert.ok(s, c);
      for (const d of IMPORTANCE_DIMENSIONS) assert.ok(s[d] >= 0 && s[d] <= 1, `${c}.${d}`);
    }
    assert.equal(IMPORTANCE_SCORES.DEFINITION_TYPE.discovery, 0.95);
    assert.ok(IMPORTANCE_SCORES.DEFINITION_TYPE.discovery > IMPORTANCE_SCORES.DEFINITION_TEST.discovery);
    assert.ok(IMPORTANCE_SCORES.BOUNDARY_ERROR.debugging > IMPORTANCE_SCORES.DEFINITION_TYPE.debugging);
    assert.ok(IMPORTANCE_SCORES.DOCUMENTATION_STRUCTURED.documentation >= 0.9);
  });

  it('AgentTask profiles: DEBUG exactly as seed 002; all nine tasks; each sums to 1', () => {
    assert.deepEqual(AGENT_TASK_PROFILES.DEBUG, { discovery: 0.2, comprehension: 0.3, modification: 0.1, debugging: 0.35, documentation: 0.05 });
    assert.deepEqual([...AGENT_TASKS].sort(), Object.keys(AGENT_TASK_PROFILES).sort());
    for (const t of AGENT_TASKS) {
      const sum = IMPORTANCE_DIMENSIONS.reduce((n, d) => n + AGENT_TASK_PROFILES[t][d], 0);
      assert.ok(Math.abs(sum - 1) < 1e-9, `${t} sums to ${sum}`);
    }
    // The profile that cares most about a dimension is the task named for it.
    const argmax = (d: (typeof IMPORTANCE_DIMENSIONS)[number]) => AGENT_TASKS.reduce((a, b) => (AGENT_TASK_PROFILES[b][d] > AGENT_TASK_PROFILES[a][d] ? b : a));
    assert.equal(argmax('debugging'), 'DEBUG');
    assert.equal(argmax('documentation'), 'DOCUMENT');
    assert.equal(argmax('discovery'), 'SEARCH');
    assert.equal(argmax('modification'), 'LOCAL_EDIT');
  });

  it('IntentType → AgentTask for every IntentType; unknown → DEFAULT', () => {
    for (const i of INTENT_TYPES) assert.ok(AGENT_TASKS.includes(INTENT_TO_AGENT_TASK[i] as never), i);
    assert.equal(agentTaskFor('DEBUG'), 'DEBUG');
    assert.equal(agentTaskFor('MYSTERY'), 'DEFAULT');
    assert.equal(agentTaskFor(null), 'DEFAULT');
  });

  it('taskImportance = Σ importance × profile', () => {
    const imp = IMPORTANCE_SCORES.FLOW_BRANCHING;
    const p = AGENT_TASK_PROFILES.DEBUG;
    const expected = imp.discovery * p.discovery + imp.comprehension * p.comprehension + imp.modification * p.modification + imp.debugging * p.debugging + imp.documentation * p.documentation;
    assert.ok(Math.abs(taskImportance('FLOW_BRANCHING', 'DEBUG') - expected) < 1e-12);
    assert.ok(taskImportance('BOUNDARY_ERROR', 'DEBUG') > taskImportance('DOCUMENTATION_STRUCTURED', 'DEBUG'));
    assert.ok(taskImportance('DEFINITION_TYPE', 'SEARCH') > taskImportance('DEFINITION_TEST', 'SEARCH'));
  });

  describe('FR-019 multipliers, every intent × every class', () => {
    const expected: Record<string, (c: string) => number> = {
      UNDERSTAND: (c) => (c === 'DEFINITION_TEST' ? 1.0 : c.startsWith('DEFINITION_') ? 1.5 : 1), // Example 1 keeps tests at 1.0
      IMPLEMENT: (c) => (c.startsWith('DEFINITION_') || c.startsWith('BOUNDARY_') ? 1.3 : 1),
      DEBUG: (c) => (c.startsWith('FLOW_') || c.startsWith('OPERATION_') ? 1.4 : 1),
      TEST: (c) => (c === 'DEFINITION_TEST' ? 2.0 : 1),
      OPTIMIZE: () => 1,
      CONFIGURE: () => 1,
      DOCUMENT: () => 1,
      SOMETHING_NEW: () => 1,
    };
    for (const [intent, f] of Object.entries(expected)) {
      it(intent, () => {
        for (const c of CLASSES) assert.equal(multiplierFor(intent, c), f(c), `${intent} × ${c}`);
      });
    }
    it('the most specific row wins, regardless of table order', () => {
      const rules = [
        { intent: 'X', match: 'DEFINITION_TEST', factor: 3, source: 't' },
        { intent: 'X', match: 'DEFINITION_*', factor: 2, source: 't' },
      ];
      assert.equal(multiplierFor('X', 'DEFINITION_TEST', rules), 3);
      assert.equal(multiplierFor('X', 'DEFINITION_TYPE', rules), 2);
      assert.equal(multiplierRuleFor('X', 'FLOW_ASYNC', rules), null);
      assert.equal(multiplierRuleFor('UNDERSTAND', 'DEFINITION_TYPE')?.source, 'FR-019');
    });
    it('suggested extra rows are off by default and opt-in', () => {
      assert.equal(multiplierFor('DOCUMENT', 'DOCUMENTATION_STRUCTURED'), 1);
      assert.equal(multiplierFor('DOCUMENT', 'DOCUMENTATION_STRUCTURED', [...FR019_MULTIPLIERS, ...SUGGESTED_EXTRA_MULTIPLIERS]), 1.3);
    });
  });
});
