import assert from 'node:assert/strict';
import { isInlineTest, isTestPath, isTestUnit } from '../../server/src/engine/testPaths';
import { testDemotionStage } from '../../server/src/engine/ranking/stages/testDemotion';
import { excludeTestsStage } from '../../server/src/engine/ranking/stages/filters';
import { chunk, candidate, stageContext } from '../support/chunks';

describe('isTestPath', () => {
  it('recognises test files and folders across ecosystems', () => {
    for (const p of ['tests/test_auth.py', 'src/auth_test.go', 'web/a.test.tsx', 'web/a.spec.js', 'src/test/java/FooTest.java',
      'Sources/AppTests/UserTests.swift', 'spec/models/user_spec.rb', 'pkg/conftest.py', 'lib/__tests__/x.js', 'test_utils.py', 'e2e/login.ts']) {
      assert.ok(isTestPath(p), p);
    }
  });
  it('leaves ordinary sources alone', () => {
    for (const p of ['src/latest.ts', 'src/contest.py', 'src/testing_utils_impl/../x.ts'.replace('/../', '/'), 'src/attestation.go', 'lib/protest.rb', 'src/Testimony.java']) {
      assert.ok(!isTestPath(p), p);
    }
  });
});

describe('Rust tests inside source files', () => {
  const rust = (name: string, container: string, content: string) => chunk({ kind: 'function', name, symbol: container ? `${container}.${name}` : name, container, path: 'src/proto/h1/dispatch.rs', language: 'rust', content });
  const inModule = rust('client_read_bytes_before_writing_request', 'tests', 'fn client_read_bytes_before_writing_request() {\n    let _ = pretty_env_logger::try_init();\n}');
  const marked = rust('parses_chunk_size', '', '/// A chunk size line.\n#[tokio::test]\nasync fn parses_chunk_size() {}');
  const cfgModule = chunk({ kind: 'module', name: 'tests', path: 'src/client/pool.rs', language: 'rust', content: '#[cfg(test)]\nmod tests {\n    use super::*;\n}' });
  const code = rust('poll_loop', 'Dispatcher', 'fn poll_loop(&mut self, cx: &mut Context<\'_>) -> Poll<crate::Result<()>> {\n    // a #[test] in a comment is not an attribute\n    Poll::Pending\n}');

  it('a unit in a `tests` module, or marked #[test] / #[tokio::test] / #[cfg(test)], is a test; other code and other languages are not', () => {
    for (const c of [inModule, marked, cfgModule]) assert.ok(isInlineTest(c), c.symbol);
    assert.ok(!isInlineTest(code));
    assert.ok(!isInlineTest({ ...inModule, language: 'python' }), 'only Rust puts its tests in a `tests` module of the source file');
    assert.ok(isTestUnit('tests/integration.rs') && isTestUnit(inModule.path, inModule) && !isTestUnit(code.path, code));
  });

  it('ranks below the code for a question that is not about tests, and is left out when tests are not included', () => {
    const test = candidate(inModule, 10);
    const impl = candidate(code, 8);
    testDemotionStage.apply(stageContext('how is an HTTP/1 connection driven from reading the request to writing the response'), [test, impl]);
    assert.ok(test.score < 10 && impl.score === 8, `${test.score} ${impl.score}`);
    assert.match(test.explanation.join('\n'), /test code \(a test module inside a source file\)/);
    const ctx = stageContext('poll loop');
    const kept = excludeTestsStage.apply({ ...ctx, options: { ...ctx.options, includeTests: false } }, [candidate(inModule, 3), candidate(code, 2)]);
    assert.deepEqual(kept.map((c) => c.chunk!.symbol), ['Dispatcher.poll_loop']);
  });
});
