/**
 * Git-exact ignore evaluation on top of the `ignore` package.
 *
 * Git's rule, reproduced here: the per-directory `.gitignore` files are consulted from the deepest
 * directory up to the repository root, then `$GIT_DIR/info/exclude`, then `core.excludesFile`.
 * Within one source the LAST matching pattern wins; the FIRST source (deepest) with any match (ignore
 * or `!` re-include) decides. A path is tested on its own (a directory with a trailing `/`), never by
 * looking at its parents: the walk never descends into an excluded directory, which is exactly how git
 * makes "a file cannot be re-included if a parent directory is excluded" hold.
 *
 * `ignore`'s public `test()` also checks every parent prefix against the same pattern set, which is
 * wrong across layered sources (a deeper `!dir/` must be able to beat a shallower `dir/`). So a single
 * path is tested with the package's internal rule list (`_rules.test`, pinned `ignore@7.0.5`), with a
 * fallback to the public `test()` if that internal ever disappears. The git comparison tests in
 * test/integration/discovery catch any drift.
 */
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import ignore from 'ignore';

export type MatchResult = { ignored: true; pattern: string } | { ignored: false; unignored: boolean };

/** One compiled gitignore-style pattern list. */
export interface PatternSet {
  readonly empty: boolean;
  /** Tests one relative path (directories end with '/'); no parent-directory logic. */
  test(relPath: string): MatchResult;
}

/** Git's default core.ignorecase: false on Linux, true on the case-insensitive default file systems. */
export function defaultIgnoreCase(): boolean {
  return process.platform === 'darwin' || process.platform === 'win32';
}

interface RawRuleTester {
  test(path: string, checkUnignored: boolean, mode: string): { ignored: boolean; unignored: boolean; rule?: { pattern: string } };
}

export function compilePatterns(patterns: string | readonly string[], ignoreCase = defaultIgnoreCase()): PatternSet {
  const lines = (typeof patterns === 'string' ? patterns.split(/\r?\n/) : [...patterns]).filter(
    (l) => l.trim() !== '' && !l.startsWith('#'),
  );
  if (lines.length === 0) return EMPTY_SET;
  const ig = ignore({ ignorecase: ignoreCase }).add(lines);
  const raw = (ig as unknown as { _rules?: RawRuleTester })._rules;
  if (raw && typeof raw.test === 'function') {
    fixRules(raw);
    return {
      empty: false,
      test(p) {
        const r = raw.test(p, true, 'regex');
        if (r.ignored) return { ignored: true, pattern: r.rule?.pattern ?? '' };
        return { ignored: false, unignored: r.unignored };
      },
    };
  }
  /* c8 ignore next 9 -- fallback for a future `ignore` without the internal rule list */
  return {
    empty: false,
    test(p) {
      const r = ig.test(p);
      if (r.ignored) return { ignored: true, pattern: r.rule?.pattern ?? '' };
      return { ignored: false, unignored: r.unignored };
    },
  };
}

interface RawRule {
  pattern: string;
  mark?: string;
  negative: boolean;
  regex: RegExp;
  checkRegex: RegExp;
}

/** Regex source with every unescaped `[!` / `[\^` class opener turned into `[^/`. */
function negateClasses(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      out += c + (source[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '[') {
      if (source[i + 1] === '!') {
        out += '[^/';
        i += 1;
        continue;
      }
      if (source[i + 1] === '\\' && source[i + 2] === '^') {
        out += '[^/';
        i += 2;
        continue;
      }
    }
    out += c;
  }
  return out;
}

const TRAILING_ANY_DIRS = '(?:\\/[^\\/]+)*\\/$';

/**
 * Where `ignore@7` differs from git's traversal (found by the git parity tests), rules are replaced
 * by plain rule objects with corrected regexes:
 * - negated bracket expressions: `ignore` turns `[!a-m]` into a class containing `!` and `[^a-m]`
 *   into one containing `^`; git (wildmatch) negates both, and a class never matches `/`;
 * - a trailing `/**` + `/` (`dir/**` + `/`): `ignore` also matches `dir/` itself; git needs at least
 *   one path component after `dir/` (a trailing `/**` "matches everything inside").
 */
