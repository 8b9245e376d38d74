/** Folders that hold tests, fixtures and test data, at any depth. */
const TEST_DIR = /(^|\/)(tests?|__tests__|specs?|testing|testdata|fixtures|e2e)\//i;
/** Test file names: `test_x.py`, `conftest.py`, `x_test.go`, `x.test.ts`, `x.spec.js`, `XTests.swift`, `XSpec.kt`. */
const TEST_FILE =
  /(^|\/)(test_[^/]*|conftest\.py|[^/]*(_test|_spec|\.test|\.spec|Tests?|Spec)\.[A-Za-z0-9]+)$/;

/** Whether a workspace-relative path is a test file (by the conventions of the common ecosystems). */
export function isTestPath(path: string): boolean {
  return TEST_DIR.test(path) || TEST_FILE.test(path);
}
