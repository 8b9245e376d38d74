/** Helpers for the reliability tests (issue 20): a small project, the CLI, file listings, live and dead pids. */
import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { readdirSync, statSync, mkdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { CLI, writeFiles } from './workspace';

/** A project of a few TypeScript files, BM25 only (no embedder, no reranker: fast and deterministic). */
export function writeSmallProject(root: string, files = 6): void {
  const out: Record<string, string> = {};
  for (let i = 0; i < files; i++) {
    out[`src/config${i}.ts`] = `/** Parses configuration file number ${i}. */\nexport function parseConfig${i}(text: string): unknown {\n  return JSON.parse(text);\n}\n`;
  }
  writeFiles(root, out);
  mkdirSync(join(root, '.quarry'), { recursive: true });
  writeFileSync(join(root, '.quarry', 'config.yml'), 'embedding:\n  provider: none\nrerank:\n  provider: none\n');
}

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs the built CLI synchronously. */
export function cli(args: string[], timeoutMs = 120_000): Run {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, QUARRY_LOG_LEVEL: 'silent' } });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0 };
}

/** Runs the CLI without blocking this process. */
export function cliAsync(args: string[]): Promise<Run> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, QUARRY_LOG_LEVEL: 'silent' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr, ms: Date.now() - t0 }));
  });
}

/** `quarry search … -o json`, parsed (throws with the output when it is not JSON). */
export function searchJson(root: string, query: string): { run: Run; total: number; warnings: string[]; paths: string[] } {
  const run = cli(['search', query, '-p', root, '-o', 'json']);
  let parsed: { total_results: number; warnings: string[]; matches: Array<{ file: { path: string } }> };
  try {
    parsed = JSON.parse(run.stdout);
  } catch {
    throw new Error(`search printed no JSON (exit ${run.status}): ${run.stdout}\n${run.stderr}`);
  }
  return { run, total: parsed.total_results, warnings: parsed.warnings, paths: parsed.matches.map((m) => m.file.path) };
}

/** Every file under `dir` with its size (relative paths), to prove that nothing was deleted or rewritten. */
export function listing(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(dir, p)] = statSync(p).size;
    }
  };
  walk(dir);
  return out;
}

/** A live process (sleep) to hold a lock, and its lock-file content. */
export function liveHolder(): { child: ChildProcess; pid: number; lock: (startedAt?: string) => string } {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  const pid = child.pid!;
  return { child, pid, lock: (startedAt = new Date().toISOString()) => JSON.stringify({ pid, host: hostname(), startedAt, at: startedAt }) };
}

/** A pid that is not running (a child that has exited). */
export function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$']);
  return Number(String(r.stdout).trim());
}

/** Mounts a tmpfs of `size` at `dir` (root only); false with the reason when not permitted. */
export function mountTmpfs(dir: string, size: string): { ok: true } | { ok: false; why: string } {
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) return { ok: false, why: (r.stderr || r.error?.message || `mount exited ${r.status}`).trim() };
  return { ok: true };
}

export function remount(dir: string, mode: 'ro' | 'rw'): void {
  const r = spawnSync('mount', ['-o', `remount,${mode}`, dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`remount ${mode} failed: ${r.stderr}`);
}

export function unmount(dir: string): void {
  spawnSync('umount', ['-l', dir]);
}