function fixRules(raw: RawRuleTester): void {
  const list = (raw as unknown as { _rules?: RawRule[] })._rules;
  if (!Array.isArray(list)) return;
  for (let i = 0; i < list.length; i++) {
    const rule = list[i]!;
    const body = rule.pattern.replace(/\s+$/, '');
    const negated = /\[[!^]/.test(body);
    const trailingAny = body.endsWith('/**/');
    if (!negated && !trailingAny) continue;
    const fix = (re: RegExp): RegExp => {
      let src = re.source;
      if (negated) src = negateClasses(src);
      if (trailingAny && src.endsWith(TRAILING_ANY_DIRS)) {
        src = src.slice(0, -TRAILING_ANY_DIRS.length) + '(?:\\/[^\\/]+)+\\/$';
      }
      return new RegExp(src, re.flags);
    };
    list[i] = { pattern: rule.pattern, mark: rule.mark, negative: rule.negative, regex: fix(rule.regex), checkRegex: fix(rule.checkRegex) };
  }
}

const EMPTY_SET: PatternSet = { empty: true, test: () => ({ ignored: false, unignored: false }) };

/** One ignore source, scoped to a directory. */
export interface Layer {
  set: PatternSet;
  /** Characters of the workspace-relative path to drop (the layer directory's `dir/` prefix)... */
  strip: number;
  /** ...and what to put in front (the workspace root's path relative to a layer above it). */
  prepend: string;
  /** Human-readable origin, e.g. `src/.gitignore`, `.git/info/exclude`, `core.excludesFile`. */
  source: string;
}

/** Layers, deepest (highest precedence) first. Immutable: children share their parent's array. */
export type LayerStack = readonly Layer[];

/** Evaluates a layer stack for one workspace-relative path. Returns the deciding layer + pattern when ignored. */
export function matchStack(stack: LayerStack, rel: string, isDir: boolean): { source: string; pattern: string } | undefined {
  for (const layer of stack) {
    const p = layer.prepend + rel.slice(layer.strip) + (isDir ? '/' : '');
    const r = layer.set.test(p);
    if (r.ignored) return { source: layer.source, pattern: r.pattern };
    if (r.unignored) return undefined;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Repository detection and the non-.gitignore sources.

export interface RepoInfo {
  /** Absolute path of the work tree top. */
  top: string;
  /** The directory holding `info/exclude` (the common git dir for worktrees). */
  commonDir: string;
}

async function readTextOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(p, 'utf8');
  } catch {
    return undefined;
  }
}

/** If `dir` is the top of a git work tree (has `.git` as a dir or a `gitdir:` file), describe it. */
export async function repoAt(dir: string): Promise<RepoInfo | undefined> {
  const dotGit = path.join(dir, '.git');
  let st;
  try {
    st = await fsp.lstat(dotGit);
  } catch {
    return undefined;
  }
  let gitDir = dotGit;
  if (st.isFile()) {
    const text = await readTextOrUndefined(dotGit);
    const m = text && /^gitdir:\s*(.+?)\s*$/m.exec(text);
    if (!m) return undefined;
    gitDir = path.resolve(dir, m[1]!);
  } else if (!st.isDirectory()) {
    return undefined;
  }
  let commonDir = gitDir;
  const common = await readTextOrUndefined(path.join(gitDir, 'commondir'));
  if (common && common.trim()) commonDir = path.resolve(gitDir, common.trim());
  return { top: dir, commonDir };
}

/** The repository containing `dir` (itself or the nearest ancestor with `.git`). */
export async function findRepo(dir: string): Promise<RepoInfo | undefined> {
  let cur = path.resolve(dir);
  for (;;) {
    const repo = await repoAt(cur);
    if (repo) return repo;
    const parent = path.dirname(cur);
    if (parent === cur) return undefined;
    cur = parent;
  }
}

function runGit(args: string[], cwd: string | undefined): Promise<{ code: number | string | null; stdout: string }> {
  return new Promise((resolve) => {
    try {
      execFile('git', args, { cwd, timeout: 3000, windowsHide: true, encoding: 'utf8' }, (err, stdout) => {
        if (err) resolve({ code: (err as NodeJS.ErrnoException & { code?: number | string }).code ?? 'error', stdout: '' });
        else resolve({ code: 0, stdout: String(stdout) });
      });
    } catch {
      resolve({ code: 'error', stdout: '' });
    }
  });
}

function expandHome(p: string, cwd: string | undefined): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
  return path.resolve(cwd ?? process.cwd(), p);
}

