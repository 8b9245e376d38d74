/**
 * Structured logs (seed 002 FR-040): JSON lines on stderr (never stdout: the LSP and MCP doors speak their
 * protocols there) with `timestamp` (ISO 8601), `level`, `component`, `operation`, `duration_ms`, `request_id`,
 * `error` and `context`. Level from QUARRY_LOG_LEVEL (default `warn`; `debug` with `quarry serve --debug`).
 * Indexing and serving processes also keep the same lines, from INFO up, in `<project>/.quarry/logs/quarry.log`,
 * rotated at 10 MB with 5 files kept (`enableFileLogs`).
 */
import pino, { DestinationStream, Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
type Rfs = typeof import('rotating-file-stream', { with: { 'resolution-mode': 'import' } });
// The package ships CommonJS beside its ESM build; its types are declared for the ESM one.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createStream } = require('rotating-file-stream') as Rfs;

export type Component = 'indexer' | 'searcher' | 'server' | 'cli' | 'embedder' | 'vectorstore';

const LEVELS: Record<string, string> = { trace: 'DEBUG', debug: 'DEBUG', info: 'INFO', warn: 'WARNING', error: 'ERROR', fatal: 'CRITICAL' };

let root: Logger | undefined;

const ORDER = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
let current: { level?: string; destination?: DestinationStream; fileDir?: string } = {};

/**
 * (Re)configures the root logger; tests pass their own destination. `fileDir`: also write INFO and up (or the
 * configured level when lower) to `<fileDir>/quarry.log`, rotated by size.
 */
export function configureLogging(options: { level?: string; destination?: DestinationStream; fileDir?: string } = {}): Logger {
  current = options;
  const level = options.level ?? process.env.QUARRY_LOG_LEVEL ?? 'warn';
  const console = options.destination ?? (process.stderr.isTTY ? humanReadable() : pino.destination({ dest: 2, sync: true }));
  const settings = {
    base: undefined,
    messageKey: 'message',
    timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
    formatters: { level: (label: string) => ({ level: LEVELS[label] ?? label.toUpperCase() }) },
  };
  if (!options.fileDir || level === 'silent') {
    root = pino({ ...settings, level }, console);
    return root;
  }
  mkdirSync(options.fileDir, { recursive: true });
  const file = createStream('quarry.log', { path: options.fileDir, size: '10M', maxFiles: 5 });
  file.on('error', () => undefined); // a full disk must never take the service down; stderr still has the errors
  const fileLevel = ORDER.indexOf(level) < ORDER.indexOf('info') ? level : 'info';
  const lowest = ORDER.indexOf(level) < ORDER.indexOf(fileLevel) ? level : fileLevel;
  root = pino({ ...settings, level: lowest }, pino.multistream([{ level: level as pino.Level, stream: console }, { level: fileLevel as pino.Level, stream: file }]));
  return root;
}

/**
 * On a terminal, the same records as one readable line each (`12:03:04 WARNING indexer index_run failed (812 ms):
 * …`); files and pipes keep the JSON.
 */
function humanReadable(): DestinationStream {
  return {
    write(line: string) {
      let r: Record<string, unknown>;
      try {
        r = JSON.parse(line) as Record<string, unknown>;
      } catch {
        process.stderr.write(line);
        return;
      }
      const time = String(r.timestamp ?? '').slice(11, 19);
      const err = r.error as { type?: string; message?: string } | undefined;
      const parts = [time, String(r.level ?? ''), String(r.component ?? ''), String(r.message ?? '')];
      if (typeof r.duration_ms === 'number') parts.push(`(${Math.round(r.duration_ms)} ms)`);
      if (err?.message) parts.push(`: ${err.type ?? 'Error'}: ${err.message}`);
      process.stderr.write(parts.filter(Boolean).join(' ') + '\n');
    },
  };
}

/** Keeps this process's logs (INFO and up) in `<project>/.quarry/logs/`, besides stderr. */
export function enableFileLogs(projectRoot: string): void {
  // A missing project is reported by the engine; logging must not create it.
  try {
    if (!statSync(projectRoot).isDirectory()) return;
  } catch {
    return;
  }
  try {
    configureLogging({ ...current, fileDir: join(projectRoot, '.quarry', 'logs') });
  } catch {
    // An unwritable .quarry/ is reported by the engine; logs stay on stderr.
  }
}

export function logger(component: Component): Logger {
  return (root ?? configureLogging()).child({ component });
}

/**
 * Runs `fn` as a named operation: logs its completion (INFO, or DEBUG when `quiet`) with duration_ms and a
 * request_id, or its failure (ERROR, with the error's type and message), and returns / rethrows its result.
 */
export async function traced<T>(component: Component, operation: string, context: Record<string, unknown>, fn: () => Promise<T>, quiet = false): Promise<T> {
  const log = logger(component);
  const request_id = randomUUID();
  const started = performance.now();
  try {
    const result = await fn();
    const fields = { operation, request_id, duration_ms: Math.round((performance.now() - started) * 100) / 100, context };
    if (quiet) log.debug(fields, `${operation} done`);
    else log.info(fields, `${operation} done`);
    return result;
  } catch (e) {
    const err = e as Error;
    const fields = { operation, request_id, duration_ms: Math.round((performance.now() - started) * 100) / 100, context, error: { type: err.name, message: err.message } };
    // A query the user mistyped is answered with a clear error to them; it is not a service failure.
    if (err.name === 'QueryError') log.debug(fields, `${operation} rejected the query`);
    else log.error(fields, `${operation} failed`);
    throw e;
  }
}
