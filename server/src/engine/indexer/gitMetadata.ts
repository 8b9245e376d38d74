/**
 * The git metadata pass (seed 003 FR-5.3, FR-5.4, section 6.4): after an index run, (re)computes the `chunk_git` rows
 * of the files that need it. Statuses and times are defined in git/metadata.ts.
 *
 * A file is recomputed when:
 * - it was (re)indexed this run (`paths`): its lines moved;
 * - HEAD moved since `previousHead` and `git diff --name-only previousHead HEAD` lists it; when that cannot be known
 *   (no previous HEAD recorded, the old commit is gone, the workspace became or stopped being a repository), every file;
 * - one of its code chunks has no row (an index built before this pass existed, a chunk added), or it has rows of
 *   chunks it no longer has;
 * - a row says `unavailable` (git was missing or failed: retried on every pass);
 * - git's tracked set disagrees with its rows (`git add` of a new file, `git rm --cached`).
 * Rows of paths that no longer have code chunks are dropped.
 *
 * Knowledge and reasoning chunks (kinds `section`, `text`, `reasoning`; anything under `.quarry/`) get no rows: their
 * dates come from their own metadata. A failing git never throws: it becomes `unavailable` rows and warnings. Only store
 * errors propagate (callers treat them like other post-index passes: a warning in the summary).
 */
import type { GitConfig } from '../config/schema';
import type { ChunkStore } from '../store/chunkStore';
import { logger } from '../log';
import { computeGitMetadata, HISTORY_MIN_FILES, prepareHistory, type ChunkLines, type GitFileChunks } from '../git/metadata';
import { replayHistory, type LineHistory } from '../git/history';
import { changedFilesSince, openGitWorkspace } from '../git/repo';
import { GitError, type GitRunOptions } from '../git/run';

/** Chunk kinds that are knowledge or reasoning, not code: no git metadata. */
export const NON_CODE_KINDS: ReadonlySet<string> = new Set(['section', 'text', 'reasoning']);

/** Whether a chunk gets git metadata: code chunks outside `.quarry/`. */
export function hasGitMetadata(chunk: { kind: string; path: string }): boolean {
  return !NON_CODE_KINDS.has(chunk.kind) && !chunk.path.startsWith('.quarry/');
}

export interface GitRefreshOptions {
  /** Files (re)indexed by this run (workspace-relative). */
  paths?: readonly string[];
  /** HEAD recorded after the previous pass (`summary.head` of that pass); undefined when none was recorded. */
  previousHead?: string;
  signal?: AbortSignal;
  config: GitConfig;
  /** The git executable (default `git` on PATH). */
  gitPath?: string;
  /** Environment for git (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Files computed and written per batch (default 200). */
  batchSize?: number;
  /**
   * The previous pass completed and nothing has touched the rows since: when HEAD is unchanged and the row counts
   * agree, only `paths` are recomputed (no scan over every chunk). The engine's incremental runs set it.
   */
  quick?: boolean;
  /** The history replay started with the run (`prefetchHistory`); used when HEAD is still the one it replayed. */
  prefetched?: HistoryPrefetch;
}

/**
 * The history replay of a run that will attribute every file (a first index, a full rebuild), started with the run:
 * `git log -p` runs in its own process and its output is parsed in the indexing thread's idle turns — while the lexical
 * phase waits for its chunking worker — instead of after the dense phase (issue 21: about 0.3 s of a 300-file cold
 * index). The pass takes it only when HEAD is still the one replayed; a file edited meanwhile fails the line-count check
 * like any other and is blamed (the replay's `git diff HEAD` saw the working tree as it was when the run started).
 */
export interface HistoryPrefetch {
  /** HEAD and its replay; undefined when there is nothing to replay (no repository, no commit, few tracked files). */
  readonly result: Promise<{ head: string; history: LineHistory } | undefined>;
  /** Stops git (a run that failed, was aborted or skipped its git pass). */
  cancel(): void;
}

export function prefetchHistory(root: string, options: Pick<GitRefreshOptions, 'gitPath' | 'env'> = {}): HistoryPrefetch {
  const controller = new AbortController();
  const run: GitRunOptions = { gitPath: options.gitPath, env: options.env, signal: controller.signal };
  const result = (async () => {
    const workspace = await openGitWorkspace(root, run);
    if (workspace.state !== 'repo' || workspace.head === undefined || workspace.tracked.size < HISTORY_MIN_FILES) return undefined;
    return { head: workspace.head, history: await replayHistory(root, run) };
  })();
  // a failed or cancelled replay only means the pass replays (or blames) itself
  result.catch(() => undefined);
  return { result, cancel: () => controller.abort() };
}

