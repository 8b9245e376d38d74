/** Folders that hold tests, fixtures and test data, at any depth. */
const TEST_DIR = /(^|\/)(tests?|__tests__|specs?|testing|testdata|fixtures|e2e)\//i;
/** Test file names: `test_x.py`, `conftest.py`, `x_test.go`, `x.test.ts`, `x.spec.js`, `XTests.swift`, `XSpec.kt`. */
const TEST_FILE =
  /(^|\/)(test_[^/]*|conftest\.py|[^/]*(_test|_spec|\.test|\.spec|Tests?|Spec)\.[A-Za-z0-9]+)$/;

/** Whether a workspace-relative path is a test file (by the conventions of the common ecosystems). */
export function isTestPath(path: string): boolean {
  return TEST_DIR.test(path) || TEST_FILE.test(path);
}

/**
 * Rust's unit tests live beside the code they test: a `#[cfg(test)] mod tests { … }` block inside the source file, and
 * functions marked `#[test]` (`#[tokio::test]`, `#[async_std::test]`). Such a unit is test code though its path is not
 * a test path (hyper's `proto/h1/dispatch.rs` holds `tests.client_read_bytes_before_writing_request`).
 */
const RUST_TEST_ATTRIBUTE = /^(?:[ \t]*(?:\/\/[^\n]*|#\[[^\]\n]*\])?\n)*[ \t]*#\[(?:cfg\(test\)|(?:[A-Za-z_]\w*::)*test)\]/;

export function isInlineTest(chunk: { language: string; container?: string; content: string }): boolean {
  if (chunk.language !== 'rust') return false;
  if (chunk.container && chunk.container.split(/\.|::/).some((s) => s === 'tests' || s === 'test')) return true;
  return RUST_TEST_ATTRIBUTE.test(chunk.content);
}

/** Whether a unit is test code: in a test file, or a test inside a source file (`isInlineTest`). */
export function isTestUnit(path: string, chunk?: { language: string; container?: string; content: string }): boolean {
  return isTestPath(path) || (!!chunk && isInlineTest(chunk));
}

/**
 * Test doubles a library ships beside its code: a folder of them (`mock/`, `mocks/`, `__mocks__/`, `fakes/`,
 * `stubs/`) or a file named as one (`mock-agent.js`, `mock_transport.py`, `static_mock.go`, `FakeClock.java`,
 * `mock.py`). They are library code, not tests, and they copy the vocabulary of what they stand in for: undici's
 * `lib/mock/mock-agent.js` answered "how does an agent route each request to a per-origin connection pool" before
 * `lib/dispatcher/agent.js`.
 */
const DOUBLE_DIR = /(^|\/)(__mocks__|mocks?|fakes?|stubs?)\//i;
const DOUBLE_FILE = /(^|\/)((mock|fake|stub)s?([-_.][^/]*)?|[^/]*[-_](mock|fake|stub)s?(\.[^/]*)?|(Mock|Fake|Stub)[A-Z][^/]*)$/;

export function isTestDoublePath(path: string): boolean {
  return DOUBLE_DIR.test(path) || DOUBLE_FILE.test(path);
}
