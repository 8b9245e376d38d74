/**
 * Runs the in-editor suite (test/e2e/suite) in a desktop VS Code through @vscode/test-electron, on a machine that
 * can download VS Code (NOT these build machines: see README.md). Usage:
 *
 *   npm i --no-save @vscode/test-electron@2 && node scripts/build.mjs && npx tsx test/e2e/runDesktop.ts
 */
import { cpSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

type RunTests = (o: { extensionDevelopmentPath: string; extensionTestsPath: string; launchArgs?: string[]; version?: string }) => Promise<number>;

async function main(): Promise<void> {
  const root = resolve(__dirname, '..', '..');
  let runTests: RunTests;
  try {
    runTests = (createRequire(join(root, 'package.json'))('@vscode/test-electron') as { runTests: RunTests }).runTests;
  } catch {
    throw new Error('@vscode/test-electron is not installed: npm i --no-save @vscode/test-electron@2');
  }
  const ws = mkdtempSync(join(tmpdir(), 'quarry-ws-'));
  cpSync(join(root, 'test', 'fixtures', 'polyglot'), ws, { recursive: true });
  await runTests({
    extensionDevelopmentPath: root,
    extensionTestsPath: join(root, 'dist', 'e2e', 'suite', 'index.js'),
    launchArgs: [ws, '--disable-extensions', '--disable-workspace-trust'],
    version: process.env.VSCODE_VERSION ?? 'stable',
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
