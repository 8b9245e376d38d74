/**
 * Test-only event log: when QUARRY_E2E_LOG names a file (the end-to-end harness sets it in code-server's
 * environment), the client appends one JSON line per event (a search request sent or cancelled, an editor opened
 * for a preview or a result), so the tests can count them. Off (a no-op) otherwise.
 */
import { appendFileSync } from 'node:fs';

const file = process.env.QUARRY_E2E_LOG;

export function testLog(event: string, data: Record<string, unknown> = {}): void {
  if (!file) return;
  try {
    appendFileSync(file, JSON.stringify({ t: Date.now(), event, ...data }) + '\n');
  } catch {
    /* best effort */
  }
}
