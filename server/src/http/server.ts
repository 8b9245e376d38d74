/**
 * The HTTP door of `quarry serve`: `GET /health/` (seed 002 FR-010-Enhanced JSON) on loopback by default.
 * Other handlers (the MCP endpoint) mount on the same server through `routes`.
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

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, null, 2);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

export async function startHttpServer(engine: Engine, options: HttpServerOptions): Promise<RunningHttpServer> {
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    try {
      if (req.method === 'GET' && (path === '/health/' || path === '/health')) {
        const health = await engine.health();
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
  return {
    url: `http://${options.host}:${port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
