/**
 * Git metadata per code chunk (seed 003 FR-5.3, FR-5.4, FR-10.3): how many commits touched the chunk's lines and
 * when they last changed. Computed while indexing, never while searching (section 6.4).
 *
 * Which commit last touched each line is `git blame --first-parent` of the working tree (so uncommitted edits count,
 * and lines a merge brought in belong to the merge commit: the commit that put them on the branch). It is computed
 * one of two ways, with the same result:
 * - many files (`HISTORY_MIN_FILES` or more, a first index): ONE `git log --first-parent -p -U0` stream replayed over
 *   every file (git/history.ts), plus one `git diff HEAD` for the working tree; files it cannot replay (binary diffs,
 *   a line count that disagrees with the file) are blamed one by one;
 * - a few files (an editor save, a commit touching a handful): one `git blame --porcelain --first-parent` per file,
 *   at most `concurrency` at a time, each killed after `blameTimeoutMs`.
 *
 * Statuses:
 * - `tracked`: the file is in git's index. `commits` = distinct commits among the chunk's lines, not counting lines
 *   that are not committed yet (0 for a chunk made only of new lines, and for every file before the first commit);
 *   `lastModifiedMs` = the latest author time among those commits, or the file's modification time when the chunk has
 *   uncommitted lines and that is later.
 * - `untracked`: the workspace is not in a repository, or git does not track the file (new, ignored, in a
 *   submodule).
 * - `unavailable`: git is missing, or failed for this file (blame error, timeout, unreadable output). Logged as a
 *   warning ("Git blame failed for {path}: {error}", FR-10.3) and counted; never an exception.
 */
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { logger } from '../log';
import { chunkBlameStats, parseBlamePorcelain, type BlameResult } from './blame';
import { historyBlame, replayHistory, verifyLineCounts, type LineHistory } from './history';
import { openGitWorkspace, type GitWorkspace } from './repo';
import { GitError, runGit, type GitRunOptions } from './run';

export type GitStatus = 'tracked' | 'untracked' | 'unavailable';

export interface ChunkLines {
  id: string;
  /** 1-based, inclusive (as `Chunk.startLine` / `Chunk.endLine`). */
  startLine: number;
  endLine: number;
}

export interface GitFileChunks {
  /** Workspace-relative path with forward slashes. */
  path: string;
  chunks: readonly ChunkLines[];
}

export interface ChunkGitInfo {
  chunkId: string;
  path: string;
  status: GitStatus;
  /** Distinct commits touching the chunk's lines; -1 unless `tracked`. */
  commits: number;
  /** Last modification (ms since the epoch); 0 when unknown (not tracked, or no line attributed). */
  lastModifiedMs: number;
}

export interface GitMetadataOptions extends Pick<GitRunOptions, 'gitPath' | 'env' | 'signal'> {
  /** Per-file `git blame` timeout (default 10 s). */
  blameTimeoutMs?: number;
  /** Files blamed at once (default 8); never more than the CPU count. */
  concurrency?: number;
  /** The workspace already probed (`openGitWorkspace`), to avoid probing twice. */
  workspace?: GitWorkspace;
  /**
   * How line attribution is computed: `history` (one `git log` replay, `prepareHistory`), `blame` (a process per
   * file) or `auto` (default: history for `HISTORY_MIN_FILES` tracked files or more).
   */
  strategy?: 'auto' | 'history' | 'blame';
  /** A replay already made for these files (`prepareHistory`; null: it failed, blame instead). */
  history?: LineHistory | null;
}

export interface GitMetadataResult {
  rows: ChunkGitInfo[];
  workspace: GitWorkspace;
  /** Files by outcome. */
  files: Record<GitStatus, number>;
  /** One line per failure (also logged). */
  warnings: string[];
}

export const DEFAULT_BLAME_TIMEOUT_MS = 10_000;
export const DEFAULT_GIT_CONCURRENCY = 8;
/** From this many tracked files on, `auto` replays the history once instead of blaming each file. */
export const HISTORY_MIN_FILES = 24;

/**
 * The history replay for `paths` (workspace-relative, tracked), checked against their line counts on disk; null
 * (after a logged warning) when git failed, so that the caller blames file by file. Throws only when `signal` aborts.
 */
export async function prepareHistory(
  root: string,
  paths: readonly string[],
  options: Pick<GitRunOptions, 'gitPath' | 'env' | 'signal'> = {},
  /** A replay of the same HEAD made earlier (indexer/gitMetadata.ts `prefetchHistory`): only checked here. */
  replayed?: LineHistory,
): Promise<LineHistory | null> {
  const log = logger('indexer');
  const started = Date.now();
  try {
    const history = replayed ?? (await replayHistory(root, options));
    const mismatched = await verifyLineCounts(root, history, paths);
    log.info(
      {
        operation: 'git_history', duration_ms: Date.now() - started,
        context: { root, commits: history.commits.length - 1, files: history.files.size, bytes: history.bytes, unreliable: history.unreliable.size, mismatched: mismatched.length, prefetched: replayed !== undefined },
      },
      'git history replayed',
    );
    return history;
  } catch (e) {
    if (e instanceof GitError && e.kind === 'aborted') throw e;
    log.warn({ operation: 'git_history', context: { root }, error: { type: (e as Error).name, message: (e as Error).message } }, 'git history replay failed; blaming file by file');
    return null;
  }
}

