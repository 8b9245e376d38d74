/**
 * The workspace walk (`discover`) and the single-file question (`classifyPath`).
 * See index.ts for the behaviours chosen.
 */
import { tally } from '../counts';
import type { Dirent, Stats } from 'node:fs';
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { DiscoveryConfig } from '../config/schema';
import type { DiscoveredFile, SkippedFile } from '../types';
import type { LayerStack } from './gitignore';
import { ALWAYS_EXCLUDED_DIRS, IgnoreMatcher, type IgnoreMatcherOptions } from './matcher';

export interface DiscoveryResult {
  /** Accepted files, sorted by path. */
  files: DiscoveredFile[];
  /** Every skipped file or directory with its reason (a skipped directory is one entry), sorted by path. */
  skipped: SkippedFile[];
  /** Files with extensions Quarry does not index, counted per lower-cased extension ('' for none). */
  unknownExtensions: Record<string, number>;
  /** Non-directory entries examined (files, file symlinks, special files) outside skipped directories. */
  totalSeen: number;
}

export interface DiscoverOptions extends IgnoreMatcherOptions {
  signal?: AbortSignal;
  /** Called with the running count of accepted files. */
  onFile?: (n: number) => void;
  /** Maximum concurrent file-system operations (default 64). */
  concurrency?: number;
  /** Reuse an already-built matcher (must be for the same root and config). */
  matcher?: IgnoreMatcher;
}

type Limiter = <T>(fn: () => Promise<T>) => Promise<T>;

function createLimiter(max: number): Limiter {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (fn) => {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else active++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next(); // hand the slot over directly
      else active--;
    }
  };
}

function errCode(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? String(e);
}

function isInside(real: string, rootReal: string): boolean {
  if (real === rootReal) return true;
  const prefix = rootReal.endsWith(path.sep) ? rootReal : rootReal + path.sep;
  return real.startsWith(prefix);
}

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

type EntryKind = 'dir' | 'file' | 'symlink' | 'other';

async function entryKind(d: Dirent, abs: string): Promise<EntryKind> {
  if (d.isDirectory()) return 'dir';
  if (d.isFile()) return 'file';
  if (d.isSymbolicLink()) return 'symlink';
  if (d.isFIFO() || d.isSocket() || d.isBlockDevice() || d.isCharacterDevice()) return 'other';
  // DT_UNKNOWN on some file systems: ask lstat.
  const st = await fsp.lstat(abs);
  return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : st.isSymbolicLink() ? 'symlink' : 'other';
}

interface PendingLink {
  rel: string;
  abs: string;
  targetReal: string;
  stack: LayerStack;
}

class Walker {
  readonly files: DiscoveredFile[] = [];
  readonly skipped: SkippedFile[] = [];
  readonly unknownExtensions: Record<string, number> = Object.create(null);
  totalSeen = 0;
  /** Real paths of every directory walked (each real directory is walked at most once). */
  private readonly visited = new Set<string>();
  private pendingLinks: PendingLink[] = [];
  private readonly limit: Limiter;

  constructor(
    private readonly m: IgnoreMatcher,
    private readonly config: DiscoveryConfig,
    private readonly opts: DiscoverOptions,
  ) {
    this.limit = createLimiter(Math.max(1, opts.concurrency ?? 64));
  }

  async run(): Promise<void> {
    const rootStack = this.m.baseStack;
    this.visited.add(this.m.rootReal);
    await this.walkDir(this.m.rootAbs, '', rootStack, this.m.rootReal, true);
    // Symlinked directories go last, in sorted order, so that a real directory is always reached
    // through its real path first and the result does not depend on scheduling.
    while (this.pendingLinks.length > 0) {
      const batch = this.pendingLinks.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
      this.pendingLinks = [];
      for (const link of batch) {
        if (this.visited.has(link.targetReal)) {
          this.skip({ path: link.rel, reason: 'symlink-loop', detail: `target ${this.realRel(link.targetReal)} is already walked` });
          continue;
        }
        this.visited.add(link.targetReal);
        await this.walkDir(link.abs, link.rel, link.stack, link.targetReal, false);
      }
    }
  }

  private realRel(real: string): string {
    return toPosix(path.relative(this.m.rootReal, real)) || '.';
  }

  private skip(s: SkippedFile): void {
    this.skipped.push(s);
    if (s.reason === 'unknown-extension') {
      const ext = s.detail ?? '';
      tally(this.unknownExtensions, ext);
    }
  }

  private accept(f: DiscoveredFile): void {
    this.files.push(f);
    this.opts.onFile?.(this.files.length);
  }

