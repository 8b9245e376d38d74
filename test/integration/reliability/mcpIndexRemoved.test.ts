/**
 * Issue 20: `.quarry` removed under a running MCP server (stdio, the real `quarry mcp` process). The next find_code
 * calls answer with a warning or a clear error — never a raw Lance path error, never an empty answer in silence — and
 * the server recovers by itself (it rebuilds the index) without a restart.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempDir, removeDir } from '../../support/workspace';
import { writeSmallProject } from '../../support/reliability';

describe('reliability: .quarry removed under a running MCP server (issue 20)', function () {
  this.timeout(180_000);
  let root: string;
  let client: Client;
  let stderr = '';

  before(async () => {
    root = tempDir('quarry-mcp-gone-');
    writeSmallProject(root);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '-p', root],
      env: { ...(process.env as Record<string, string>), LANCEDB_LOG: 'error', QUARRY_LOG_LEVEL: 'silent' },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d) => (stderr += String(d)));
    client = new Client({ name: 'quarry-reliability', version: '0.0.0' });
    await client.connect(transport);
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    removeDir(root);
  });

  type Answer = { error: string } | { paths: string[]; warnings: string[] };
  const find = async (query: string): Promise<Answer> => {
    const r = (await client.callTool({ name: 'find_code', arguments: { query } })) as CallToolResult;
    const text = (r.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');
    if (r.isError) return { error: text };
    const res = (r.structuredContent ?? JSON.parse(text)) as { matches: Array<{ file: { path: string } }>; warnings: string[] };
    return { paths: res.matches.map((m) => m.file.path), warnings: res.warnings };
  };

  it('answers with a warning or a clear error, then recovers by itself', async () => {
    // the server indexes on start: wait for the first answer
    let first = await find('parseConfig3');
    for (let i = 0; i < 60 && !('paths' in first && first.paths[0] === 'src/config3.ts'); i++) {
      await new Promise((r) => setTimeout(r, 500));
      first = await find('parseConfig3');
    }
    assert.ok('paths' in first && first.paths[0] === 'src/config3.ts', JSON.stringify(first));

    // as a person would: once the server's first index run is over (its dense phase and git pass write there) …
    for (let i = 0; i < 120; i++) {
      const status = (await client.callTool({ name: 'index_status', arguments: {} })) as CallToolResult;
      if ((status.structuredContent as { indexing_in_progress?: boolean } | undefined)?.indexing_in_progress === false) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    // … and again while a file is still being written (a read snapshot's spill file), as `rm -rf` run twice would
    for (let attempt = 0; ; attempt++) {
      try {
        rmSync(join(root, '.quarry'), { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
        break;
      } catch (e) {
        if (attempt >= 20 || !['ENOTEMPTY', 'EBUSY', 'EPERM'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const answers: string[] = [];
    let recovered = false;
    for (let i = 0; i < 40 && !recovered; i++) {
      const r = await find(`parseConfig${i % 6}`);
      if ('error' in r) {
        answers.push(`error: ${r.error}`);
        assert.doesNotMatch(r.error, /lance error|LanceError|\.rs:\d+|Not found: /i, 'no raw Lance error');
        assert.match(r.error, /quarry index|rebuil|index/i, r.error);
      } else {
        answers.push(`${r.paths.join(',')} | ${r.warnings.join(' / ')}`);
        const right = r.paths[0] === `src/config${i % 6}.ts`;
        assert.ok(right || r.warnings.length > 0, `silent wrong or empty answer: ${answers.at(-1)}`);
        for (const w of r.warnings) assert.doesNotMatch(w, /lance error|LanceError|\.rs:\d+/i, w);
        recovered = right && r.warnings.length === 0;
      }
      if (!recovered) await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(recovered, `no recovery: ${answers.join('\n')}\n${stderr.slice(-2000)}`);
  });
});
