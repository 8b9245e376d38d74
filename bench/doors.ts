/**
 * Query latency through the long-running doors, warm: the language server (`quarry lsp --stdio`, custom request
 * `codeSearch/find`) and the MCP server (`quarry mcp`, tool `find_code`), each a real process over stdio driven
 * by a real client (vscode-jsonrpc, the MCP SDK).
 */
import { spawn } from 'node:child_process';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { pathToFileURL } from 'node:url';

export async function lspLatencies(cli: string, dir: string, queries: string[]): Promise<number[]> {
  const child = spawn(process.execPath, [cli, 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, LANCEDB_LOG: 'error' } });
  const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('workspace/configuration', () => []);
  conn.listen();
  try {
    const uri = pathToFileURL(dir).toString();
    await conn.sendRequest('initialize', {
      processId: process.pid, rootUri: uri, capabilities: { window: { workDoneProgress: true } },
      workspaceFolders: [{ uri, name: 'bench' }], initializationOptions: { embedding: false, reranker: false },
    });
    await conn.sendNotification('initialized', {});
    // The first find waits for the server's start-up index run (incremental here: the index exists).
    await conn.sendRequest('codeSearch/find', { query: queries[0], limit: 10 });
    const times: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      await conn.sendRequest('codeSearch/find', { query: q, limit: 10, explain: false });
      times.push(performance.now() - t);
    }
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
    return times;
  } finally {
    conn.dispose();
    child.kill('SIGKILL');
  }
}

export async function mcpLatencies(cli: string, dir: string, queries: string[]): Promise<number[]> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--project', dir], env: { ...(process.env as Record<string, string>), LANCEDB_LOG: 'error' } });
  const client = new Client({ name: 'quarry-bench', version: '1.0.0' });
  await client.connect(transport);
  try {
    await client.callTool({ name: 'find_code', arguments: { query: queries[0], max_results: 10 } });
    const times: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      await client.callTool({ name: 'find_code', arguments: { query: q, max_results: 10, include_tests: true } });
      times.push(performance.now() - t);
    }
    return times;
  } finally {
    await client.close();
  }
}
