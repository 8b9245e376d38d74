/**
 * A short-lived cross-process lock (`<file>.lock`, created exclusively and whole — exclusiveFile.ts — holding pid and host): the memory logs' appends
 * and compactions, and the store's open-or-reset decision, hold it for milliseconds; a lock left by a dead process on this host is taken over, and
 * one older than `staleMs` is treated as abandoned (a process on another host, or a pid reused).
 */
import { readFileSync, unlinkSync, statSync } from 'node:fs';
import { createFilled } from './exclusiveFile';
import { hostname } from 'node:os';
import { pidAlive } from './indexer/lock';

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export class FileLockedError extends Error {
  constructor(readonly path: string, waitedMs: number, readonly holder?: { pid?: number; host?: string; alive?: boolean }) {
    super(
      holder?.pid !== undefined
        ? `Quarry process ${holder.pid} on ${holder.host ?? 'an unknown host'}${holder.alive === false ? ' (no longer running)' : ''} kept ${path} locked for ${waitedMs} ms; try again when it has finished${holder.alive === false ? '' : ', or stop it'}.`
        : `${path} stayed locked for ${waitedMs} ms (the lock names no process); try again, or delete the lock file if no Quarry process is running.`,
    );
    this.name = 'FileLockedError';
  }
}

/** Who holds the lock at `lockPath`, as far as its content says. */
function holderOf(lockPath: string): { pid?: number; host?: string; alive?: boolean } | undefined {
  try {
    const h = JSON.parse(readFileSync(lockPath, 'utf8')) as { pid?: number; host?: string };
    if (typeof h.pid !== 'number') return undefined;
    return { pid: h.pid, host: h.host, alive: h.host === hostname() ? pidAlive(h.pid) : undefined };
  } catch {
    return undefined;
  }
}

/** Takes the lock at `lockPath` when it is free (or abandoned); returns its release, or undefined when held. */
function tryAcquire(lockPath: string, staleMs: number): (() => void) | undefined {
  try {
    createFilled(lockPath, JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString() }));
    return () => {
      try {
        unlinkSync(lockPath);
      } catch {
        /* already gone */
      }
    };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  if (isStale(lockPath, staleMs)) {
    try {
      unlinkSync(lockPath);
    } catch {
      /* another process took it over first */
    }
    return tryAcquire(lockPath, staleMs);
  }
  return undefined;
}

/** Runs `fn` holding the lock at `lockPath`; waits up to `waitMs` for another holder. */
export function withFileLock<T>(lockPath: string, fn: () => T, waitMs = 5000, staleMs = 30_000): T {
  const started = Date.now();
  for (;;) {
    const release = tryAcquire(lockPath, staleMs);
    if (release) {
      try {
        return fn();
      } finally {
        release();
      }
    }
    if (Date.now() - started > waitMs) throw new FileLockedError(lockPath, Date.now() - started, holderOf(lockPath));
    sleepSync(10);
  }
}

/** `withFileLock` for asynchronous work (the event loop keeps running while it waits). */
export async function withFileLockAsync<T>(lockPath: string, fn: () => Promise<T>, waitMs = 30_000, staleMs = 60_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const release = tryAcquire(lockPath, staleMs);
    if (release) {
      try {
        return await fn();
      } finally {
        release();
      }
    }
    if (Date.now() - started > waitMs) throw new FileLockedError(lockPath, Date.now() - started, holderOf(lockPath));
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * An empty lock file older than this was left by a process killed between creating the file and writing its holder
 * (microseconds apart): it is abandoned, not held (waiting `staleMs` for it made the next open wait 30–60 s).
 */
const EMPTY_LOCK_MS = 1_000;

function isStale(lockPath: string, staleMs: number): boolean {
  let text = '';
  try {
    text = readFileSync(lockPath, 'utf8');
    const holder = JSON.parse(text) as { pid?: number; host?: string };
    if (holder.host === hostname() && typeof holder.pid === 'number' && !pidAlive(holder.pid)) return true;
  } catch {
    // unreadable or half-written: judge by age only
  }
  try {
    const age = Date.now() - statSync(lockPath).mtimeMs;
    return age > staleMs || (text.length === 0 && age > EMPTY_LOCK_MS);
  } catch {
    return false;
  }
}
