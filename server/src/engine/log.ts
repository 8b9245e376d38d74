/**
 * Structured logs (seed 002 FR-040): JSON lines on stderr (never stdout: the LSP and MCP doors speak their
 * protocols there) with `timestamp` (ISO 8601), `level`, `component`, `operation`, `duration_ms`, `request_id`,
 * `error` and `context`. Level from QUARRY_LOG_LEVEL (default `warn`; `debug` with `quarry serve --debug`).
 */
import pino, { DestinationStream, Logger } from 'pino';
import { randomUUID } from 'node:crypto';

export type Component = 'indexer' | 'searcher' | 'server' | 'cli' | 'embedder' | 'vectorstore';

const LEVELS: Record<string, string> = { trace: 'DEBUG', debug: 'DEBUG', info: 'INFO', warn: 'WARNING', error: 'ERROR', fatal: 'CRITICAL' };

let root: Logger | undefined;

/** (Re)configures the root logger; tests pass their own destination. */
export function configureLogging(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  root = pino(
    {
      level: options.level ?? process.env.QUARRY_LOG_LEVEL ?? 'warn',
      base: undefined,
      messageKey: 'message',
      timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: LEVELS[label] ?? label.toUpperCase() }) },
    },
    options.destination ?? pino.destination({ dest: 2, sync: true }),
  );
  return root;
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
