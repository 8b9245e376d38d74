/**
 * The MCP endpoint over Streamable HTTP, served by the running server (`quarry serve`, the language server) on
 * loopback only. Stateless: every POST gets a fresh McpServer + transport over the shared engine (JSON responses,
 * no SSE stream; GET/DELETE answer 405). Guards, in order: path (404), Host/Origin against DNS rebinding (403),
 * bearer token (401), method (405), concurrency (429), body size (413), JSON (400).
 */
// First: a packaged extension unpacks its compressed native libraries before anything requires LanceDB.
import '../startup/unpackNatives';
import '../startup/heapPolicy';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Engine } from '../engine/engine';
import type { QuarryToolOptions } from './tools';
import { createQuarryMcpServer } from './server';

export const MCP_PATH = '/mcp';
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export interface McpHttpOptions {
  host?: string;
  /** 0 = any free port. */
  port: number;
  /** Bearer token clients must send; a random one per start when absent. */
  token?: string;
  /** Max request body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Max requests in flight (default 16). */
  maxConcurrent?: number;
  tools?: QuarryToolOptions;
}

export interface McpHttpHandle {
  /** http://127.0.0.1:PORT/mcp */
  url: string;
  host: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export class McpHttpConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpHttpConfigError';
  }
}

function sendJson(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m) return false;
  const a = Buffer.from(m[1].trim());
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Reads the body up to `limit` bytes; undefined when it is larger. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (d: Buffer) => {
      if (over) return;
      size += d.length;
      if (size > limit) {
        over = true;
        parts.length = 0;
        resolve(undefined);
        return;
      }
      parts.push(d);
    });
    req.on('end', () => !over && resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

export async function startMcpHttp(engine: Engine, options: McpHttpOptions): Promise<McpHttpHandle> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) {
    throw new McpHttpConfigError(
      `Refusing to serve MCP on ${host}: the MCP endpoint listens on loopback only (127.0.0.1, localhost or ::1), because it exposes the workspace's code.`,
    );
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) throw new McpHttpConfigError(`Invalid MCP port ${options.port}: use 0..65535.`);
  const token = options.token ?? randomBytes(32).toString('base64url');
  if (!token) throw new McpHttpConfigError('The MCP bearer token must not be empty.');
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const maxConcurrent = options.maxConcurrent ?? 16;

  let allowedHosts: string[] = [];
  let allowedOrigins: string[] = [];
  let inFlight = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MCP_PATH) return sendJson(res, 404, `Not found: the MCP endpoint is ${MCP_PATH}.`);
    const hostHeader = req.headers.host;
    if (!hostHeader || !allowedHosts.includes(hostHeader)) return sendJson(res, 403, `Invalid Host header: ${hostHeader ?? '(none)'}`);
    const origin = req.headers.origin;
    if (origin && !allowedOrigins.includes(origin)) return sendJson(res, 403, `Invalid Origin header: ${origin}`);
    if (!tokenMatches(req.headers.authorization, token)) {
      return sendJson(res, 401, 'Unauthorized: send "Authorization: Bearer <token>" (the token is printed when the server starts).', {
        'www-authenticate': 'Bearer realm="quarry-mcp"',
      });
    }
    if (req.method !== 'POST') return sendJson(res, 405, 'Method not allowed: this stateless MCP endpoint accepts POST only.', { allow: 'POST' });
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBody) {
      res.setHeader('connection', 'close');
      return sendJson(res, 413, `Request body too large (limit ${maxBody} bytes).`);
    }
    if (inFlight >= maxConcurrent) return sendJson(res, 429, `Too many concurrent MCP requests (limit ${maxConcurrent}); retry shortly.`, { 'retry-after': '1' });
    inFlight++;
    res.once('close', () => inFlight--);

    const body = await readBody(req, maxBody);
    if (body === undefined) {
      res.setHeader('connection', 'close');
      return sendJson(res, 413, `Request body too large (limit ${maxBody} bytes).`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return sendJson(res, 400, 'Parse error: the body is not valid JSON.');
    }

    const server = createQuarryMcpServer(engine, options.tools);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      enableDnsRebindingProtection: true,
      allowedHosts,
      allowedOrigins,
      maxRequestBodySize: maxBody,
    } as ConstructorParameters<typeof StreamableHTTPServerTransport>[0]);
    res.once('close', () => {
      void transport.close().catch(() => undefined);
      void server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, parsed);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      // A client that went away mid-request is not a server error.
      if (req.destroyed || res.destroyed || (e as NodeJS.ErrnoException)?.code === 'ECONNRESET' || (e as Error)?.message === 'aborted') return;
      process.stderr.write(`[quarry mcp http] ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
      sendJson(res, 500, 'Internal server error.');
    });
  });
  http.headersTimeout = 30_000;
  http.requestTimeout = 120_000;

  await new Promise<void>((resolve, reject) => {
    http.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new McpHttpConfigError(`Port ${options.port} on ${host} is already in use: pick another port.`) : e),
    );
    http.listen(options.port, host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const names = ['127.0.0.1', 'localhost', '[::1]'];
  allowedHosts = names.map((n) => `${n}:${port}`);
  allowedOrigins = names.flatMap((n) => [`http://${n}:${port}`]);
  const urlHost = host === '::1' ? '[::1]' : host;

  return {
    url: `http://${urlHost}:${port}${MCP_PATH}`,
    host,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections?.();
        http.close(() => resolve());
      }),
  };
}
