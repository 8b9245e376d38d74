/**
 * `quarry serve`: the HTTP door (`/health/`), the MCP endpoint beside it, and the index owner's loop.
 *
 * It starts completely or not at all: the address is checked before anything opens (loopback only — `/health/` and
 * MCP expose the workspace's state and code, and there is no authentication for `/health/`), and when any part fails
 * to start (port in use, MCP listener, index folder) everything already started is closed and the command exits
 * non-zero. Every route checks the Host header against the loopback names and the bound port (DNS rebinding).
 */
import { Engine } from '../engine/engine';
import { describeOwner, IndexOwnership } from '../engine/indexer/owner';
import { loadConfig } from '../engine/config/load';
import { startHttpServer, isLoopbackHost, type RunningHttpServer } from '../http/server';
import { configureLogging, enableFileLogs } from '../engine/log';

export interface ServeOptions {
  project: string;
  config?: string;
  host: string;
  port: number;
  mcpPort: number;
  mcp: boolean;
  index: boolean;
  reindex?: boolean;
  debug?: boolean;
}

/** A refusal to start, before anything was opened (exit code 2, like other usage errors). */
export class ServeRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServeRefusedError';
  }
}

export async function runServe(opts: ServeOptions): Promise<void> {
  if (!isLoopbackHost(opts.host)) {
    throw new ServeRefusedError(
      `Refusing to serve on ${opts.host}: quarry serve binds loopback addresses only (127.0.0.1, localhost or ::1), because /health/ and ` +
        'the MCP endpoint expose the workspace. To reach it from another machine, use an SSH tunnel (ssh -L 9328:127.0.0.1:9328 host).',
    );
  }
  if (opts.debug) configureLogging({ level: 'debug' });
  enableFileLogs(opts.project);
  const { config } = loadConfig(opts.project, opts.config);
  const engine = await Engine.open(opts.project, { config, longRunning: true });
  let http: RunningHttpServer | undefined;
  let mcp: { url: string; token: string; close(): Promise<void> } | undefined;
  // Patterns recorded over MCP are indexed here only while this process owns the index (`ownership`, below).
  let owns = (): boolean => false;
  try {
    http = await startHttpServer(engine, { host: opts.host, port: opts.port });
    mcp = opts.mcp ? await (await import('../mcp/http.js')).startMcpHttp(engine, { host: opts.host, port: opts.mcpPort, tools: { mayIndex: () => owns() } }) : undefined;
  } catch (e) {
    // Start completely or not at all: nothing half-started keeps running.
    await mcp?.close().catch(() => undefined);
    await http?.close().catch(() => undefined);
    await engine.close().catch(() => undefined);
    throw e;
  }
  const server = http;
  process.stderr.write(`quarry serve: ${engine.root} on ${server.url} (GET ${server.url}/health/)\n`);
  if (mcp) process.stderr.write(`quarry serve: MCP (Streamable HTTP) on ${mcp.url} — send "Authorization: Bearer ${mcp.token}"\n`);
  let abort = new AbortController();
  let stopping = false;
  let indexing: Promise<unknown> = Promise.resolve();
  let ownership: IndexOwnership | undefined;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`quarry serve: ${signal}, shutting down (committed work is kept)\n`);
    abort.abort();
    await indexing.catch(() => undefined);
    ownership?.close();
    await mcp?.close();
    await server.close();
    await engine.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  const runIndex = (full?: boolean) =>
    engine.index({ full, signal: abort.signal }).then(
      (s) => process.stderr.write(`quarry serve: indexed ${s.filesIndexed} files (${s.totalChunks} chunks in the index) in ${(s.durationMs / 1000).toFixed(1)}s\n`),
      (e: Error) => process.stderr.write(`quarry serve: indexing failed: ${e.message}\n`),
    );
  // One index owner per workspace (engine/indexer/owner.ts): a language server that keeps it fresh outranks serve,
  // which then serves the index read-only; serve takes over (and indexes) when the owner is gone.
  ownership = opts.index
    ? await IndexOwnership.claim(engine.quarryDir, {
        kind: 'serve',
        root: engine.root,
        mcpUrl: mcp?.url,
        onChange: (owned, holder) => {
          if (stopping) return;
          if (owned) {
            abort = new AbortController();
            indexing = runIndex();
          } else {
            process.stderr.write(`quarry serve: ${holder ? describeOwner(holder) : 'another process'} took over the index; serving it read-only\n`);
            abort.abort();
          }
        },
      }).catch((e: Error) => {
        // A read-only or full disk: serve the index as it is, without owning it.
        process.stderr.write(`quarry serve: cannot take part in index ownership (${e.message}); serving the index read-only\n`);
        return undefined;
      })
    : undefined;
  owns = () => ownership?.owned === true;
  if (ownership && !ownership.owned) {
    process.stderr.write(`quarry serve: ${ownership.holder ? describeOwner(ownership.holder) : 'another process'} owns the index of ${engine.root}; serving it read-only (no indexing here)\n`);
  }
  indexing = ownership?.owned ? runIndex(opts.reindex) : Promise.resolve();
  await new Promise(() => undefined); // serve until a signal arrives
}