  /** `rel` is the directory's workspace-relative path ('' for the root). */
  private async walkDir(abs: string, rel: string, parentStack: LayerStack, real: string, isRoot: boolean): Promise<void> {
    this.opts.signal?.throwIfAborted();
    let entries: Dirent[];
    try {
      entries = await this.limit(() => fsp.readdir(abs, { withFileTypes: true }));
    } catch (e) {
      if (isRoot) throw e;
      this.skip({ path: rel, reason: 'unreadable', detail: errCode(e) });
      return;
    }
    this.opts.signal?.throwIfAborted();
    let hasGitignore = false;
    let hasGit = false;
    for (const d of entries) {
      if (d.name === '.gitignore') hasGitignore = true;
      else if (d.name === '.git') hasGit = true;
    }
    const stack = await this.limit(() => this.m.childStack(parentStack, rel, abs, hasGitignore, hasGit));
    const prefix = rel === '' ? '' : rel + '/';
    const work: Promise<void>[] = [];
    for (const d of entries) {
      const childRel = prefix + d.name;
      const childAbs = path.join(abs, d.name);
      work.push(this.entry(d, childRel, childAbs, stack, real));
    }
    await Promise.all(work);
  }

  private async entry(d: Dirent, rel: string, abs: string, stack: LayerStack, parentReal: string): Promise<void> {
    let kind: EntryKind;
    try {
      kind = await entryKind(d, abs);
    } catch (e) {
      this.totalSeen++;
      this.skip({ path: rel, reason: 'unreadable', detail: errCode(e) });
      return;
    }
    if (kind === 'dir') {
      const skip = this.m.checkDir(rel, d.name, stack);
      if (skip) return this.skip(skip);
      const real = path.join(parentReal, d.name);
      if (this.visited.has(real)) {
        return this.skip({ path: rel, reason: 'symlink-loop', detail: `target ${this.realRel(real)} is already walked` });
      }
      this.visited.add(real);
      return this.walkDir(abs, rel, stack, real, false);
    }
    this.totalSeen++;
    if (kind === 'file') return this.file(rel, d.name, abs, stack);
    if (kind === 'other') {
      // Rules first so an ignored socket or FIFO is reported as ignored; never opened.
      const v = this.m.checkFile(rel, d.name, stack);
      if ('skipped' in v) return this.skip(v.skipped);
      return this.skip({ path: rel, reason: 'unreadable', detail: 'not a regular file' });
    }
    return this.symlink(rel, d.name, abs, stack);
  }

  private async file(rel: string, name: string, abs: string, stack: LayerStack, known?: Stats): Promise<void> {
    const v = this.m.checkFile(rel, name, stack);
    if ('skipped' in v) return this.skip(v.skipped);
    let st: Stats;
    try {
      // Synchronous stat: far cheaper than a thread-pool round trip per file; a directory's
      // files are stat'ed in one go and walkDir yields between directories.
      st = known ?? fs.statSync(abs);
    } catch (e) {
      return this.skip({ path: rel, reason: 'unreadable', detail: errCode(e) });
    }
    if (!st.isFile()) return this.skip({ path: rel, reason: 'unreadable', detail: 'not a regular file' });
    if (st.size > this.config.maxFileSizeBytes) {
      return this.skip({ path: rel, reason: 'too-large', detail: `${st.size} bytes > ${this.config.maxFileSizeBytes}` });
    }
    this.accept({ path: rel, absPath: abs, language: v.language, size: st.size, mtimeMs: st.mtimeMs });
  }

  private async symlink(rel: string, name: string, abs: string, stack: LayerStack): Promise<void> {
    // Git sees a symlink as a file entry: file rules (ignore, secret) first.
    const asFile = this.m.checkFile(rel, name, stack);
    if ('skipped' in asFile && asFile.skipped.reason !== 'unknown-extension' && asFile.skipped.reason !== 'minified') {
      return this.skip(asFile.skipped);
    }
    if (!this.config.followSymlinks) return this.skip({ path: rel, reason: 'excluded', detail: 'symbolic link (followSymlinks is off)' });
    const r = await resolveLink(abs, this.m.rootReal, this.limit);
    if ('skip' in r) return this.skip({ path: rel, ...r.skip });
    // The secret rules apply to what the link points at as well: `src/settings.ts -> ../.env` is the .env file.
    const secret = secretTarget(this.m, r.real, r.stat.isDirectory());
    if (secret) return this.skip({ path: rel, reason: 'secret', detail: secret });
    if (r.stat.isDirectory()) {
      this.totalSeen--; // it is a directory, not a file
      const skip = this.m.checkDir(rel, name, stack);
      if (skip) return this.skip(skip);
      const inside = toPosix(path.relative(this.m.rootReal, r.real)).split('/');
      if (inside.some((s) => ALWAYS_EXCLUDED_DIRS.has(s))) {
        return this.skip({ path: rel, reason: 'excluded', detail: `target ${this.realRel(r.real)} is inside an always-excluded directory` });
      }
      this.pendingLinks.push({ rel, abs, targetReal: r.real, stack });
      return;
    }
    return this.file(rel, name, abs, stack, r.stat);
  }
}

/**
 * The skip detail when a link's target (its workspace-relative real path; a directory target is tested as a
 * directory) matches a secret pattern; undefined when none does.
 */
