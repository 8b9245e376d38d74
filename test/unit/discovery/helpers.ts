/**
 * Shared helpers for the discovery tests: temporary trees, and an isolated git environment (HOME,
 * XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL, no system config) so no test reads or touches the real user's
 * git configuration.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DiscoveryConfigSchema, type DiscoveryConfig } from '../../../server/src/engine/config/schema';
import { clearGlobalExcludesCache } from '../../../server/src/engine/discovery';

export function config(overrides: Partial<DiscoveryConfig> = {}): DiscoveryConfig {
  return DiscoveryConfigSchema.parse(overrides);
}

export function tmpDir(prefix = 'quarry-disc-'): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/** Write files: `{ 'a/b.ts': 'text' }`; a Buffer value is written as is. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  const made = new Set<string>();
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    const dir = path.dirname(abs);
    if (!made.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    fs.writeFileSync(abs, content);
  }
}

const ENV_KEYS = ['HOME', 'XDG_CONFIG_HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_SYSTEM', 'GIT_DIR', 'GIT_WORK_TREE'] as const;

export interface GitEnv {
  home: string;
  /** Restore the previous environment and delete the fake home. */
  restore(): void;
}

/** Point HOME / XDG / global git config at a fresh temporary home (process-wide, restored by `restore`). */
export function isolateGitEnv(): GitEnv {
  const saved = new Map<string, string | undefined>(ENV_KEYS.map((k) => [k, process.env[k]]));
  const home = tmpDir('quarry-home-');
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = path.join(home, '.config');
  process.env.GIT_CONFIG_GLOBAL = path.join(home, '.gitconfig');
  process.env.GIT_CONFIG_NOSYSTEM = '1';
  delete process.env.GIT_CONFIG_SYSTEM;
  delete process.env.GIT_DIR;
  delete process.env.GIT_WORK_TREE;
  fs.writeFileSync(process.env.GIT_CONFIG_GLOBAL, '[user]\n\tname = t\n\temail = t@example.com\n');
  clearGlobalExcludesCache();
  return {
    home,
    restore() {
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      clearGlobalExcludesCache();
      if (!process.env.QUARRY_KEEP_TMP) fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Untracked, not-ignored files according to git (paths relative to `cwd`). */
export function gitUntracked(cwd: string): string[] {
  return git(cwd, 'ls-files', '--others', '--exclude-standard', '-z')
    .split('\0')
    .filter(Boolean)
    .sort();
}

export function rmrf(p: string): void {
  fs.rmSync(p, { recursive: true, force: true });
}

/** Deterministic PRNG (mulberry32). */
export { prng } from '../../../bench/metrics';
