/**
 * Test doubles below the code they stand in for (rule stage). A library that ships mocks, fakes or stubs for its
 * users' tests (undici's `lib/mock/`, a `static_mock.go` built without cgo, httpx's `MockTransport`) repeats the
 * names and words of the real code in them, so a description of the real behaviour met the double first ("how does an
 * agent route each request to a per-origin connection pool": `mock-agent.js` before `agent.js`). A description that
 * does not speak of mocking, faking, stubbing or tests scores a test double (`testPaths.ts` `isTestDoublePath`)
 * ×`TEST_DOUBLE_FACTOR`; one that does, an identifier query, a structural one ("what implements X": a double that implements X is an
 * answer) and a test file (test-demotion's business) are left alone.
 */
import type { Stage } from '../candidate';
import { isTestDoublePath, isTestPath } from '../../testPaths';
import { TEST_WORDS } from './testDemotion';

/** Words of a question about test doubles or tests: the doubles are then answers. */
const ASKS_ABOUT_DOUBLES = /\b(mock\w*|fakes?|faked|faking|stub\w*|doubles?|dummy|dummies|spy|spies)\b/i;

/** Factor of a test double for a description that does not ask about doubles or tests. */
export const TEST_DOUBLE_FACTOR = 0.8;

export function asksAboutTestDoubles(text: string): boolean {
  return ASKS_ABOUT_DOUBLES.test(text) || TEST_WORDS.test(text);
}

export const testDoublesStage: Stage = {
  name: 'test-doubles',
  apply(ctx, candidates) {
    if (ctx.query.form !== 'natural' || ctx.query.target || asksAboutTestDoubles(ctx.query.text)) return candidates;
    for (const c of candidates) {
      if (!isTestDoublePath(c.path) || isTestPath(c.path)) continue;
      c.score *= TEST_DOUBLE_FACTOR;
      c.explanation.push(`×${TEST_DOUBLE_FACTOR} a test double (mock, fake or stub) the description does not ask about`);
    }
    return candidates;
  },
};
