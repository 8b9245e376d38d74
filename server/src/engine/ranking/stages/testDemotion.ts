/**
 * Test code ranks below the code it tests unless the query is about tests (seed 002 Example 1: "test fixtures
 * ranked lower ... for UNDERSTAND"). Test files stay in the results (`include_tests` decides that); they only
 * lose ties — a test fixture that copies a class name no longer outranks the class itself.
 */
import type { Stage, StageContext } from '../candidate';
import { isTestPath } from '../../testPaths';

export const TEST_WORDS = /\b(tests?|tested|testing|spec|specs|fixtures?|mocks?|stubs?|asserts?|unittest|pytest|jest|mocha)\b/i;

/** The query asks about tests: its code-task intent is TEST, or it names tests ("how is the cache eviction tested"). */
export function queryIsAboutTests(ctx: Pick<StageContext, 'intent' | 'query'>): boolean {
  const intent = ctx.intent?.codeTask?.intentType ?? ctx.query.intent;
  return intent === 'TEST' || TEST_WORDS.test(ctx.query.text);
}

export const testDemotionStage: Stage = {
  name: 'test-demotion',
  apply(ctx, candidates) {
    if (queryIsAboutTests(ctx)) return candidates;
    const factor = ctx.ranking.testPenalty[ctx.query.form];
    if (factor >= 1) return candidates;
    for (const c of candidates) {
      if (!isTestPath(c.path)) continue;
      c.score *= factor;
      c.explanation.push(`×${factor} test file (the query is not about tests)`);
    }
    return candidates;
  },
};