function defaultGlobalExcludes(): string {
  const xdg = process.env.XDG_CONFIG_HOME;
  return xdg && xdg.trim() ? path.join(xdg, 'git', 'ignore') : path.join(os.homedir(), '.config', 'git', 'ignore');
}

const globalCache = new Map<string, { at: number; value: Promise<string | undefined> }>();
const GLOBAL_CACHE_TTL_MS = 60_000;

/**
 * Where git's global excludes file is: `core.excludesFile` (asked of git once, with a timeout; run
 * inside `repoTop` when given so repo-local and system config count too), else
 * `$XDG_CONFIG_HOME/git/ignore`, else `~/.config/git/ignore`. Cached for a minute per environment.
 */
export function resolveGlobalExcludesFile(repoTop?: string): Promise<string | undefined> {
  const env = process.env;
  const key = JSON.stringify([repoTop ?? '', env.HOME, env.USERPROFILE, env.XDG_CONFIG_HOME, env.GIT_CONFIG_GLOBAL, env.GIT_CONFIG_NOSYSTEM, env.GIT_CONFIG_SYSTEM]);
  const hit = globalCache.get(key);
  if (hit && Date.now() - hit.at < GLOBAL_CACHE_TTL_MS) return hit.value;
  const value = (async () => {
    const attempts: Array<{ args: string[]; cwd?: string }> = [];
    if (repoTop) attempts.push({ args: ['config', '--get', 'core.excludesFile'], cwd: repoTop });
    attempts.push({ args: ['config', '--global', '--get', 'core.excludesFile'] });
    for (const a of attempts) {
      const r = await runGit(a.args, a.cwd);
      if (r.code === 0 && r.stdout.trim()) return expandHome(r.stdout.trim(), a.cwd);
      if (r.code === 1 || r.code === 'ENOENT') break; // unset / no git: use git's default location
      // any other failure (dubious ownership, timeout): try the next way
    }
    return defaultGlobalExcludes();
  })();
  globalCache.set(key, { at: Date.now(), value });
  return value;
}

/** Forget cached `core.excludesFile` look-ups (tests, config changes). */
export function clearGlobalExcludesCache(): void {
  globalCache.clear();
}

/** Layers for a repository's non-.gitignore sources, for a walk whose workspace-relative paths are `rel`. */
export async function repoLayers(
  repo: RepoInfo | undefined,
  globalSet: PatternSet,
  strip: number,
  prepend: string,
  ignoreCase: boolean,
): Promise<Layer[]> {
  const out: Layer[] = [];
  if (repo) {
    const text = await readTextOrUndefined(path.join(repo.commonDir, 'info', 'exclude'));
    if (text !== undefined) {
      const set = compilePatterns(text, ignoreCase);
      if (!set.empty) out.push({ set, strip, prepend, source: '.git/info/exclude' });
    }
  }
  if (!globalSet.empty) out.push({ set: globalSet, strip, prepend, source: 'core.excludesFile' });
  return out;
}

export async function loadGlobalSet(repoTop: string | undefined, ignoreCase: boolean, override?: string | null): Promise<PatternSet> {
  const file = override === null ? undefined : override ?? (await resolveGlobalExcludesFile(repoTop));
  if (!file) return EMPTY_SET;
  const text = await readTextOrUndefined(file);
  return text === undefined ? EMPTY_SET : compilePatterns(text, ignoreCase);
}

export { EMPTY_SET };
