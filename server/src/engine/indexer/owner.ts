/**
 * Who keeps a workspace's index fresh. `.quarry/owner.json` names the long-lived process that owns the index — the
 * language server, `quarry serve`, or a `quarry mcp` that found nobody else — so that every other process on the
 * same workspace reads the index (readers see committed writes) instead of indexing it a second time.
 *
 * - The record: pid, host, kind, start time, a random id (two owners in one process differ), and the owner's MCP
 *   URL when it serves one (never its token). The owner touches the file every few seconds (heartbeat); a record is
 *   stale when its pid is gone (same host) or its heartbeat is older than `STALE_AFTER_MS`.
 * - Claims are decided under the index lock (`.quarry/index.lock`): of two processes starting at once, one writes
 *   the record and the other finds it. A claimant outranks a live owner of a lower rank (lsp > serve > mcp: the
 *   language server follows edits and unsaved buffers, the others index on start only) and takes the record over;
 *   the displaced owner notices on its next poll and stops writing.
 * - Everyone polls: an owner that finds another live record steps down (the later claim wins, so two owners never
 *   stay owners); a reader that finds the record stale or gone claims it (succession after a crash or an exit).
 *
 * Ownership decides who *should* index; the index lock still decides who *may* write at any moment.
 */
import { readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { acquireIndexLock, IndexLockedError, pidAlive, readLock } from './lock';
import { environmentCause } from '../store/storeErrors';

export type OwnerKind = 'lsp' | 'serve' | 'mcp';

/** lsp follows edits, serve runs as a service, mcp indexes on start only. */
export const OWNER_RANK: Record<OwnerKind, number> = { lsp: 3, serve: 2, mcp: 1 };

export const OWNER_FILE = 'owner.json';
/** A record whose heartbeat is older than this is stale even when its pid exists (pid reuse, a frozen process). */
export const STALE_AFTER_MS = 60_000;

export interface OwnerInfo {
  pid: number;
  host: string;
  kind: OwnerKind;
  startedAt: string;
  /** Random per claim: tells two owners of one process apart. */
  id: string;
  /** The workspace root. */
  root: string;
  /** The owner's MCP endpoint (Streamable HTTP), when it serves one. The token is never written here. */
  mcpUrl?: string;
}

export interface OwnerState extends OwnerInfo {
  /** Alive: the pid exists (same host) and the heartbeat is recent. */
  alive: boolean;
  /** Milliseconds since the last heartbeat. */
  heartbeatAgeMs: number;
}

function ownerPath(quarryDir: string): string {
  return join(quarryDir, OWNER_FILE);
}

/** The owner record with its liveness; undefined when there is none (or it is unreadable). */
export function readOwner(quarryDir: string): OwnerState | undefined {
  const path = ownerPath(quarryDir);
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as OwnerInfo;
    if (typeof info?.pid !== 'number' || !(info.kind in OWNER_RANK)) return undefined;
    const age = Math.max(0, Date.now() - statSync(path).mtimeMs);
    const alive = (info.host !== hostname() || pidAlive(info.pid)) && age < STALE_AFTER_MS;
    return { ...info, alive, heartbeatAgeMs: age };
  } catch {
    return undefined;
  }
}

/** The live owner, if any. */
export function liveOwner(quarryDir: string): OwnerState | undefined {
  const o = readOwner(quarryDir);
  return o?.alive ? o : undefined;
}

/** "the language server (pid 123)" */
export function describeOwner(o: Pick<OwnerInfo, 'kind' | 'pid' | 'host'>): string {
  const what = o.kind === 'lsp' ? 'the language server' : o.kind === 'serve' ? '`quarry serve`' : '`quarry mcp`';
  return `${what} (pid ${o.pid}${o.host !== hostname() ? ` on ${o.host}` : ''})`;
}

function writeRecord(quarryDir: string, info: OwnerInfo): void {
  const path = ownerPath(quarryDir);
  const tmp = `${path}.tmp-${process.pid}-${info.id}`;
  writeFileSync(tmp, JSON.stringify(info, null, 2));
  renameSync(tmp, path);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Live ownerships of this process: a clean exit gives their records up (one 'exit' listener for all). */
const active = new Set<IndexOwnership>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const o of active) o.close();
  });
}

