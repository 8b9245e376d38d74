/**
 * In-editor test entry (the layout @vscode/test-electron and code-server's `extensionTestsPath` expect):
 * `run()` mocha-runs the compiled `*.test.js` files next to this one inside the extension host.
 * Built by scripts/build.mjs into dist/e2e/suite/.
 */
import Mocha from 'mocha';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 180_000, color: false, reporter: 'spec' });
  for (const f of readdirSync(__dirname).sort()) if (f.endsWith('.test.js')) mocha.addFile(join(__dirname, f));
  return new Promise((resolve, reject) => {
    try {
      mocha.run((failures) => (failures ? reject(new Error(`${failures} in-editor test(s) failed`)) : resolve()));
    } catch (e) {
      reject(e);
    }
  });
}
