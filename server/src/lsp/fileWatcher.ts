/**
 * Freshness from the file system: `workspace/didChangeWatchedFiles` events and the folder's own watcher on
 * `.quarry/memory/` are batched per folder (`watchDebounceMs`, default 150 ms: a branch switch is one batch) into
 * `updateFiles`; a `.gitignore`, `.quarryignore` or config change runs an incremental index of the folder. Only the
 * folder's index owner writes: a reader drops the batch (the owner follows the same changes).
 */
import { mkdirSync, watch } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { DidChangeWatchedFilesParams } from 'vscode-languageserver';
import { IndexLockedError } from '../engine/indexer/lock';
import { PATTERNS_PATH } from '../engine/memory/patterns';
import { notifyStatus } from './clientNotifications';
import type { ServerContext } from './context';
import { Folder, locateUri, owns } from './folder';
import { indexFolder, writeToFolder } from './indexRuns';

/** `workspace/didChangeWatchedFiles`: queues each changed path in its folder's batch. */
export function watchedFilesChanged(ctx: ServerContext, params: DidChangeWatchedFilesParams): void {
  for (const ev of params.changes) {
    const hit = locateUri(ctx.folders, ev.uri);
    if (!hit) continue;
    const { folder: f, rel } = hit;
    if (rel === PATTERNS_PATH) {
      schedulePatternUpdate(ctx, f);
      continue;
    }
    if (rel === '.quarry' || rel.startsWith('.quarry/') || rel === '.git' || rel.startsWith('.git/')) continue;
    if (basename(rel) === '.gitignore' || rel === '.quarryignore' || rel === '.quarry/config.yml') f.pendingIndex = true;
    else f.pending.add(rel);
    void ev.type; // created, changed and deleted are all "re-classify this path"
    scheduleFlush(ctx, f, watchDelay(ctx));
  }
}

/** Every client sends file events differently (or not at all for dot folders): watch the memory folder directly. */
export function watchMemoryFolder(ctx: ServerContext, f: Folder, root: string): void {
  try {
    const dir = resolve(root, PATTERNS_PATH, '..');
    mkdirSync(dir, { recursive: true });
    f.memoryWatcher = watch(dir, (_event, name) => {
      if (!f.closed && String(name) === basename(PATTERNS_PATH)) schedulePatternUpdate(ctx, f);
    });
    f.memoryWatcher.on('error', () => undefined);
  } catch (e) {
    ctx.log(`Quarry: cannot watch ${f.name}'s memory folder (${(e as Error).message}); recorded patterns are indexed by the next index run`);
  }
}

const watchDelay = (ctx: ServerContext) => ctx.options.watchDebounceMs ?? 150;

/** The pattern log changed (another process recorded a pattern): the owner re-indexes it. */
function schedulePatternUpdate(ctx: ServerContext, f: Folder): void {
  f.pending.add(PATTERNS_PATH);
  scheduleFlush(ctx, f, watchDelay(ctx));
}

/** (Re)starts the folder's batch timer. */
function scheduleFlush(ctx: ServerContext, f: Folder, delayMs: number): void {
  if (f.watchTimer) clearTimeout(f.watchTimer);
  f.watchTimer = setTimeout(() => flushWatched(ctx, f), delayMs);
}

function flushWatched(ctx: ServerContext, f: Folder): void {
  f.watchTimer = undefined;
  if (!owns(f)) {
    // The owner (another process) follows these changes.
    f.pending.clear();
    f.pendingIndex = false;
    return;
  }
  const paths = [...f.pending];
  const full = f.pendingIndex;
  f.pending.clear();
  f.pendingIndex = false;
  if (full) {
    void indexFolder(ctx, f, { reason: '.gitignore changed: updating the index' }).catch(() => undefined);
  } else if (paths.length) {
    void writeToFolder(ctx, f, `updating ${paths.length} file(s)`, async (engine) => {
      f.state = 'indexing';
      notifyStatus(ctx, f, `updating ${paths.length} changed file(s)`);
      let s;
      try {
        s = await engine.updateFiles(paths);
      } catch (e) {
        if (!(e instanceof IndexLockedError)) throw e;
        // Another process is writing (e.g. an owner stepping down): keep the paths for the next flush.
        f.state = 'ready';
        for (const p of paths) f.pending.add(p);
        scheduleFlush(ctx, f, 1000);
        return undefined;
      }
      f.state = 'ready';
      notifyStatus(ctx, f, `updated ${paths.length} file(s)`, { files: s.totalFiles, chunks: s.totalChunks });
      return s;
    });
  }
}