/** Files blamed at once: the configured number (default 8), at most the CPU count, at least 1. */
export function effectiveConcurrency(configured?: number): number {
  return Math.max(1, Math.min(configured ?? DEFAULT_GIT_CONCURRENCY, availableParallelism()));
}

/**
 * Git metadata of the given files' chunks (one row per chunk, files in the order given). Throws only when `signal`
 * aborts (a GitError of kind `aborted`); every git failure is a status.
 */
export async function computeGitMetadata(root: string, files: readonly GitFileChunks[], options: GitMetadataOptions = {}): Promise<GitMetadataResult> {
  const log = logger('indexer');
  const run: GitRunOptions = { gitPath: options.gitPath, env: options.env, signal: options.signal };
  const workspace = options.workspace ?? (await openGitWorkspace(root, run));
  const result: GitMetadataResult = { rows: [], workspace, files: { tracked: 0, untracked: 0, unavailable: 0 }, warnings: [] };
  const perFile: ChunkGitInfo[][] = files.map(() => []);

  const mark = (i: number, status: Exclude<GitStatus, 'tracked'>) => {
    perFile[i] = files[i].chunks.map((c) => ({ chunkId: c.id, path: files[i].path, status, commits: -1, lastModifiedMs: 0 }));
    result.files[status]++;
  };

  if (workspace.state !== 'repo') {
    const status = workspace.state === 'none' ? 'untracked' : 'unavailable';
    files.forEach((_, i) => mark(i, status));
    if (workspace.state === 'unavailable' && files.length) {
      const message = `Git metadata unavailable for ${files.length} file(s): ${workspace.reason}`;
      result.warnings.push(message);
      log.warn({ operation: 'git_metadata', context: { root, files: files.length }, error: { type: 'GitError', message: workspace.reason } }, message);
    }
    result.rows = perFile.flat();
    return result;
  }

  const blameTimeoutMs = options.blameTimeoutMs ?? DEFAULT_BLAME_TIMEOUT_MS;
  const pending: number[] = [];
  files.forEach((f, i) => {
    if (!workspace.tracked.has(f.path)) mark(i, 'untracked');
    else pending.push(i);
  });

  const blameOne = async (i: number): Promise<void> => {
    const file = files[i];
    const mtimeMs = await stat(join(root, file.path)).then((s) => s.mtimeMs, () => 0);
    if (workspace.head === undefined) {
      // Before the first commit every line is uncommitted (and git blame has no HEAD to start from).
      perFile[i] = file.chunks.map((c) => ({ chunkId: c.id, path: file.path, status: 'tracked', commits: 0, lastModifiedMs: Math.floor(mtimeMs) }));
      result.files.tracked++;
      return;
    }
    try {
      let blame: BlameResult | undefined = history ? historyBlame(history, file.path) : undefined;
      if (!blame) {
        const out = await runGit(root, ['blame', '--porcelain', '--first-parent', '--', file.path], { ...run, timeoutMs: blameTimeoutMs });
        blame = parseBlamePorcelain(out);
      }
      const replayed = blame;
      perFile[i] = file.chunks.map((c) => {
        const s = chunkBlameStats(replayed, c.startLine, c.endLine, mtimeMs);
        return { chunkId: c.id, path: file.path, status: 'tracked', commits: s.commits, lastModifiedMs: Math.floor(s.lastModifiedMs) };
      });
      result.files.tracked++;
    } catch (e) {
      if (e instanceof GitError && e.kind === 'aborted') throw e;
      const error = (e as Error).message;
      const message = `Git blame failed for ${file.path}: ${error}`;
      result.warnings.push(message);
      log.warn({ operation: 'git_blame', context: { path: file.path }, error: { type: (e as Error).name, message: error } }, message);
      mark(i, 'unavailable');
    }
  };

  let history = options.history ?? undefined;
  const strategy = options.strategy ?? 'auto';
  if (options.history === undefined && workspace.head !== undefined && (strategy === 'history' || (strategy === 'auto' && pending.length >= HISTORY_MIN_FILES))) {
    history = (await prepareHistory(root, pending.map((i) => files[i].path), run)) ?? undefined;
  }
  // With a replay, most files need no process: only the few it could not replay are blamed (in the pool).
  await pool(pending, effectiveConcurrency(options.concurrency), blameOne, options.signal);
  result.rows = perFile.flat();
  return result;
}

/** Runs `fn` over `items`, `limit` at a time; stops starting new ones once `signal` aborts, and rethrows. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (next < items.length && failure === undefined) {
      if (signal?.aborted) {
        failure ??= new GitError('git metadata aborted', 'aborted');
        return;
      }
      const item = items[next++];
      try {
        await fn(item);
      } catch (e) {
        failure ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== undefined) throw failure;
}
