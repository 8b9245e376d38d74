/**
 * Append-only JSON-lines logs (the memory under `.quarry/memory/`): one event per line, appended under a short
 * cross-process lock, folded by the reader. A torn last line (a process killed mid-write) or any other line that is
 * not a JSON object is skipped and reported by line number, never fatal; the next append starts on a fresh line.
 * Compaction rewrites the log through a temporary file and a rename, under the same lock, so readers see either
 * the old or the new file.
 */
import { appendFileSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { withFileLock } from '../fileLock';

export interface LogLine<T> {
  /** 1-based line number in the file. */
  line: number;
  /** Character offset of the line's start and end (newline excluded) in the file's text. */
  start: number;
  end: number;
  value: T;
}

export interface LogRead<T> {
  text: string;
  lines: LogLine<T>[];
  /** Line numbers that are not JSON objects (torn writes, hand edits). */
  malformed: number[];
}

/** Parses a log's text: every line holding a JSON object, with its position. */
export function parseLog<T extends object>(text: string): LogRead<T> {
  const lines: LogLine<T>[] = [];
  const malformed: number[] = [];
  let start = 0;
  let n = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    n++;
    const raw = text.slice(start, end).trim();
    if (raw) {
      try {
        const value = JSON.parse(raw) as unknown;
        if (value && typeof value === 'object' && !Array.isArray(value)) lines.push({ line: n, start, end, value: value as T });
        else malformed.push(n);
      } catch {
        malformed.push(n);
      }
    }
    start = end + 1;
  }
  return { text, lines, malformed };
}

export function readLog<T extends object>(path: string): LogRead<T> {
  if (!existsSync(path)) return { text: '', lines: [], malformed: [] };
  return parseLog<T>(readFileSync(path, 'utf8'));
}

function endsWithNewline(path: string): boolean {
  if (!existsSync(path)) return true;
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, size - 1);
    return b[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** Appends events (one line each) under the log's lock. */
export function appendLog(path: string, events: readonly object[]): void {
  if (!events.length) return;
  mkdirSync(dirname(path), { recursive: true });
  withFileLock(`${path}.lock`, () => {
    const body = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
    appendFileSync(path, endsWithNewline(path) ? body : '\n' + body, 'utf8');
  });
}

/**
 * Rewrites the log with `fold(current)` under its lock (compaction): `fold` gets the current content read inside the
 * lock, so appends made by other processes just before are kept.
 */
export function rewriteLog<T extends object>(path: string, fold: (current: LogRead<T>) => readonly object[]): void {
  mkdirSync(dirname(path), { recursive: true });
  withFileLock(`${path}.lock`, () => {
    const events = fold(readLog<T>(path));
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, events.map((e) => JSON.stringify(e) + '\n').join(''), 'utf8');
    renameSync(tmp, path);
  });
}
