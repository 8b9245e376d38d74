import assert from 'node:assert/strict';
import { isTestDoublePath } from '../../../server/src/engine/testPaths';
import { asksAboutTestDoubles, TEST_DOUBLE_FACTOR, testDoublesStage } from '../../../server/src/engine/ranking/stages/testDoubles';
import { chunk, candidate, stageContext } from '../../support/chunks';

describe('test doubles below the code they stand in for', () => {
  it('knows a test double by its folder or its file name, in every convention', () => {
    for (const p of ['lib/mock/mock-agent.js', 'types/mock-agent.d.ts', 'static_mock.go', 'httpx/_transports/mock.py', 'src/FakeClock.java', 'src/fake_clock.go', 'pkg/mocks/store.go', 'src/__mocks__/fs.js', 'src/MockAgent.ts', 'stubs/server.rb']) {
      assert.ok(isTestDoublePath(p), p);
    }
    for (const p of ['lib/dispatcher/agent.js', 'src/mockery.js', 'lib/mocker.ts', 'src/stubborn.go', 'src/Mocha.js', 'mockServiceWorker.js', 'src/unmock.ts']) {
      assert.equal(isTestDoublePath(p), false, p);
    }
  });

  it('tells descriptions that ask about doubles or tests from the rest', () => {
    for (const q of ['find the recorded fake reply that matches a request', 'mock implementations of Client and Pool', 'how to stub the clock', 'how is the agent tested']) assert.ok(asksAboutTestDoubles(q), q);
    for (const q of ['how does an agent route each request to a per-origin connection pool', 'retry a failed request with backoff']) assert.equal(asksAboutTestDoubles(q), false, q);
  });

  it(`a test double is scored ×${TEST_DOUBLE_FACTOR} for a description of the real behaviour, with a line saying why`, () => {
    const mock = candidate(chunk({ kind: 'method', name: 'MockAgent.dispatch', path: 'lib/mock/mock-agent.js', content: 'dispatch(opts, handler) {}' }), 10);
    const real = candidate(chunk({ kind: 'method', name: 'Agent.dispatch', path: 'lib/dispatcher/agent.js', content: 'dispatch(opts, handler) {}' }), 9);
    const testFile = candidate(chunk({ kind: 'function', name: 'setup', path: 'test/mock/helpers.js', content: 'function setup() {}' }), 8);
    testDoublesStage.apply(stageContext('how does an agent route each request to a per-origin connection pool'), [mock, real, testFile]);
    assert.equal(mock.score, 10 * TEST_DOUBLE_FACTOR);
    assert.match(mock.explanation.join('\n'), /a test double \(mock, fake or stub\) the description does not ask about/);
    assert.equal(real.score, 9);
    assert.equal(testFile.score, 8, "a test file is the test-demotion stage's business");
  });

  it('identifiers, structural questions and questions about doubles leave them alone', () => {
    for (const q of ['MockAgent', 'what implements Dispatcher', 'error classes derived from UndiciError', 'find the recorded fake reply that matches a request']) {
      const mock = candidate(chunk({ kind: 'class', name: 'MockAgent', path: 'lib/mock/mock-agent.js', conformances: ['Dispatcher'], content: 'class MockAgent extends Dispatcher {}' }), 10);
      testDoublesStage.apply(stageContext(q), [mock]);
      assert.equal(mock.score, 10, q);
    }
  });
});
