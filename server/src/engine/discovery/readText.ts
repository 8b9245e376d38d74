/**
 * Reading one file for indexing: size limit (from stat, before reading), binary detection
 * (`isbinaryfile`), strict UTF-8 decoding, BOM stripping and minified-bundle detection.
 */
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { SkipReason } from '../types';
import { MINIFIED_NAME } from './matcher';

/**
 * `bom` is true when a UTF-8 byte-order mark was stripped: byte offsets computed on `text` are then
 * 3 less than offsets into the file on disk.
 */
export type ReadTextResult = { text: string; bom?: boolean } | { skip: SkipReason; detail: string };

export interface ReadTextOptions {
  /** Skip files larger than this (default 1 MiB, the config default). */
  maxFileSizeBytes?: number;
  /** A line longer than this in a file with few lines marks it minified (default 1000). */
  minifiedLineLength?: number;
  /** False for files whose long lines are expected (Quarry's own JSON-lines memory): no minified check. */
  detectMinified?: boolean;
}

/** Average line length above which a (non-tiny) file counts as minified. */
export const MINIFIED_AVERAGE_LINE_LENGTH = 300;
/** Files shorter than this are never called minified by the average rule (nothing to gain by skipping). */
const MINIFIED_MIN_CHARS = 1024;
/** "A file of few lines": the long-line rule applies to files with at most this many lines. */
export const MINIFIED_FEW_LINES = 50;

/**
 * Whether decoded text looks like a minified bundle: average line length > 300 (files of at
 * least 1 KiB), or a file of at most 50 lines with any line longer than `minifiedLineLength`.
 */
export function looksMinified(text: string, minifiedLineLength = 1000): boolean {
  if (text.length === 0) return false;
  let lines = 1;
  let longest = 0;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    longest = Math.max(longest, i - start);
    start = i + 1;
    lines++;
  }
  longest = Math.max(longest, text.length - start);
  if (text.endsWith('\n')) lines--; // a final newline does not start a line
  if (text.length >= MINIFIED_MIN_CHARS && text.length / Math.max(1, lines) > MINIFIED_AVERAGE_LINE_LENGTH) return true;
  return lines <= MINIFIED_FEW_LINES && longest > minifiedLineLength;
}

/**
 * Valid UTF-8 that is still binary: NUL characters, or many C0 control characters, in the first 8 KB.
 * (The `isbinaryfile` package was used here first; its protobuf heuristic took seconds on some ordinary
 * source files, and once the bytes are known to be valid UTF-8 only this check remains.)
 */
export function hasBinaryControls(text: string): boolean {
  const n = Math.min(text.length, 8192);
  let controls = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return true;
    if (c < 32 && c !== 9 && c !== 10 && c !== 12 && c !== 13 && c !== 27 && c !== 11) controls++;
  }
  return n > 0 && controls / n > 0.1;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Read a file for indexing, or say why it is skipped (vanished, not a regular file, too large, binary, minified).
 * Throws when an existing file cannot be read (EACCES, EIO…): a per-file failure for the indexer to retry and report.
 */
export async function readTextFile(absPath: string, opts: ReadTextOptions = {}): Promise<ReadTextResult> {
  const maxSize = opts.maxFileSizeBytes ?? 1_048_576;
  const name = path.basename(absPath);
  if (MINIFIED_NAME.test(name)) return { skip: 'minified', detail: 'bundle file name' };
  let buf: Buffer;
  try {
    // Synchronous: a file of at most maxSize reads in well under a millisecond, while two round trips through the
    // thread pool per file cost five times the CPU and, on a busy machine, most of an indexing run's waiting.
    const st = statSync(absPath);
    if (!st.isFile()) return { skip: 'unreadable', detail: 'not a regular file' };
    if (st.size > maxSize) return { skip: 'too-large', detail: `${st.size} bytes > ${maxSize}` };
    buf = readFileSync(absPath);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // Gone since discovery (deleted, renamed away): nothing to index. Anything else (EACCES, EIO, EMFILE…) is a
    // per-file failure the caller retries, counts and reports (seed 002 FR-009a/b).
    if (code === 'ENOENT' || code === 'ENOTDIR') return { skip: 'unreadable', detail: code };
    throw e;
  }
  if (buf.length > maxSize) return { skip: 'too-large', detail: `${buf.length} bytes > ${maxSize}` }; // grew since stat
  if (buf.length === 0) return { text: '' };
  // UTF-16/32 text would decode as garbage with the offsets Quarry stores (UTF-8 bytes): skip it.
  if ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff)) {
    return { skip: 'binary', detail: 'UTF-16 encoded text' };
  }
  let text: string;
  try {
    text = decoder.decode(buf); // strips a leading UTF-8 BOM (ignoreBOM: false)
  } catch {
    // Not UTF-8: binary if it has NUL bytes, else text in a legacy encoding (Latin-1, CP-1252...).
    const nul = buf.subarray(0, 8192).includes(0);
    return { skip: 'binary', detail: nul ? 'binary content' : 'invalid UTF-8' };
  }
  if (hasBinaryControls(text)) return { skip: 'binary', detail: 'binary content' };
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (opts.detectMinified !== false && looksMinified(text, opts.minifiedLineLength ?? 1000)) return { skip: 'minified', detail: 'very long lines' };
  const bom = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
  return bom ? { text, bom } : { text };
}
