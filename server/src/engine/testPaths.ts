/** Whether a workspace-relative path is a test file (by the conventions of the common ecosystems). */
const TEST_DIR = /(^|\/)(tests?|__tests__|specs?|testing|testdata|fixtures|e2e)\//i;
const TEST_FILE = /(^|\/)(test_[^/]*\.py|[^/]*_test\.(py|go|rb|exs?|cc|cpp|c)|[^/]*\.(test|spec)\.[cm]?[jt]sx?|[^/]*(Test|Tests|Spec)\.(java|kt|cs|swift|scala|php)|[^/]*_spec\.rb|conftest\.py)$/;

export function isTestPath(path: string): boolean {
  return TEST_DIR.test(path) || TEST_FILE.test(path);
}
