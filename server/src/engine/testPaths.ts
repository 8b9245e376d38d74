/** Whether a workspace-relative path is a test file (by the conventions of the common ecosystems). */
const TEST_DIR = /(^|\/)(tests?|__tests__|specs?|testing|testdata|fixtures|e2e)\//i;
const TEST_FILE =
  /(^|\/)(test_[^/]*|conftest\.py|[^/]*(_test|_spec|\.test|\.spec|Tests?|Spec)\.[A-Za-z0-9]+)$/;

export function isTestPath(path: string): boolean {
  return TEST_DIR.test(path) || TEST_FILE.test(path);
}
