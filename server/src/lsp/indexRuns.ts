/**
 * Writes to a folder's index, serialized on its write queue: index runs (with work-done progress and
 * `codeSearch/statusChanged`, waiting for a lock held by another live process) and smaller writes (file updates,
 * buffers), before which a running dense phase gives way and resumes afterwards.
 */
import type { WorkDoneProgressReporter } from 'vscode-languageserver';
import { Engine, EngineIndexOptions, EngineIndexSummary } from '../engine/engine';
import { IndexLockedError } from '../engine/indexer/lock';
import { lockHeldByLiveProcess } from '../engine/indexer/owner';
import { notifyStatus } from './clientNotifications';
import type { ServerContext } from './context';
import type { Folder } from './folder';

/** How long an index run waits for a lock held by another live process (a displaced owner finishing a batch). */
const LOCK_WAIT_MS = 120_000;

async function createProgress(ctx: ServerContext): Promise<WorkDoneProgressReporter | undefined> {
  if (!ctx.progressSupported) return undefined;
  try {
    return await ctx.connection.window.createWorkDoneProgress();
  } catch {
    return undefined;
  }
}

/** One index run of a folder on its write queue, with work-done progress. */
export function indexFolder(ctx: ServerContext, f: Folder, opts: { full?: boolean; reason: string; signal?: AbortSignal }): Promise<EngineIndexSummary | undefined> {
  return f.queue.run(async () => {
    const engine = f.engine;
    if (!engine || f.closed || ctx.shuttingDown) return undefined;
    const abort = new AbortController();
    const onOuterAbort = () => abort.abort();
    opts.signal?.addEventListener('abort', onOuterAbort);
    const run = { abort, dense: false, preempted: false };
    f.running = run;
    const progress = await createProgress(ctx);
    const title = `Quarry: indexing ${f.name}`;
    progress?.begin(title, 0, opts.reason, false);
    let lastPct = -1;
    let lastAt = 0;
    const report = (pct: number, message: string, force = false) => {
      const p = Math.max(lastPct, Math.min(100, Math.round(pct)));
      const now = Date.now();
      if (!force && p === lastPct && now - lastAt < 250) return;
      if (!force && now - lastAt < 100 && p - lastPct < 5) return;
      lastPct = p;
      lastAt = now;
      progress?.report(p, message);
    };
    f.state = 'indexing';
    f.error = null;
    notifyStatus(ctx, f, opts.reason);
    const indexOptions: EngineIndexOptions = {
      full: opts.full,
      signal: abort.signal,
      onProgress: (p) => {
        if (p.phase === 'discovering') report(0, `discovering files (${p.filesDiscovered})`);
        else if (p.phase === 'indexing') report(p.filesToProcess ? (p.filesProcessed / p.filesToProcess) * 80 : 80, `${p.filesProcessed}/${p.filesToProcess} files · ${p.chunksCreated} chunks`);
        else report(80, 'committing');
      },
      onEmbedProgress: (p) => {
        if (!run.dense) {
          // The dense phase starts only after the lexical index is committed: searches can run.
          run.dense = true;
          f.state = 'embedding';
          f.markReady();
          notifyStatus(ctx, f, `searchable; embedding ${p.total} chunks (${p.model})`);
        }
        report(80 + (p.total ? (p.done / p.total) * 20 : 20), `embedding ${p.done}/${p.total} chunks (${p.model})`);
      },
    };
    try {
      const summary = await indexWhenUnlocked(engine, indexOptions, abort.signal, (holderPid) => report(lastPct < 0 ? 0 : lastPct, `waiting for process ${holderPid} to finish writing the index`, true));
      f.state = 'ready';
      f.markReady();
      const msg = `indexed: ${summary.totalFiles} files, ${summary.totalChunks} chunks` + (abort.signal.aborted ? ' (interrupted)' : '');
      report(100, msg, true);
      notifyStatus(ctx, f, msg, { files: summary.totalFiles, chunks: summary.totalChunks });
      if (summary.errors.length) ctx.log(`Quarry: ${summary.errors.length} file(s) failed to index in ${f.name}: ${summary.errors.slice(0, 5).map((e) => `${e.path} (${e.message})`).join('; ')}`);
      return summary;
    } catch (e) {
      f.error = (e as Error).message;
      f.state = 'error';
      // A failed run (e.g. another process holds the index lock) leaves the committed index usable.
      f.markReady();
      notifyStatus(ctx, f, `indexing failed: ${f.error}`);
      ctx.log(`Quarry: indexing ${f.name} failed: ${f.error}`);
      throw e;
    } finally {
      progress?.done();
      opts.signal?.removeEventListener('abort', onOuterAbort);
      if (f.running === run) f.running = undefined;
      // The dense phase gave way to other writes: finish it after them.
      if (run.preempted && !f.closed && !ctx.shuttingDown) void indexFolder(ctx, f, { reason: 'resuming embeddings' }).catch(() => undefined);
    }
  });
}

/** A write on the folder's queue; a running dense phase gives way (it resumes afterwards). A failure is logged. */
export function writeToFolder<T>(ctx: ServerContext, f: Folder, what: string, task: (engine: Engine) => Promise<T>): Promise<T | undefined> {
  if (f.running?.dense && !f.running.preempted) {
    f.running.preempted = true;
    f.running.abort.abort();
  }
  return f.queue
    .run(async () => {
      if (!f.engine || f.closed) return undefined;
      return task(f.engine);
    })
    .catch((e) => {
      ctx.log(`Quarry: ${what} in ${f.name} failed: ${(e as Error).message}`);
      return undefined;
    });
}

/**
 * Runs an index run; while the index lock is held by another live process (a displaced owner finishing its batch,
 * a one-shot `quarry index`), waits for it (up to LOCK_WAIT_MS) instead of failing.
 */
async function indexWhenUnlocked(engine: Engine, options: EngineIndexOptions, signal: AbortSignal, waiting: (pid: number) => void): Promise<EngineIndexSummary> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return await engine.index(options);
    } catch (e) {
      if (!(e instanceof IndexLockedError) || signal.aborted || Date.now() > deadline) throw e;
      waiting(e.holder.pid);
      while (lockHeldByLiveProcess(engine.quarryDir) && !signal.aborted && Date.now() <= deadline) await new Promise((r) => setTimeout(r, 200));
    }
  }
}
