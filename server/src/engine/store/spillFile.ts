/**
 * Text written once and read back by position: where a read snapshot keeps a column it does not hold in memory
 * (tableSnapshot.ts `spilled`: the chunks' content, most of the table's bytes; issue 19).
 *
 * The file lives in the index's own folder (a real disk, where a memory-backed temp folder would only move the bytes
 * into RAM). On POSIX systems it is unlinked as soon as it is open, so a killed process leaves nothing behind; where
 * an open file cannot be unlinked (Windows) it is removed on close, and leftovers of killed processes are removed by
 * the next one that spills into the folder. Reads are positioned reads through the operating system's page cache:
 * about a microsecond per value, and the bytes count against no process.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

let sequence = 0;

export class SpillFile {
  private size = 0;
  private closed = false;
  private buf = Buffer.allocUnsafe(64 * 1024);

  private constructor(
    private readonly fd: number,
    /** Set while the file still has a name to remove on close. */
    private path: string | undefined,
  ) {}

  /**
   * A new empty file in `dir`, which is created when missing but not its parent (the index's generation folder: a
   * background snapshot load must never bring back an index folder the user removed — ENOENT then). Throws the
   * environment's error (a full disk, no permission).
   */
  static create(dir: string, label: string): SpillFile {
    try {
      mkdirSync(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    removeLeftovers(dir);
    const path = join(dir, `${label}-${process.pid}-${++sequence}.spill`);
    const fd = openSync(path, 'w+');
    try {
      unlinkSync(path);
      return new SpillFile(fd, undefined);
    } catch {
      return new SpillFile(fd, path);
    }
  }

  /** Appends `bytes[from .. to)`; returns the position it starts at. */
  append(bytes: Uint8Array, from: number, to: number): number {
    const at = this.size;
    let written = 0;
    while (written < to - from) written += writeSync(this.fd, bytes, from + written, to - from - written, at + written);
    this.size += to - from;
    return at;
  }

  /** The UTF-8 text of `length` bytes at `position`. */
  text(position: number, length: number): string {
    if (this.closed) throw new Error('the spill file is closed');
    if (length > this.buf.length) this.buf = Buffer.allocUnsafe(Math.max(length, this.buf.length * 2));
    let read = 0;
    while (read < length) {
      const n = readSync(this.fd, this.buf, read, length - read, position + read);
      if (n === 0) throw new Error(`the spill file ends at ${position + read}, before ${position + length}`);
      read += n;
    }
    return this.buf.toString('utf8', 0, length);
  }

  /** Bytes written. */
  get bytes(): number {
    return this.size;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    if (this.path) rmSync(this.path, { force: true });
    this.path = undefined;
  }
}

/** Spill files of processes that were killed where files cannot be unlinked while open (open ones refuse removal). */
function removeLeftovers(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /-(\d+)-\d+\.spill$/.exec(name)?.[1];
    if (!pid || Number(pid) === process.pid || processAlive(Number(pid))) continue;
    try {
      rmSync(join(dir, name), { force: true });
    } catch {
      /* in use */
    }
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
