/**
 * Test code ranks below the code it tests unless the query is about tests (seed 002 Example 1: "test fixtures
 * ranked lower ... for UNDERSTAND"). Test files stay in the results (`include_tests` decides that); they only
 * lose ties — a test fixture that copies a class name no longer outranks the class itself.
 *
 * The mirror image: a question that asks for the project's tests ("how is the cache eviction tested", "tests for
 * the framed transport", "where are the tests for …") ranks everything that is not a test below the tests, with the
 * same factor — the guide or the code under test that shares the question's words comes after them. A question
 * about testing one's own code ("how do I mock HTTP requests in my tests", "how to test routes without starting a
 * server") asks for the library and its guide, not its tests: the project's test files keep their demotion there.
 *
 * Among the tests, a test file named after the question's subject — every word of its name, less the test marker,
 * among the question's words: `route-prefix.test.js` for "how is prefixing routes inside plugins tested",
 * `close.test.js` for "tests for the server closing…", `test_locks.py`, `lock_test.go`, `LockTest.java` — ranks
 * ×`TEST_FILE_NAMED` higher: projects name their test files after what they test, and a question about one
 * subject otherwise met the tests that share its words in passing.
 */
import type { Stage, StageContext } from '../candidate';
import { isTestPath, isTestUnit } from '../../testPaths';
import { queryStems, stemSet } from '../../tokenize/stemSets';

export const TEST_WORDS = /\b(tests?|tested|testing|spec|specs|fixtures?|mocks?|stubs?|asserts?|unittest|pytest|jest|mocha)\b/i;

/** The query asks about tests: its code-task intent is TEST, or it names tests ("how is the cache eviction tested"). */
export function queryIsAboutTests(ctx: Pick<StageContext, 'intent' | 'query'>): boolean {
  const intent = ctx.intent?.codeTask?.intentType ?? ctx.query.intent;
  return intent === 'TEST' || TEST_WORDS.test(ctx.query.text);
}

/** Phrases that ask for the tests themselves: "X is tested", "tests for X", "where are the tests", "… X tests". */
const ASKS_FOR_TESTS = [
  /\b(is|are|was|were|being|gets?|got)\b[^.?!]*\btested\b/i,
  /\b(tests?|test cases?|test suites?|specs?) (for|of|that|which|covering|cover|checking|exercising|exercise|verifying)\b/i,
  /\bwhere are (the )?(unit |integration )?(tests|specs)\b/i,
  /(?<!\b(as|like|into|to) )\b(tests|specs)\s*\??\s*$/i,
];
/** …of one's own code: "my tests", "our tests", "in tests" — the question is about the library's testing support. */
const OWN_TESTS = /\b(my|our|your|in) (unit |integration |own )?tests?\b/i;

/** "how do I test …", "how to mock …": a how-to about testing one's own code, answered by the library and its guide. */
const HOW_TO_TEST = /\bhow (to|do|can|should|would) (i |we |you |one )?(unit[- ]?|integration[- ]?)?(test|mock|stub|fake)\b/i;

/**
 * The query is about testing one's own code ("how do I mock HTTP requests in my tests", "how to test routes without
 * starting a server"): the project's own test files are not its answer, so they keep their usual demotion.
 */
export function queryAsksHowToTest(text: string): boolean {
  return OWN_TESTS.test(text) || HOW_TO_TEST.test(text);
}

/** The query asks for the project's tests (not merely mentions testing): non-test files rank below them. */
export function queryAsksForTests(text: string): boolean {
  return !OWN_TESTS.test(text) && ASKS_FOR_TESTS.some((re) => re.test(text));
}

/** Factor of a test file named after the subject of a question that asks for tests. */
export const TEST_FILE_NAMED = 1.5;

/**
 * The words of a test file's name, less its test markers (`route-prefix.test.js` → route, prefix; `LockTest.java` →
 * lock; tsd's type tests `register.test-d.ts` → register): a word that only says "test" never names a subject.
 */
export function testFileSubject(path: string): Set<string> {
  const file = (path.split('/').pop() ?? '').replace(/\.[^.]*$/, '');
  const subject = file.replace(/([._-]?(test|tests|spec|specs)(-d)?)+$/i, '').replace(/^(test|tests|spec)[._-]/i, '');
  return new Set([...stemSet(subject)].filter((w) => w.length > 1 && !TEST_WORDS.test(w) && w !== 'test'));
}

export const testDemotionStage: Stage = {
  name: 'test-demotion',
  apply(ctx, candidates) {
    const factor = ctx.ranking.testPenalty[ctx.query.form];
    if (factor >= 1) return candidates;
    const howTo = queryIsAboutTests(ctx) && ctx.query.form === 'natural' && queryAsksHowToTest(ctx.query.text);
    if (queryIsAboutTests(ctx) && !howTo) {
      if (ctx.query.form !== 'natural' || !queryAsksForTests(ctx.query.text)) return candidates;
      const wanted = queryStems(ctx.query.text);
      for (const c of candidates) {
        if (isTestUnit(c.path, c.chunk)) {
          const subject = isTestPath(c.path) ? testFileSubject(c.path) : new Set<string>();
          if (subject.size && [...subject].every((w) => wanted.has(w))) {
            c.score *= TEST_FILE_NAMED;
            c.explanation.push(`×${TEST_FILE_NAMED} a test file named after the question's subject (${[...subject].join(', ')})`);
          }
          continue;
        }
        c.score *= factor;
        c.explanation.push(`×${factor} not a test file (the query asks for tests)`);
      }
      return candidates;
    }
    for (const c of candidates) {
      if (!isTestUnit(c.path, c.chunk)) continue;
      c.score *= factor;
      c.explanation.push(`×${factor} ${isTestPath(c.path) ? 'test file' : 'test code (a test module inside a source file)'} (${howTo ? "the query asks how to test one's own code, not for the project's tests" : 'the query is not about tests'})`);
    }
    return candidates;
  },
};