export interface OwnershipOptions {
  kind: OwnerKind;
  root: string;
  mcpUrl?: string;
  /** Poll interval (default 2000 ms; `QUARRY_OWNER_POLL_MS` overrides). */
  pollMs?: number;
  /** Heartbeat interval of an owner (default 10 s). */
  heartbeatMs?: number;
  /** How long a claim waits for a busy index lock before settling as a reader for now (default 1500 ms). */
  lockWaitMs?: number;
  /**
   * Called when this process becomes the owner (`owned` true: the previous owner is gone, index now) or stops being
   * it (`owned` false: another process took over, stop writing), with the current holder.
   */
  onChange?: (owned: boolean, holder: OwnerState | undefined) => void;
}

/** One process's part in the ownership of one workspace index (see the file comment). */
export class IndexOwnership {
  private readonly self: OwnerInfo;
  private timer?: NodeJS.Timeout;
  private lastBeat = 0;
  private closed = false;
  private polling = false;
  private isOwner = false;
  private seen: OwnerState | undefined;

  /** This process owns the index (keeps it fresh); false: it only reads it. */
  get owned(): boolean {
    return this.isOwner;
  }

  /** The owner seen last (this process's record when `owned`); undefined when nobody owns the index. */
  get holder(): OwnerState | undefined {
    return this.seen;
  }

  private constructor(
    readonly quarryDir: string,
    private readonly options: OwnershipOptions,
  ) {
    this.self = {
      pid: process.pid,
      host: hostname(),
      kind: options.kind,
      startedAt: new Date().toISOString(),
      id: randomBytes(6).toString('hex'),
      root: options.root,
      ...(options.mcpUrl ? { mcpUrl: options.mcpUrl } : {}),
    };
  }

  /** Claims the index of `quarryDir` (or settles as a reader) and starts polling. */
  static async claim(quarryDir: string, options: OwnershipOptions): Promise<IndexOwnership> {
    const o = new IndexOwnership(quarryDir, options);
    await o.decide(options.lockWaitMs ?? 1500);
    const envPoll = Number(process.env.QUARRY_OWNER_POLL_MS);
    const poll = options.pollMs ?? (Number.isFinite(envPoll) && envPoll > 0 ? envPoll : 2000);
    o.timer = setInterval(() => void o.poll(), poll);
    o.timer.unref();
    active.add(o);
    installExitHook();
    return o;
  }

  /** This process's record. */
  get info(): OwnerInfo {
    return { ...this.self };
  }

  private isSelf(o: OwnerInfo | undefined): boolean {
    return !!o && o.id === this.self.id && o.pid === this.self.pid && o.host === this.self.host;
  }

  private current(): OwnerState {
    return { ...this.self, alive: true, heartbeatAgeMs: 0 };
  }

  /** Writes this process's record (ownership taken). */
  private take(): void {
    writeRecord(this.quarryDir, this.self);
    this.lastBeat = Date.now();
    this.isOwner = true;
    this.seen = this.current();
  }

  /**
   * `take()`, or stay a reader when the record cannot be written (a read-only or full disk: such a process cannot
   * index either, but it can still serve the index as it is).
   */
  private tryTake(): boolean {
    try {
      this.take();
      return true;
    } catch (e) {
      if (!environmentCause(e)) throw e;
      this.isOwner = false;
      this.seen = undefined;
      return false;
    }
  }

