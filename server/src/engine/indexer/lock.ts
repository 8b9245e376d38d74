/**
 * One indexer per workspace: `.quarry/index.lock` holds the owner's pid, host and start time.
 * A lock whose pid is no longer alive on this host is stale and is taken over.
 */
import { readFileSync, unlinkSync, statSync, writeFileSync, renameSync, rmSync } from 'node:fs';
import { createFilled } from '../exclusiveFile';
import { hostname } from 'node:os';
import { join } from 'node:path';

export interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
  /**
   * The holder rebuilds the index into a new generation (store/generations.ts): readers answer from the last complete
   * index, in full, meanwhile.
   */
  rebuild?: boolean;
}

export class IndexLockedError extends Error {
  constructor(readonly holder: LockInfo) {
    super(
      `Indexing already in progress (started at ${holder.startedAt} by process ${holder.pid} on ${holder.host}). ` +
        'Wait for it to finish, or stop that process; a lock left by a dead process is cleared automatically.',
    );
    this.name = 'IndexLockedError';
  }
}

/** Whether a process with this pid exists on this host (EPERM: it exists but belongs to another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock file's content as written, whether or not its process still runs. */
export function readLockFile(quarryDir: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(join(quarryDir, 'index.lock'), 'utf8')) as LockInfo;
    return info && typeof info.pid === 'number' ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The index lock's holder when it is alive: its process runs on this host (checked, not assumed), or it is on another
 * host (which cannot be checked). A lock left by a dead process is not "indexing in progress"; the next index run
 * takes it over.
 */
export function readLock(quarryDir: string): LockInfo | undefined {
  const info = readLockFile(quarryDir);
  if (!info) return undefined;
  return info.host !== hostname() || pidAlive(info.pid) ? info : undefined;
}

/** How long an empty or unreadable lock file is taken for one being written before it counts as abandoned. */
const UNREADABLE_LOCK_GRACE_MS = 2000;

function lockAgeMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Takes the lock or throws IndexLockedError; returns the release function. `rebuild`: see LockInfo. */
export function acquireIndexLock(quarryDir: string, options: { rebuild?: boolean } = {}): () => void {
  const path = join(quarryDir, 'index.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const info: LockInfo = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), ...(options.rebuild ? { rebuild: true } : {}) };
      createFilled(path, JSON.stringify(info));
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(path);
        } catch {
          /* already gone */
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = readLockFile(quarryDir);
      // An unreadable lock is one being written right now (created, not yet filled) unless it has been so for a while:
      // taking it over at once would let two processes that start together both "own" the lock.
      const stale = holder ? holder.host === hostname() && !pidAlive(holder.pid) : lockAgeMs(path) > UNREADABLE_LOCK_GRACE_MS;
      if (!stale) throw new IndexLockedError(holder ?? { pid: -1, host: hostname(), startedAt: new Date().toISOString() });
      try {
        unlinkSync(path);
      } catch {
        /* raced with another process; retry */
      }
    }
  }
  throw new IndexLockedError(readLockFile(quarryDir) ?? { pid: -1, host: 'unknown', startedAt: 'unknown' });
}

/** The holder of the lock (this process) says that its run turned out to be a rebuild (see LockInfo.rebuild). */
export function markLockRebuild(quarryDir: string): void {
  const path = join(quarryDir, 'index.lock');
  const info = readLockFile(quarryDir);
  if (!info || info.pid !== process.pid || info.host !== hostname() || info.rebuild) return;
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, JSON.stringify({ ...info, rebuild: true }));
    renameSync(tmp, path);
  } catch {
    rmSync(tmp, { force: true }); // a report for readers only: the run goes on
  }
}
