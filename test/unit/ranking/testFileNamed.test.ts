import assert from 'node:assert/strict';
import { testDemotionStage, testFileSubject, TEST_FILE_NAMED } from '../../../server/src/engine/ranking/stages/testDemotion';
import { chunk, candidate, stageContext } from '../../support/chunks';

const unit = (path: string, score: number) => candidate(chunk({ kind: 'function', name: `t${score}`, path, language: 'javascript', content: "test('x', () => {})" }), score);

describe('questions that ask for tests: the test file named after the subject', () => {
  it('reads a test file\'s subject from its name in every convention', () => {
    assert.deepEqual([...testFileSubject('test/route-prefix.test.js')].sort(), ['prefix', 'rout']);
    assert.deepEqual([...testFileSubject('tests/test_locks.py')], ['lock']);
    assert.deepEqual([...testFileSubject('pkg/lock_test.go')], ['lock']);
    assert.deepEqual([...testFileSubject('src/test/java/LockTest.java')], ['lock']);
    assert.deepEqual([...testFileSubject('spec/close_spec.rb')], ['close']);
    // tsd's type tests; a name that is only test words names no subject
    assert.deepEqual([...testFileSubject('test/types/register.test-d.ts')], ['regist']);
    assert.deepEqual([...testFileSubject('test/test_helpers_test.py')], ['helper']);
    assert.deepEqual([...testFileSubject('test/test_test.py')], []);
  });

  it('ranks it higher when every word of its name is in the question, with a line saying why', () => {
    const named = unit('test/route-prefix.test.js', 4);
    const other = unit('test/hooks.test.js', 5);
    const partial = unit('test/route-constraints.test.js', 4);
    testDemotionStage.apply(stageContext('how is prefixing routes inside registered plugins tested'), [named, other, partial]);
    assert.equal(named.score, 4 * TEST_FILE_NAMED);
    assert.equal(other.score, 5);
    assert.equal(partial.score, 4, 'one word of its name (constraints) is not in the question');
    assert.match(named.explanation.join('\n'), /a test file named after the question's subject \(rout, prefix\)|a test file named after the question's subject \(prefix, rout\)/);
  });

  it('only for questions that ask for the tests', () => {
    const named = unit('test/route-prefix.test.js', 4);
    testDemotionStage.apply(stageContext('prefixing routes inside registered plugins'), [named]);
    assert.ok(named.score < 4, 'a question that is not about tests demotes test files');
  });
});
