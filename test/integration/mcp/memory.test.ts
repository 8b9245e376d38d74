/**
 * Agent memory over MCP (seed 003 FR-4, activation): a real SDK client records a pattern, finds it with find_code
 * (type:reasoning), reports its reuse and reports used results over stdio against the real server process; bad
 * input is a tool error naming the parameter.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { copyFixture, removeDir, REPO_ROOT } from '../../support/workspace';
import { findCodeResponseSchema } from '../../../server/src/mcp/tools';
import { noEmbeddingConfig } from '../../support/config';

const ENTRY = join(REPO_ROOT, 'server/src/mcp/main.ts');

describe('MCP memory tools over stdio (record_pattern, report_pattern_use, report_results_used)', function () {
  this.timeout(120_000);
  let root: string;
  let client: Client;

  before(async () => {
    root = copyFixture('polyglot');
    noEmbeddingConfig(root);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', ENTRY, root],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), LANCEDB_LOG: 'error' },
      stderr: 'ignore',
    });
    client = new Client({ name: 'quarry-memory-test', version: '0.0.0' });
    await client.connect(transport);
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    removeDir(root);
  });

  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  it('records a pattern that find_code returns as type reasoning, and counts its reuse', async () => {
    await call('find_code', { query: 'InventoryCatalog' }); // waits for the server's first index run
    const rec = await call('record_pattern', {
      pattern_type: 'decomposition', description: 'To add an inventory report, extend InventoryCatalog first, then the formatter.',
      context: 'web/src/catalog.ts', success_score: 0.8, id: 'inventory-report',
    });
    assert.ok(!rec.isError, JSON.stringify(rec.content));
    const sc = rec.structuredContent as { pattern: { id: string; searchable: boolean }; indexed: boolean };
    assert.equal(sc.pattern.id, 'inventory-report');
    assert.equal(sc.pattern.searchable, true);
    assert.equal(sc.indexed, true);
    const found = await call('find_code', { query: 'inventory report type:reasoning' });
    const res = findCodeResponseSchema.parse(found.structuredContent);
    assert.deepEqual(res.matches.map((m) => m.content.symbol), ['inventory-report']);
    assert.equal(res.matches[0].content.kind, 'reasoning');
    const used = await call('report_pattern_use', { id: 'inventory-report', succeeded: true });
    assert.equal((used.structuredContent as { pattern: { usage_count: number } }).pattern.usage_count, 1);
    const again = findCodeResponseSchema.parse((await call('find_code', { query: 'inventory report type:reasoning' })).structuredContent);
    assert.equal(again.matches[0].content.metadata?.usage_count, 1);
  });

  it('report_results_used raises the activation of what an agent used', async () => {
    const first = findCodeResponseSchema.parse((await call('find_code', { query: 'InventoryCatalog' })).structuredContent);
    const top = first.matches[0];
    const r = await call('report_results_used', { results: [{ chunk_id: top.content.chunk_id }, { path: top.file.path, line: top.span[0] }] });
    assert.ok(!r.isError, JSON.stringify(r.content));
    assert.deepEqual((r.structuredContent as { recorded: string[] }).recorded, [top.content.chunk_id]);
    const after = findCodeResponseSchema.parse((await call('find_code', { query: 'InventoryCatalog' })).structuredContent);
    const hit = after.matches.find((m) => m.content.chunk_id === top.content.chunk_id)!;
    assert.equal(hit.activation?.accesses, 1);
    assert.match(hit.score_breakdown?.activation?.reason ?? '', /^accessed 1x/);
    const text = ((await call('find_code', { query: 'InventoryCatalog' })).content as Array<{ text: string }>)[0].text;
    assert.match(text, /^Why: defines `InventoryCatalog`; BM25 [\d.]+ \(exact keyword match on "inventorycatalog"\); activation [\d.]+ \(accessed 1x, last used just now\)/m);
  });

  it('bad input is a tool error that names the parameter', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['record_pattern', { pattern_type: 'x', description: 'y', success_score: 2 }, /"success_score" must be a number from 0 to 1 \(got 2\)/],
      ['record_pattern', { pattern_type: 'x', description: '   ', success_score: 0.5 }, /"description" is empty/],
      ['report_pattern_use', { id: 'missing' }, /no pattern with id "missing"/],
      ['report_results_used', { results: [] }, /"results" is empty/],
      ['report_results_used', { results: [{ path: 'x.ts' }] }, /each result needs chunk_id, or path and line/],
      ['report_results_used', { results: [{ chunk_id: 'nope' }] }, /Not found in the index/],
    ];
    for (const [tool, args, re] of cases) {
      const r = await call(tool, args);
      assert.equal(r.isError, true, `${tool} ${JSON.stringify(args)}`);
      assert.match((r.content as Array<{ text: string }>)[0].text, re);
    }
  });
});
