/**
 * The workspace's relation to git: is it (inside) a repository, which files does git track, what is HEAD, and which
 * files changed between two commits. Paths are workspace-relative with forward slashes, like `Chunk.path`, also when
 * the workspace is a subfolder of the repository (git runs in the workspace folder and reports paths relative to it).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { GitError, runGit, type GitRunOptions } from './run';

export type GitWorkspace =
  /** The workspace is inside a repository. */
  | {
      state: 'repo';
      root: string;
      /** The repository's top-level folder. */
      toplevel: string;
      /** The workspace's folder inside the repository ('' at the top, else ending with '/'). */
      prefix: string;
      /** HEAD's commit; undefined before the first commit (unborn branch). */
      head: string | undefined;
      /** Files git tracks (its index) under the workspace, workspace-relative. */
      tracked: Set<string>;
    }
  /** Not inside any repository. */
  | { state: 'none'; root: string }
  /** git is missing, or failed in a way that says nothing about the workspace (e.g. "dubious ownership"). */
  | { state: 'unavailable'; root: string; reason: string };

/**
 * Probes the workspace: one `git rev-parse` for its top-level folder, its prefix, git's folder and HEAD, then the
 * tracked set (one `git ls-files -z`, or the set listed last while git's index file is unchanged). "not a git
 * repository" means `none`; any other failure means `unavailable`.
 *
 * Each git process costs the caller more than git's own work: starting one copies the calling process's memory map,
 * about 15 ms of the indexing thread in a 450-600 MB engine process (issue 21: a save re-indexed in the language
 * server ran four git processes, three of them for this probe).
 */
export async function openGitWorkspace(root: string, options: GitRunOptions = {}): Promise<GitWorkspace> {
  let lines: string[];
  try {
    lines = (await runGit(root, ['rev-parse', '--show-toplevel', '--show-prefix', '--absolute-git-dir', '--verify', '-q', 'HEAD^{commit}'], options)).toString('utf8').split('\n');
  } catch (e) {
    if (e instanceof GitError && e.kind === 'aborted') throw e;
    // not a repository, or no HEAD yet (an unborn branch fails the HEAD part): the probe in parts says which
    return probeInParts(root, options);
  }
  const [toplevel = '', prefix = '', gitDir = '', sha = ''] = lines;
  if (!toplevel) return { state: 'none', root };
  const head = /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha) ? sha : undefined;
  try {
    return { state: 'repo', root, toplevel, prefix, head, tracked: await trackedFilesKept(root, gitDir, options) };
  } catch (e) {
    if (e instanceof GitError && e.kind === 'aborted') throw e;
    return { state: 'unavailable', root, reason: (e as Error).message };
  }
}

/** The probe one question at a time (for a repository without a commit yet, or a failure to explain). */
async function probeInParts(root: string, options: GitRunOptions): Promise<GitWorkspace> {
  let out: string;
  try {
    out = (await runGit(root, ['rev-parse', '--show-toplevel', '--show-prefix'], options)).toString('utf8');
  } catch (e) {
    if (e instanceof GitError && e.kind === 'aborted') throw e;
    if (e instanceof GitError && e.kind === 'failed' && /not a git repository/i.test(e.stderr || e.message)) return { state: 'none', root };
    return { state: 'unavailable', root, reason: (e as Error).message };
  }
  const [toplevel = '', prefix = ''] = out.split('\n');
  if (!toplevel) {
    // Inside a .git folder or a bare repository: nothing there is a work tree file.
    return { state: 'none', root };
  }
  // the tracked set and HEAD at once (two git processes side by side)
  const headAsked = currentHead(root, options);
  let tracked: Set<string>;
  try {
    tracked = await trackedFiles(root, options);
  } catch (e) {
    await headAsked.catch(() => undefined);
    if (e instanceof GitError && e.kind === 'aborted') throw e;
    return { state: 'unavailable', root, reason: (e as Error).message };
  }
  const head = await headAsked;
  return { state: 'repo', root, toplevel, prefix, head, tracked };
}

/** Per workspace folder: the tracked set last listed and the identity of git's index file then. */
const trackedKept = new Map<string, { stamp: string; tracked: Set<string> }>();

/**
 * The tracked set, listed again only when git's index file (`<git dir>/index`) is not the one it was listed from:
 * everything that changes the tracked set (add, rm, commit, checkout, reset, merge) writes a new index file (a new
 * inode, size or time). Callers only read the set.
 */
async function trackedFilesKept(root: string, gitDir: string, options: GitRunOptions): Promise<Set<string>> {
  const stamp = indexFileStamp(gitDir);
  const kept = trackedKept.get(root);
  if (stamp !== undefined && kept?.stamp === stamp) return kept.tracked;
  const tracked = await trackedFiles(root, options);
  if (stamp !== undefined && stamp === indexFileStamp(gitDir)) trackedKept.set(root, { stamp, tracked });
  else trackedKept.delete(root);
  return tracked;
}

function indexFileStamp(gitDir: string): string | undefined {
  if (!gitDir) return undefined;
  try {
    const s = statSync(join(gitDir, 'index'), { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return undefined; // no index yet (nothing added)
  }
}

/** Files in git's index under the workspace (`git ls-files -z`, paths relative to the workspace). */
export async function trackedFiles(root: string, options: GitRunOptions = {}): Promise<Set<string>> {
  const out = await runGit(root, ['ls-files', '-z', '--cached'], options);
  const files = new Set<string>();
  for (const p of out.toString('utf8').split('\0')) if (p) files.add(p);
  return files;
}

/** HEAD's commit id; undefined when there is none (unborn branch), the workspace is not in a repository or git fails. */
export async function currentHead(root: string, options: GitRunOptions = {}): Promise<string | undefined> {
  try {
    const sha = (await runGit(root, ['rev-parse', '--verify', '-q', 'HEAD^{commit}'], options)).toString('utf8').trim();
    return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha) ? sha : undefined;
  } catch (e) {
    if (e instanceof GitError && e.kind === 'aborted') throw e;
    return undefined;
  }
}

/**
 * Workspace files whose content differs between `oldHead` and the current HEAD (`git diff --name-only --relative
 * <old> HEAD`, renames as delete + add, so both names are listed). Undefined when that cannot be known: not a
 * repository, no HEAD, `oldHead` not a commit id or no longer in the repository, git failing. Files changed by history
 * rewrites that left their content alone (a rebase) are not listed.
 */
export async function changedFilesSince(root: string, oldHead: string, options: GitRunOptions = {}): Promise<string[] | undefined> {
  // Only a commit id: never something git would read as an option or a range.
  if (!/^[0-9a-f]{7,64}$/i.test(oldHead)) return undefined;
  try {
    await runGit(root, ['cat-file', '-e', `${oldHead}^{commit}`], options);
    const out = await runGit(root, ['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', '--relative', oldHead, 'HEAD', '--'], options);
    return out
      .toString('utf8')
      .split('\0')
      .filter((p) => p !== '');
  } catch (e) {
    if (e instanceof GitError && e.kind === 'aborted') throw e;
    return undefined;
  }
}
