/**
 * The MCP endpoint over Streamable HTTP: loopback only, bearer token, Host/Origin checks (DNS rebinding),
 * body-size and concurrency limits, and a real SDK client session over the engine.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Engine } from '../../../server/src/engine/engine';
import { startMcpHttp, McpHttpHandle } from '../../../server/src/mcp/http';
import { findCodeResponseSchema } from '../../../server/src/mcp/tools';
import { copyFixture, removeDir } from '../../support/workspace';

interface Reply {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function raw(port: number, opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: opts.method ?? 'POST', path: opts.path ?? '/mcp', headers: opts.headers },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += String(d)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

describe('MCP over Streamable HTTP', function () {
  this.timeout(120_000);
  let root: string;
  let engine: Engine;
  let mcp: McpHttpHandle;
  const base = (token?: string): Record<string, string> => ({
    host: `127.0.0.1:${mcp.port}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  });

  before(async () => {
    root = copyFixture('polyglot');
    engine = await Engine.open(root, { embedding: null, reranker: null });
    await engine.index();
    mcp = await startMcpHttp(engine, { host: '127.0.0.1', port: 0 });
  });

  after(async () => {
    await mcp?.close();
    await engine?.close();
    removeDir(root);
  });

  it('refuses non-loopback hosts', async () => {
    await assert.rejects(() => startMcpHttp(engine, { host: '0.0.0.0', port: 0 }), /loopback only/);
    await assert.rejects(() => startMcpHttp(engine, { host: '192.168.1.10', port: 0 }), /loopback only/);
  });

  it('generates a random per-start token and a loopback URL', async () => {
    assert.match(mcp.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.ok(mcp.token.length >= 32);
    const other = await startMcpHttp(engine, { port: 0 });
    try {
      assert.notEqual(other.token, mcp.token);
    } finally {
      await other.close();
    }
  });

  it('401 without a token or with a wrong one', async () => {
    const none = await raw(mcp.port, { headers: base(), body: INIT });
    assert.equal(none.status, 401);
    assert.match(String(none.headers['www-authenticate']), /Bearer/);
    const wrong = await raw(mcp.port, { headers: base('x'.repeat(mcp.token.length)), body: INIT });
    assert.equal(wrong.status, 401);
    const short = await raw(mcp.port, { headers: base('nope'), body: INIT });
    assert.equal(short.status, 401);
  });

  it('403 for a foreign Host or Origin header (DNS rebinding), even with the token', async () => {
    const host = await raw(mcp.port, { headers: { ...base(mcp.token), host: `evil.example:${mcp.port}` }, body: INIT });
    assert.equal(host.status, 403);
    assert.match(host.body, /Invalid Host/);
    const origin = await raw(mcp.port, { headers: { ...base(mcp.token), origin: 'http://evil.example' }, body: INIT });
    assert.equal(origin.status, 403);
    assert.match(origin.body, /Invalid Origin/);
    const okOrigin = await raw(mcp.port, { headers: { ...base(mcp.token), origin: `http://localhost:${mcp.port}` }, body: INIT });
    assert.equal(okOrigin.status, 200);
  });

  it('413 for an oversized body, 400 for bad JSON, 405 for GET, 404 elsewhere', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024 + 10) } });
    const tooBig = await raw(mcp.port, { headers: base(mcp.token), body: big });
    assert.equal(tooBig.status, 413); // chunked: counted while streaming
    const declared = await raw(mcp.port, { headers: { ...base(mcp.token), 'content-length': String(Buffer.byteLength(big)) }, body: big });
    assert.equal(declared.status, 413); // Content-Length over the limit: refused before reading
    const bad = await raw(mcp.port, { headers: base(mcp.token), body: '{not json' });
    assert.equal(bad.status, 400);
    const get = await raw(mcp.port, { method: 'GET', headers: base(mcp.token) });
    assert.equal(get.status, 405);
    const elsewhere = await raw(mcp.port, { path: '/other', headers: base(mcp.token), body: INIT });
    assert.equal(elsewhere.status, 404);
  });

  it('429 beyond the concurrency limit', async () => {
    const limited = await startMcpHttp(engine, { port: 0, maxConcurrent: 1 });
    try {
      // Hold one request open (its body never ends), then send another.
      const held = request({ host: '127.0.0.1', port: limited.port, method: 'POST', path: '/mcp', headers: { host: `127.0.0.1:${limited.port}`, authorization: `Bearer ${limited.token}`, 'content-type': 'application/json', 'content-length': '100' } });
      held.on('error', () => undefined);
      held.write('{');
      await new Promise((r) => setTimeout(r, 200));
      const second = await raw(limited.port, { headers: { host: `127.0.0.1:${limited.port}`, authorization: `Bearer ${limited.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: INIT });
      assert.equal(second.status, 429);
      held.destroy();
    } finally {
      await limited.close();
    }
  });

  it('a real SDK client with the bearer token lists tools and runs find_code', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit: { headers: { Authorization: `Bearer ${mcp.token}` } } });
    const client = new Client({ name: 'quarry-http-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['find_code', 'find_implementations', 'find_symbol', 'index_status', 'record_pattern', 'report_pattern_use', 'report_results_used']);
      const r = (await client.callTool({ name: 'find_code', arguments: { query: 'formatPriceCents', max_results: 5 } })) as CallToolResult;
      assert.ok(!r.isError, JSON.stringify(r.content));
      const res = findCodeResponseSchema.parse(r.structuredContent);
      assert.equal(res.matches[0].content.symbol, 'formatPriceCents');
      assert.ok(res.matches.length <= 5);
      const err = (await client.callTool({ name: 'find_code', arguments: { query: '' } })) as CallToolResult;
      assert.equal(err.isError, true);
      const st = (await client.callTool({ name: 'index_status', arguments: {} })) as CallToolResult;
      assert.ok((st.structuredContent as { chunks: number }).chunks > 0);
    } finally {
      await client.close();
    }
  });

  it('an SDK client without the token is rejected', async () => {
    const client = new Client({ name: 'no-token', version: '0.0.0' });
    await assert.rejects(() => client.connect(new StreamableHTTPClientTransport(new URL(mcp.url))));
  });
});