  /**
   * Decides ownership now: keep ours; respect a live owner of equal or higher rank; take over from a live owner of
   * lower rank; otherwise claim under the index lock (waiting up to `lockWaitMs` for it). Returns whether we own it.
   */
  private async decide(lockWaitMs: number): Promise<boolean> {
    const rec = readOwner(this.quarryDir);
    if (this.isSelf(rec)) {
      this.isOwner = true;
      this.seen = this.current();
      return true;
    }
    if (rec?.alive) {
      if (OWNER_RANK[this.options.kind] > OWNER_RANK[rec.kind]) {
        // Outranked owner: take the record; it steps down on its next poll and the lock serializes the writes.
        return this.tryTake();
      }
      this.isOwner = false;
      this.seen = rec;
      return false;
    }
    // Nobody (alive) owns it: the index lock decides between claimants that start at once.
    const deadline = Date.now() + lockWaitMs;
    let release: (() => void) | undefined;
    for (;;) {
      try {
        release = acquireIndexLock(this.quarryDir);
        break;
      } catch (e) {
        if (!(e instanceof IndexLockedError)) {
          if (!environmentCause(e)) throw e;
          // A read-only or full disk: no lock, no claim — serve the index as it is.
          this.isOwner = false;
          this.seen = undefined;
          return false;
        }
        const now = readOwner(this.quarryDir);
        if (now?.alive && !this.isSelf(now)) return this.decide(0); // someone claimed meanwhile
        if (Date.now() >= deadline || this.closed) {
          // A one-shot indexer (`quarry index`) holds the lock: read for now, claim on a later poll.
          this.isOwner = false;
          this.seen = undefined;
          return false;
        }
        await sleep(50);
      }
    }
    try {
      const again = readOwner(this.quarryDir);
      if (again?.alive && !this.isSelf(again) && OWNER_RANK[again.kind] >= OWNER_RANK[this.options.kind]) {
        this.isOwner = false;
        this.seen = again;
        return false;
      }
      return this.tryTake();
    } finally {
      release();
    }
  }

  private async poll(): Promise<void> {
    if (this.closed || this.polling) return;
    this.polling = true;
    try {
      const rec = readOwner(this.quarryDir);
      if (this.owned) {
        if (this.isSelf(rec)) {
          if (Date.now() - this.lastBeat >= (this.options.heartbeatMs ?? 10_000)) this.beat();
          return;
        }
        if (rec?.alive && OWNER_RANK[rec.kind] >= OWNER_RANK[this.options.kind]) {
          // Another process took over (a higher rank, or an equal one that claimed last): stop writing.
          this.isOwner = false;
          this.seen = rec;
          this.options.onChange?.(false, rec);
          return;
        }
        // Our record vanished (the index folder was removed) or was replaced by a dead or lower-ranked one: rewrite it.
        this.take();
        return;
      }
      if (rec?.alive && OWNER_RANK[this.options.kind] <= OWNER_RANK[rec.kind]) {
        this.seen = rec;
        return;
      }
      if (await this.decide(0)) this.options.onChange?.(true, this.holder);
    } catch {
      /* an unreadable or vanished .quarry folder: try again on the next poll */
    } finally {
      this.polling = false;
    }
  }

  private beat(): void {
    const now = new Date();
    try {
      utimesSync(ownerPath(this.quarryDir), now, now);
      this.lastBeat = now.getTime();
    } catch {
      /* vanished: the next poll rewrites it */
    }
  }

  /** Records the owner's MCP URL (rewrites the record when this process owns the index). */
  setMcpUrl(url: string | undefined): void {
    if (url) this.self.mcpUrl = url;
    else delete this.self.mcpUrl;
    if (this.owned && this.isSelf(readOwner(this.quarryDir))) this.take();
  }

  private removeIfMine(): void {
    const path = ownerPath(this.quarryDir);
    try {
      const rec = JSON.parse(readFileSync(path, 'utf8')) as OwnerInfo;
      if (this.isSelf(rec)) unlinkSync(path);
    } catch {
      /* gone already */
    }
  }

  /** Stops polling and gives the record up (when it is ours). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    active.delete(this);
    if (this.owned) this.removeIfMine();
    this.isOwner = false;
  }
}

/** True when this process holds the index lock of `quarryDir` (its own write is running). */
export function lockHeldByThisProcess(quarryDir: string): boolean {
  const l = readLock(quarryDir);
  return !!l && l.pid === process.pid && l.host === hostname();
}

/** True when the index lock is held by a live process (a stale lock, left by a dead one, is taken over on acquire). */
export function lockHeldByLiveProcess(quarryDir: string): boolean {
  const l = readLock(quarryDir);
  return !!l && (l.host !== hostname() || pidAlive(l.pid));
}
