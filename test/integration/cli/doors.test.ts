import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, copyFixture, removeDir } from '../../support/workspace';
import { LspTestClient } from '../lsp/lspClient';

/** The built `quarry` binary's doors as editors and agents start them: `quarry lsp --stdio`, `quarry mcp`. */
describe('quarry lsp --stdio and quarry mcp from the built CLI', function () {
  this.timeout(120_000);
  let root: string;
  before(() => {
    root = copyFixture('polyglot');
  });
  after(() => removeDir(root));

  it('quarry lsp --stdio answers initialize, codeSearch/find and workspace/symbol, and exits on exit', async () => {
    const client = LspTestClient.spawn([CLI, 'lsp', '--stdio']);
    try {
      await client.initialize([root]);
      await client.waitForIndexed();
      const res = (await client.conn.sendRequest('codeSearch/find', { query: 'RestockBatcher', limit: 3 })) as { matches: Array<{ file: { path: string }; content: { symbol: string } }> };
      assert.equal(res.matches[0].content.symbol, 'RestockBatcher');
      const symbols = (await client.conn.sendRequest('workspace/symbol', { query: 'RestockBatcher' })) as Array<{ name: string }>;
      assert.equal(symbols[0].name, 'RestockBatcher');
      assert.equal(await client.shutdown(), 0);
    } finally {
      client.child.kill('SIGKILL');
    }
  });

  it('quarry mcp serves find_code over stdio', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--project', root], env: { ...(process.env as Record<string, string>), LANCEDB_LOG: 'error' } });
    const client = new Client({ name: 'quarry-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'find_code'));
      const r = await client.callTool({ name: 'find_code', arguments: { query: 'RestockBatcher', max_results: 3 } });
      const s = r.structuredContent as { matches: Array<{ content: { symbol: string } }> };
      assert.equal(s.matches[0].content.symbol, 'RestockBatcher');
    } finally {
      await client.close();
    }
  });
});
