/**
 * A question that asks for the project's tests ("where are the tests for rejecting __proto__ in JSON bodies", "how is
 * prefixing routes tested") is best answered by the test file named after its subject: projects name test files
 * after what they test (`proto-poisoning.test.js`, `route_prefix_test.go`, `test_close.py`). A test file whose
 * name's words (less the test markers) appear in the question is multiplied by 1 + boost × the share of its name's
 * words the question has (stems compared, so "closing" meets `close.test.js`). Only when the question asks for
 * tests (the same rule as test-demotion's mirror); the factor is `ranking.testSubjectBoost` (0 = off).
 */
import type { Stage } from '../candidate';
import { isTestPath } from '../../testPaths';
import { queryAsksForTests } from './testDemotion';
import { FUNCTION_WORDS, identifierParts, stemOf, words } from '../../tokenize/codeTokenizer';
import { stemSet } from '../../tokenize/stemSets';

/** Words of a test file's name that say it is a test, not what it tests. */
const TEST_MARKERS = new Set(['test', 'tests', 'spec', 'specs', 'unit', 'integration', 'e2e', 'it', 'd']);

/**
 * What a test file's name says it tests, stem → the name's word: `test/route-prefix.test.js` → {rout: route,
 * prefix: prefix}.
 */
export function testSubjectStems(path: string): Map<string, string> {
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.[A-Za-z0-9]+$/, '');
  const out = new Map<string, string>();
  for (const word of words(base.replace(/[._-]+/g, ' '))) {
    for (const part of identifierParts(word)) {
      const stem = stemOf(part);
      if (part.length > 1 && !TEST_MARKERS.has(part) && !FUNCTION_WORDS.has(part) && !out.has(stem)) out.set(stem, part);
    }
  }
  return out;
}

export const testSubjectStage: Stage = {
  name: 'test-subject',
  apply(ctx, candidates) {
    const boost = ctx.ranking.testSubjectBoost;
    if (!(boost > 0) || ctx.query.form !== 'natural' || !queryAsksForTests(ctx.query.text)) return candidates;
    const asked = stemSet(ctx.query.text);
    const byPath = new Map<string, { factor: number; matched: string[] }>();
    for (const c of candidates) {
      if (!isTestPath(c.path)) continue;
      let hit = byPath.get(c.path);
      if (!hit) {
        const subject = testSubjectStems(c.path);
        const matched = [...subject].filter(([stem]) => asked.has(stem)).map(([, part]) => part);
        hit = { factor: subject.size && matched.length ? 1 + (boost * matched.length) / subject.size : 1, matched };
        byPath.set(c.path, hit);
      }
      if (hit.factor === 1) continue;
      c.score *= hit.factor;
      c.explanation.push(`×${Math.round(hit.factor * 100) / 100} test file named after the question's subject (${hit.matched.join(', ')})`);
    }
    return candidates;
  },
};
