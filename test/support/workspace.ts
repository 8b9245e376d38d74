/** Helpers for tests that need a real workspace on disk and the real CLI. */
import { cpSync, mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const CLI = join(REPO_ROOT, 'dist', 'cli.js');

export function tempDir(prefix = 'quarry-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Copies a fixture folder into a fresh temp directory and returns its path. */
export function copyFixture(name: string): string {
  const dir = tempDir(`quarry-${name.replace(/[^\w-]+/g, '-')}-`);
  cpSync(join(REPO_ROOT, 'test', 'fixtures', name), dir, { recursive: true });
  return dir;
}

/** Writes files (path → content) under root, creating folders. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (`dist/cli.js`) in a separate process. */
export function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { ...process.env, ...opts.env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
