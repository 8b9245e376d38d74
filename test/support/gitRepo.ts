/**
 * Real git repositories for tests: an isolated environment (no user or system config), commits with fixed dates,
 * and fake `git` executables (real scripts on a PATH of their own) that fail or hang for chosen files.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from './workspace';

const homes: string[] = [];

/** Removes the HOME folders made by `isolatedGitEnv` (call from `after`). */
export function removeGitHomes(): void {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
}

/** Environment for git: a fresh HOME and global config, no system config, a fixed identity. */
export function isolatedGitEnv(): NodeJS.ProcessEnv {
  const home = tempDir('quarry-git-home-');
  homes.push(home);
  const globalConfig = join(home, '.gitconfig');
  writeFileSync(globalConfig, '[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), GIT_CONFIG_GLOBAL: globalConfig, GIT_CONFIG_NOSYSTEM: '1' };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_CONFIG_SYSTEM', 'GIT_AUTHOR_DATE', 'GIT_COMMITTER_DATE']) delete env[k];
  return env;
}

export class TestRepo {
  readonly env: NodeJS.ProcessEnv;

  constructor(readonly dir: string, env?: NodeJS.ProcessEnv) {
    this.env = env ?? isolatedGitEnv();
  }

  static init(dir = tempDir('quarry-git-')): TestRepo {
    const repo = new TestRepo(dir);
    repo.git('init', '-q');
    return repo;
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.dir, env: this.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  write(files: Record<string, string>): void {
    for (const [rel, content] of Object.entries(files)) {
      const p = join(this.dir, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, content);
    }
  }

  /**
   * Writes `files`, stages them (or everything with `all`) and commits with author date `date` and committer date one
   * hour later (so a test can tell which of the two is used). Returns the new commit id.
   */
  commit(message: string, date: string, files: Record<string, string> = {}, paths: string[] = Object.keys(files)): string {
    this.write(files);
    if (paths.length) this.git('add', '--', ...paths);
    const committer = new Date(Date.parse(date) + 3_600_000).toISOString();
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', message], {
      cwd: this.dir, env: { ...this.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: committer }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    return this.head();
  }

  head(): string {
    return this.git('rev-parse', 'HEAD').trim();
  }
}

/** Full path of the real git executable. */
export function realGit(): string {
  return execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
}

/**
 * A folder holding a `git` script that runs the real git, except for `git blame` of a path matching `pattern` (an
 * extended regex over the whole argument list), where it `fail`s (message on stderr, exit 1) or `hang`s (sleeps 30 s).
 * Returns the folder (put it first on PATH) and the script's path.
 */
export function fakeGit(pattern: string, behaviour: 'fail' | 'hang'): { dir: string; path: string } {
  const dir = tempDir('quarry-fake-git-');
  const path = join(dir, 'git');
  const act = behaviour === 'fail' ? `echo "fatal: simulated blame failure for $*" >&2; exit 1` : 'exec sleep 30';
  writeFileSync(
    path,
    `#!/bin/sh
case " $* " in
  *" blame "*)
    if printf '%s' "$*" | grep -Eq '${pattern.replace(/'/g, `'\\''`)}'; then ${act}; fi ;;
esac
exec '${realGit()}' "$@"
`,
  );
  chmodSync(path, 0o755);
  return { dir, path };
}