export interface GitRefreshSummary {
  /**
   * HEAD now (undefined: not a repository, no commit yet, git unavailable): record it and pass it as `previousHead`
   * next time. After an abort this is `previousHead` again, so the next pass redoes what was left.
   */
  head: string | undefined;
  /** Files whose rows were recomputed. */
  filesRefreshed: number;
  /** Of those, files by status. */
  tracked: number;
  untracked: number;
  unavailable: number;
  /** Rows written. */
  chunks: number;
  /** Paths whose rows were dropped (no code chunks any more). */
  filesDropped: number;
  durationMs: number;
  /** Git failures (also logged); at most 20 lines, then a count. */
  warnings: string[];
  /** Why files were recomputed: 'all' (HEAD moved and the change set is unknown) or the individual reasons. */
  reason: 'none' | 'all' | 'changes';
  /** The `git.metadata` setting is off: nothing computed, existing rows dropped. */
  disabled?: boolean;
  /** The signal aborted the pass; rows written so far stay. */
  aborted?: boolean;
  /** How many files' lines were attributed: one history replay (made now, or started with the run), else blame. */
  history?: 'replayed' | 'prefetched';
}

const MAX_WARNINGS = 20;

export async function refreshGitMetadata(store: ChunkStore, root: string, options: GitRefreshOptions): Promise<GitRefreshSummary> {
  const started = Date.now();
  const log = logger('indexer');
  const summary: GitRefreshSummary = {
    head: options.previousHead, filesRefreshed: 0, tracked: 0, untracked: 0, unavailable: 0, chunks: 0, filesDropped: 0,
    durationMs: 0, warnings: [], reason: 'none',
  };
  const done = () => {
    summary.durationMs = Date.now() - started;
    return summary;
  };
  if (!options.config.metadata) {
    summary.disabled = true;
    if ((await store.countGitRows()) > 0) await store.clearGitRows();
    return done();
  }
  const run: GitRunOptions = { gitPath: options.gitPath, env: options.env, signal: options.signal };
  const allWarnings: string[] = [];
  try {
    const workspace = await openGitWorkspace(root, run);
    const head = workspace.state === 'repo' ? workspace.head : undefined;

    // Quick mode: HEAD unchanged, as many rows as code chunks and none unavailable — only this run's files can be
    // out of date, so the scan over every chunk and row is skipped (what it would also catch: a `git add` without a
    // commit, noticed by the next full pass or commit).
    if (options.quick && head === options.previousHead && (await store.countGitRows('unavailable')) === 0) {
      const [rows, code] = await Promise.all([store.countGitRows(), store.countChunksExcept([...NON_CODE_KINDS], '.quarry/')]);
      if (rows === code) {
        const paths = [...new Set(options.paths ?? [])];
        const spans = paths.length ? (await store.chunkSpansOf(paths)).filter(hasGitMetadata) : [];
        const byPath = new Map<string, ChunkLines[]>();
        for (const span of spans) {
          let list = byPath.get(span.path);
          if (!list) byPath.set(span.path, (list = []));
          list.push({ id: span.id, startLine: span.startLine, endLine: span.endLine });
        }
        const gone = paths.filter((p) => !byPath.has(p));
        if (gone.length) await store.deleteGitPaths(gone);
        await refreshPaths([...byPath.keys()].sort(), byPath, workspace);
        summary.reason = byPath.size ? 'changes' : 'none';
        summary.head = head;
        return finish();
      }
    }

    // Code chunks by path, and the rows we have.
    const byPath = new Map<string, ChunkLines[]>();
    for (const span of await store.chunkSpansOf()) {
      if (!hasGitMetadata(span)) continue;
      let list = byPath.get(span.path);
      if (!list) byPath.set(span.path, (list = []));
      list.push({ id: span.id, startLine: span.startLine, endLine: span.endLine });
    }
    const rowsByPath = new Map<string, { ids: Set<string>; statuses: Set<string> }>();
    for (const r of await store.gitRowIndex()) {
      let entry = rowsByPath.get(r.path);
      if (!entry) rowsByPath.set(r.path, (entry = { ids: new Set(), statuses: new Set() }));
      entry.ids.add(r.chunkId);
      entry.statuses.add(r.status);
    }

    let all = false;
    const refresh = new Set<string>();
    const add = (p: string) => {
      if (byPath.has(p)) refresh.add(p);
    };
    if (head !== options.previousHead) {
      const changed = head && options.previousHead ? await changedFilesSince(root, options.previousHead, run) : undefined;
      if (changed) changed.forEach(add);
      else all = true;
    }
    for (const p of options.paths ?? []) add(p);
    for (const [path, chunks] of byPath) {
      const rows = rowsByPath.get(path);
      if (!rows || rows.ids.size !== chunks.length || chunks.some((c) => !rows.ids.has(c.id))) {
        refresh.add(path);
        continue;
      }
      if (rows.statuses.has('unavailable')) refresh.add(path);
      else if (workspace.state === 'repo') {
        const tracked = workspace.tracked.has(path);
        if ((tracked && rows.statuses.has('untracked')) || (!tracked && rows.statuses.has('tracked'))) refresh.add(path);
      } else if (workspace.state === 'none' && rows.statuses.has('tracked')) refresh.add(path);
    }
    const dropped = [...rowsByPath.keys()].filter((p) => !byPath.has(p));
    if (dropped.length) {
      await store.deleteGitPaths(dropped);
      summary.filesDropped = dropped.length;
    }

    const todo = (all ? [...byPath.keys()] : [...refresh]).sort();
    summary.reason = all ? 'all' : todo.length ? 'changes' : 'none';
    await refreshPaths(todo, byPath, workspace);
    summary.head = head;
  } catch (e) {
    if (!(e instanceof GitError && e.kind === 'aborted')) throw e;
    summary.aborted = true;
    summary.head = options.previousHead;
  }
  return finish();

  /** Recomputes and writes the rows of these files, in batches. */
  async function refreshPaths(todo: string[], byPath: Map<string, ChunkLines[]>, workspace: Awaited<ReturnType<typeof openGitWorkspace>>): Promise<void> {
    const batchSize = Math.max(1, options.batchSize ?? 200);
    // Many files: one history replay for all of them (git/history.ts), made once, not per batch; a few: blame each.
    let history: LineHistory | null | undefined;
    if (workspace.state === 'repo' && workspace.head !== undefined) {
      const tracked = todo.filter((p) => workspace.tracked.has(p));
      if (tracked.length >= HISTORY_MIN_FILES) {
        const early = await options.prefetched?.result.catch(() => undefined);
        const replayed = early && early.head === workspace.head ? early.history : undefined;
        history = await prepareHistory(root, tracked, run, replayed);
        if (history) summary.history = replayed ? 'prefetched' : 'replayed';
      }
    }
    for (let i = 0; i < todo.length; i += batchSize) {
      if (options.signal?.aborted) throw new GitError('git metadata aborted', 'aborted');
      const files: GitFileChunks[] = todo.slice(i, i + batchSize).map((path) => ({ path, chunks: byPath.get(path)! }));
      const result = await computeGitMetadata(root, files, {
        ...run, workspace, blameTimeoutMs: options.config.blameTimeoutMs, concurrency: options.config.concurrency,
        strategy: history === undefined ? 'blame' : 'history', history,
      });
      await store.replaceGitRows(files.map((f) => f.path), result.rows);
      summary.filesRefreshed += files.length;
      summary.tracked += result.files.tracked;
      summary.untracked += result.files.untracked;
      summary.unavailable += result.files.unavailable;
      summary.chunks += result.rows.length;
      allWarnings.push(...result.warnings);
    }
  }

  function finish(): GitRefreshSummary {
    summary.warnings = allWarnings.slice(0, MAX_WARNINGS);
    if (allWarnings.length > MAX_WARNINGS) summary.warnings.push(`… and ${allWarnings.length - MAX_WARNINGS} more git failures (see the log)`);
    done();
    log.info(
      {
        operation: 'git_metadata', duration_ms: summary.durationMs,
        context: { root, reason: summary.reason, files: summary.filesRefreshed, tracked: summary.tracked, untracked: summary.untracked, unavailable: summary.unavailable, aborted: !!summary.aborted },
      },
      'git metadata refreshed',
    );
    return summary;
  }
}