function secretTarget(m: IgnoreMatcher, real: string, isDir: boolean): string | undefined {
  const targetRel = toPosix(path.relative(m.rootReal, real));
  if (!targetRel || targetRel.startsWith('..')) return undefined;
  const pattern = m.secretPattern(isDir ? targetRel + '/' : targetRel) ?? (isDir ? undefined : m.secretPattern(path.posix.basename(targetRel)));
  return pattern ? `symbolic link to ${targetRel} (secret pattern ${pattern})` : undefined;
}

type LinkResolution = { real: string; stat: Stats } | { skip: Omit<SkippedFile, 'path'> };

async function resolveLink(abs: string, rootReal: string, limit: Limiter): Promise<LinkResolution> {
  let real: string;
  try {
    real = await limit(() => fsp.realpath(abs));
  } catch (e) {
    const code = errCode(e);
    if (code === 'ELOOP') return { skip: { reason: 'symlink-loop', detail: 'ELOOP (cyclic symbolic links)' } };
    if (code === 'ENOENT') return { skip: { reason: 'unreadable', detail: 'broken symbolic link' } };
    return { skip: { reason: 'unreadable', detail: code } };
  }
  if (!isInside(real, rootReal)) return { skip: { reason: 'symlink-outside-workspace', detail: real } };
  try {
    return { real, stat: await limit(() => fsp.stat(real)) };
  } catch (e) {
    return { skip: { reason: 'unreadable', detail: errCode(e) } };
  }
}

/** Walk a workspace and decide, for every file, whether Quarry indexes it. */
export async function discover(root: string, config: DiscoveryConfig, opts: DiscoverOptions = {}): Promise<DiscoveryResult> {
  opts.signal?.throwIfAborted();
  const matcher = opts.matcher ?? (await IgnoreMatcher.create(root, config, opts));
  const w = new Walker(matcher, config, opts);
  await w.run();
  return {
    files: w.files.sort(byPath),
    skipped: w.skipped.sort(byPath),
    unknownExtensions: { ...w.unknownExtensions },
    totalSeen: w.totalSeen,
  };
}

/**
 * Classify one workspace-relative path for an incremental update: the same rules as `discover`
 * (ancestor directories included), plus the file's own stat and symlink checks.
 */
export async function classifyPath(
  root: string,
  relPath: string,
  config: DiscoveryConfig,
  matcher?: IgnoreMatcher,
): Promise<DiscoveredFile | SkippedFile> {
  const m = matcher ?? (await IgnoreMatcher.create(root, config));
  const norm = relPath.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
  const rel = norm.join('/');
  if (norm.length === 0 || norm.includes('..') || path.isAbsolute(relPath)) {
    return { path: rel || relPath, reason: 'excluded', detail: 'not a path inside the workspace' };
  }
  const v = await m.verdict(rel);
  if ('skipped' in v) return v.skipped;
  const abs = path.join(m.rootAbs, ...norm);
  let lst: Stats;
  try {
    lst = await fsp.lstat(abs);
  } catch (e) {
    return { path: rel, reason: 'unreadable', detail: errCode(e) };
  }
  if (lst.isDirectory()) return { path: rel, reason: 'excluded', detail: 'a directory, not a file' };
  // Any symlink on the way (the file itself or an ancestor directory) must resolve inside the workspace.
  let real: string;
  try {
    real = await fsp.realpath(abs);
  } catch (e) {
    const code = errCode(e);
    if (code === 'ELOOP') return { path: rel, reason: 'symlink-loop', detail: 'ELOOP (cyclic symbolic links)' };
    return { path: rel, reason: 'unreadable', detail: code === 'ENOENT' ? 'broken symbolic link' : code };
  }
  const expectedReal = path.join(m.rootReal, ...norm);
  if (real !== expectedReal) {
    if (!config.followSymlinks) return { path: rel, reason: 'excluded', detail: 'symbolic link (followSymlinks is off)' };
    if (!isInside(real, m.rootReal)) return { path: rel, reason: 'symlink-outside-workspace', detail: real };
    const secret = secretTarget(m, real, false);
    if (secret) return { path: rel, reason: 'secret', detail: secret };
  }
  let st: Stats;
  try {
    st = await fsp.stat(abs);
  } catch (e) {
    return { path: rel, reason: 'unreadable', detail: errCode(e) };
  }
  if (st.isDirectory()) return { path: rel, reason: 'excluded', detail: 'a directory, not a file' };
  if (!st.isFile()) return { path: rel, reason: 'unreadable', detail: 'not a regular file' };
  if (st.size > config.maxFileSizeBytes) {
    return { path: rel, reason: 'too-large', detail: `${st.size} bytes > ${config.maxFileSizeBytes}` };
  }
  return { path: rel, absPath: abs, language: v.language, size: st.size, mtimeMs: st.mtimeMs };
}
