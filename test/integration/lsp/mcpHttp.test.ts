/**
 * The language server serves MCP over Streamable HTTP: the real server process (tsx, stdio) announces one endpoint
 * per folder (`codeSearch/mcpEndpoints`, `codeSearch/status`), records itself as the index owner
 * (`.quarry/owner.json`, URL but never the token), and the MCP SDK's HTTP client calls `find_code` on it with the
 * bearer token; without the token (or with a foreign Host) it is refused. `mcp.http: false` turns it off.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { findCodeResponseSchema } from '../../../server/src/mcp/tools';
import type { McpEndpointsParams, StatusResult } from '../../../server/src/lsp/protocol';
import { copyFixture, removeDir } from '../../support/workspace';
import { LspTestClient } from './lspClient';

function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function noEmbeddingConfig(root: string): void {
  mkdirSync(join(root, '.quarry'), { recursive: true });
  writeFileSync(join(root, '.quarry', 'config.yml'), 'embedding:\n  provider: none\nrerank:\n  provider: none\n');
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });

async function until<T>(fn: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('LSP server: MCP over Streamable HTTP (real processes)', function () {
  this.timeout(120_000);
  let root: string;
  let lsp: LspTestClient;
  const announced: McpEndpointsParams[] = [];

  before(async () => {
    root = copyFixture('polyglot');
    noEmbeddingConfig(root);
    lsp = LspTestClient.spawn();
    lsp.conn.onNotification('codeSearch/mcpEndpoints', (p: McpEndpointsParams) => announced.push(p));
    await lsp.initialize([root]);
    await lsp.waitForIndexed();
  });

  after(async () => {
    await lsp?.shutdown().catch(() => lsp.child.kill('SIGKILL'));
    removeDir(root);
  });

  it('announces the folder endpoint (notification and codeSearch/status) and owns the index', async () => {
    const last = await until(() => announced.find((a) => a.endpoints.length), 'codeSearch/mcpEndpoints');
    const ep = last.endpoints[0];
    assert.equal(ep.folder, pathToFileURL(root).href);
    assert.match(ep.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.ok(ep.token.length >= 32);
    const status = (await lsp.conn.sendRequest('codeSearch/status')) as StatusResult;
    const folder = status.folders[0];
    assert.deepEqual(folder.mcp, { url: ep.url, token: ep.token });
    assert.equal(folder.owner?.kind, 'lsp');
    assert.equal(folder.owner?.pid, lsp.child.pid);
    assert.equal(folder.owner?.thisProcess, true);
    assert.equal(folder.owner?.mcpUrl, ep.url);
    const record = readFileSync(join(root, '.quarry', 'owner.json'), 'utf8');
    assert.equal(JSON.parse(record).mcpUrl, ep.url);
    assert.ok(!record.includes(ep.token), 'the owner record never holds the token');
  });

  it('the MCP SDK client calls find_code on it with the bearer token', async () => {
    const ep = announced.find((a) => a.endpoints.length)!.endpoints[0];
    const client = new Client({ name: 'quarry-lsp-http-test', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(ep.url), { requestInit: { headers: { Authorization: `Bearer ${ep.token}` } } }));
    try {
      const { tools } = await client.listTools();
      for (const name of ['find_code', 'find_implementations', 'find_symbol', 'index_status']) assert.ok(tools.some((t) => t.name === name), name);
      const r = (await client.callTool({ name: 'find_code', arguments: { query: 'formatPriceCents', max_results: 5 } })) as CallToolResult;
      assert.ok(!r.isError, JSON.stringify(r.content));
      const res = findCodeResponseSchema.parse(r.structuredContent);
      assert.equal(res.matches[0].content.symbol, 'formatPriceCents');
      const st = (await client.callTool({ name: 'index_status', arguments: {} })) as CallToolResult;
      const owner = (st.structuredContent as { owner: { kind: string; pid: number; this_process: boolean; mcp_url: string } }).owner;
      assert.deepEqual([owner.kind, owner.pid, owner.this_process, owner.mcp_url], ['lsp', lsp.child.pid, true, ep.url]);
    } finally {
      await client.close();
    }
  });

  it('refuses requests without the token (401), with a wrong one (401) and with a foreign Host (403)', async () => {
    const ep = announced.find((a) => a.endpoints.length)!.endpoints[0];
    const port = new URL(ep.url).port;
    assert.equal(await post(ep.url, {}, INIT), 401);
    assert.equal(await post(ep.url, { authorization: `Bearer ${'x'.repeat(ep.token.length)}` }, INIT), 401);
    assert.equal(await post(ep.url, { authorization: `Bearer ${ep.token}`, host: `evil.example:${port}` }, INIT), 403);
    assert.equal(await post(ep.url, { authorization: `Bearer ${ep.token}` }, INIT), 200);
    const client = new Client({ name: 'no-token', version: '0.0.0' });
    await assert.rejects(() => client.connect(new StreamableHTTPClientTransport(new URL(ep.url))));
  });

  it('initializationOptions mcp.http false: no endpoint; shutdown gives the owner record and the port up', async () => {
    const other = copyFixture('polyglot');
    noEmbeddingConfig(other);
    const off = LspTestClient.spawn();
    const seen: McpEndpointsParams[] = [];
    off.conn.onNotification('codeSearch/mcpEndpoints', (p: McpEndpointsParams) => seen.push(p));
    try {
      await off.initialize([other], { embedding: false, reranker: false, mcp: { http: false } });
      await off.waitForIndexed();
      const status = (await off.conn.sendRequest('codeSearch/status')) as StatusResult;
      assert.equal(status.folders[0].mcp, null);
      assert.equal(status.folders[0].owner?.kind, 'lsp');
      assert.ok(seen.every((s) => s.endpoints.length === 0), JSON.stringify(seen));
      assert.equal(JSON.parse(readFileSync(join(other, '.quarry', 'owner.json'), 'utf8')).mcpUrl, undefined);
      assert.equal(await off.shutdown(), 0);
      assert.ok(!existsSync(join(other, '.quarry', 'owner.json')), 'a clean exit removes the owner record');
    } finally {
      off.child.kill('SIGKILL');
      removeDir(other);
    }
    // The first server's endpoint closes with it.
    const ep = announced.find((a) => a.endpoints.length)!.endpoints[0];
    assert.equal(await lsp.shutdown(), 0);
    await assert.rejects(() => post(ep.url, { authorization: `Bearer ${ep.token}` }, INIT));
    assert.ok(!existsSync(join(root, '.quarry', 'owner.json')));
  });
});
