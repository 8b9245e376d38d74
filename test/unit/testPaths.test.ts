import assert from 'node:assert/strict';
import { isTestPath } from '../../server/src/engine/testPaths';

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
