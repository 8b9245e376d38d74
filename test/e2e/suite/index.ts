/**
 * In-editor test entry (the layout @vscode/test-electron and code-server's `extensionTestsPath` expect):
 * `run()` mocha-runs the compiled `*.test.js` files next to this one inside the extension host.
 * Built by scripts/build.mjs into dist/e2e/suite/.
 *
 * When QUARRY_E2E_RESULTS names a file (test/e2e/run.ts sets it in code-server's environment, which the extension
 * host inherits), each test's outcome is written there as JSON so the runner can count them one by one.
 */
import Mocha from 'mocha';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface Outcome {
  title: string;
  state: 'passed' | 'failed';
  ms: number;
  error?: string;
}

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 180_000, color: false, reporter: 'spec' });
  for (const f of readdirSync(__dirname).sort()) if (f.endsWith('.test.js')) mocha.addFile(join(__dirname, f));
  const outcomes: Outcome[] = [];
  let total = 0;
  const resultsFile = process.env.QUARRY_E2E_RESULTS;
  const save = (done: boolean) => {
    if (!resultsFile) return;
    try {
      writeFileSync(resultsFile, JSON.stringify({ done, total, outcomes }, null, 2));
    } catch (e) {
      console.error(`could not write ${resultsFile}: ${(e as Error).message}`);
    }
  };
  save(false);
  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        save(true);
        if (failures) reject(new Error(`${failures} in-editor test(s) failed`));
        else resolve();
      });
      total = runner.total;
      const { EVENT_TEST_PASS, EVENT_TEST_FAIL } = Mocha.Runner.constants;
      runner.on(EVENT_TEST_PASS, (t: Mocha.Test) => {
        outcomes.push({ title: t.fullTitle(), state: 'passed', ms: t.duration ?? 0 });
        save(false);
      });
      // Also fires for a failed hook (its title says which); `total` lets the runner count the tests it kept from running.
      runner.on(EVENT_TEST_FAIL, (t: Mocha.Runnable, err: Error) => {
        outcomes.push({ title: t.fullTitle(), state: 'failed', ms: t.duration ?? 0, error: String(err?.stack ?? err).slice(0, 4000) });
        save(false);
      });
    } catch (e) {
      save(true);
      reject(e);
    }
  });
}
