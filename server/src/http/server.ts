/**
 * The HTTP door of `quarry serve`: `GET /health/` (seed 002 FR-010-Enhanced JSON), on loopback only.
 * Other handlers (the MCP endpoint) mount on the same server through `routes`.
 *
 * It refuses a non-loopback address (there is no authentication on `/health/`), and every route checks the Host
 * header against the loopback names with the bound port (a DNS-rebinding page cannot read it): 403 otherwise.
 */
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Engine } from '../engine/engine';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export interface HttpServerOptions {
  host: string;
  port: number;
  /** Extra routes by path prefix (e.g. '/mcp'). */
  routes?: Record<string, RouteHandler>;
}

export interface RunningHttpServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Whether `host` is a loopback address or name this server may bind. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The Host header values a loopback server on `port` answers (anything else may be a DNS-rebinding page). */
export function allowedHostHeaders(bindHost: string, port: number): Set<string> {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost]);
  return new Set([...names].map((n) => `${n}:${port}`));
}

/**
 * The health report with the index's own problems counted: a report that says "healthy" while the index has problems
 * (a missing lexical index, an unreadable state file, a reset store) would be a silent failure.
 */
export function healthWithProblems<T extends { status: string }>(health: T, problems: readonly string[]): T & { problems: string[] } {
  const status = problems.length && health.status === 'healthy' ? 'degraded' : health.status;
  return { ...health, status, problems: [...problems] };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, null, 2);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

export async function startHttpServer(engine: Engine, options: HttpServerOptions): Promise<RunningHttpServer> {
  if (!isLoopbackHost(options.host)) {
    throw new Error(`Refusing to serve on ${options.host}: the HTTP server binds loopback addresses only (127.0.0.1, localhost or ::1).`);
  }
  let allowed = new Set<string>();
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    try {
      const hostHeader = req.headers.host?.toLowerCase();
      if (!hostHeader || !allowed.has(hostHeader)) {
        sendJson(res, 403, { error: `Invalid Host header: ${hostHeader ?? '(none)'} (this server answers ${[...allowed].join(', ')} only)` });
        return;
      }
      if (req.method === 'GET' && (path === '/health/' || path === '/health')) {
        const health = healthWithProblems(await engine.health(), (await engine.status()).problems);
        sendJson(res, health.status === 'unhealthy' ? 503 : 200, health);
        return;
      }
      for (const [prefix, handler] of Object.entries(options.routes ?? {})) {
        if (path === prefix || path.startsWith(prefix + '/')) {
          await handler(req, res);
          return;
        }
      }
      sendJson(res, 404, { error: `No route ${req.method} ${path}. Try GET /health/.` });
    } catch (e) {
      if (!res.headersSent) sendJson(res, 500, { error: (e as Error).message });
      else res.end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new Error(
          e.code === 'EADDRINUSE'
            ? `Port ${options.port} on ${options.host} is already in use (another quarry serve?). Pick another with --port.`
            : `Cannot listen on ${options.host}:${options.port}: ${e.message}`,
        ),
      ),
    );
    server.listen(options.port, options.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : options.port;
  allowed = allowedHostHeaders(options.host, port);
  return {
    url: `http://${options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host}:${port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
