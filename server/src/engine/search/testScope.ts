/**
 * Whether a search includes test files. An explicit true/false always wins; `'auto'` (MCP's default for an omitted
 * `include_tests`) includes them only when the query is about tests — its code-task intent is TEST, or it names
 * tests ("how is the cache eviction tested") — and leaves them out otherwise (seed 002 FR-014a's default false).
 * Omitted altogether (the CLI and editor defaults): included; test-demotion ranks them below the code they test.
 */
import type { ParsedQuery } from '../ranking/query';
import type { DetectedIntents } from '../ranking/intents';
import { queryIsAboutTests } from '../ranking/stages/testDemotion';

export function includeTestsFor(requested: boolean | 'auto' | undefined, parsed: ParsedQuery, intent: DetectedIntents): boolean {
  if (requested === true || requested === false) return requested;
  if (requested === 'auto') return queryIsAboutTests({ query: parsed, intent });
  return true;
}
