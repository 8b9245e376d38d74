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
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LspMeasurements {
  /** codeSearch/find round trips, warm. */
  find: number[];
  /** Edit-to-searchable: from an unsaved edit that adds a function (didOpen/didChange) to the first find that returns it. */
  edit: number[];
}

/** A function definition in the file's language that no corpus contains (`name` is unique per probe). */
function probeDefinition(file: string, name: string): string {
  if (file.endsWith('.py')) return `\n\ndef ${name}():\n    return 1\n`;
  if (file.endsWith('.go')) return `\n\nfunc ${name}() int { return 1 }\n`;
  if (file.endsWith('.rs')) return `\n\nfn ${name}() -> i32 { 1 }\n`;
  return `\n\nexport function ${name}() { return 1; }\n`;
}

/** Time between opening the edited file and the first keystroke of the edit-to-searchable probes. */
const OPEN_TO_FIRST_EDIT_MS = 1000;

export async function lspLatencies(cli: string, dir: string, queries: string[], editFile?: string): Promise<LspMeasurements> {
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
      workspaceFolders: [{ uri, name: 'bench' }],
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
    const edit: number[] = [];
    if (editFile) {
      const fileUri = pathToFileURL(join(dir, editFile)).toString();
      const original = readFileSync(join(dir, editFile), 'utf8');
      const languageId = editFile.endsWith('.py') ? 'python' : editFile.endsWith('.go') ? 'go' : editFile.endsWith('.rs') ? 'rust' : editFile.endsWith('.js') ? 'javascript' : 'typescript';
      await conn.sendNotification('textDocument/didOpen', { textDocument: { uri: fileUri, languageId, version: 1, text: original } });
      // A person looks at a file for a moment before typing into it: the server prepares the file's language then
      // (documentSync.ts `bufferOpened`). The first probe is timed like the others.
      await new Promise((r) => setTimeout(r, OPEN_TO_FIRST_EDIT_MS));
      for (let i = 0; i < 8; i++) {
        const name = `quarryEditProbe${i}x${process.pid}`;
        const t = performance.now();
        await conn.sendNotification('textDocument/didChange', { textDocument: { uri: fileUri, version: i + 2 }, contentChanges: [{ text: original + probeDefinition(editFile, name) }] });
        for (;;) {
          const res = (await conn.sendRequest('codeSearch/find', { query: name, limit: 3, explain: false })) as { matches: Array<{ file: { path: string }; content: { content: string } }> };
          // (small neighbours are merged into one chunk, so the new function may sit inside its neighbour's chunk)
          if (res.matches.some((m) => m.file.path === editFile && m.content.content.includes(name))) break;
          if (performance.now() - t > 10_000) throw new Error(`edit-to-searchable: ${name} not found after 10 s`);
          await new Promise((r) => setTimeout(r, 5));
        }
        edit.push(performance.now() - t);
      }
      await conn.sendNotification('textDocument/didClose', { textDocument: { uri: fileUri } });
    }
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
    return { find: times, edit };
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

/** One search through a door: its round trip and the top results' chunk ids (to compare answers across builds). */
export interface DoorAnswer {
  ms: number;
  ids: string[];
}

/** A long-running door process with a connected client, for interleaved measurements (bench/scale.ts). */
export interface DoorSession {
  find(query: string, limit?: number): Promise<DoorAnswer>;
  /** The server process's resident memory now (VmRSS, MB; Linux), null when unknown. */
  rssMb(): number | null;
  close(): Promise<void>;
}

function rssOf(pid: number | null | undefined): number | null {
  if (!pid) return null;
  try {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

type Matches = { matches: Array<{ content: { chunk_id: string } }> };

/** The language server (`<cli> lsp --stdio`) with a vscode-jsonrpc client; `codeSearch/find` as the extension sends it. */
export async function openLspSession(cli: string, dir: string, nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<DoorSession> {
  const child = spawn(process.execPath, [...nodeArgs, cli, 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'ignore'], env: { ...env, ...process.env, LANCEDB_LOG: 'error' } });
  const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('workspace/configuration', () => []);
  conn.listen();
  const uri = pathToFileURL(dir).toString();
  await conn.sendRequest('initialize', { processId: process.pid, rootUri: uri, capabilities: { window: { workDoneProgress: true } }, workspaceFolders: [{ uri, name: 'bench' }] });
  await conn.sendNotification('initialized', {});
  return {
    async find(query, limit = 10) {
      const t = performance.now();
      const res = (await conn.sendRequest('codeSearch/find', { query, limit, explain: false })) as Matches;
      const ms = performance.now() - t;
      return { ms, ids: res.matches.map((m) => m.content.chunk_id) };
    },
    rssMb: () => rssOf(child.pid),
    async close() {
      try {
        await conn.sendRequest('shutdown');
        await conn.sendNotification('exit');
      } finally {
        conn.dispose();
        await stopChild(child);
      }
    },
  };
}

/** The MCP server (`<cli> mcp --project DIR`) with the MCP SDK's stdio client; `find_code` as an agent calls it. */
export async function openMcpSession(cli: string, dir: string, nodeArgs: string[] = [], env: Record<string, string> = {}): Promise<DoorSession> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [...nodeArgs, cli, 'mcp', '--project', dir], env: { ...env, ...(process.env as Record<string, string>), LANCEDB_LOG: 'error' }, stderr: 'ignore' });
  const client = new Client({ name: 'quarry-bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    async find(query, limit = 10) {
      const t = performance.now();
      const res = await client.callTool({ name: 'find_code', arguments: { query, max_results: limit, include_tests: true } });
      const ms = performance.now() - t;
      if (res.isError) throw new Error(`find_code ${JSON.stringify(query)}: ${JSON.stringify(res.content).slice(0, 300)}`);
      return { ms, ids: ((res.structuredContent as Matches | undefined)?.matches ?? []).map((m) => m.content.chunk_id) };
    },
    rssMb: () => rssOf(transport.pid),
    async close() {
      await client.close();
    },
  };
}

/** SIGTERM, then SIGKILL after 5 s (a child that writes a CPU profile on exit needs the former). */
async function stopChild(child: ReturnType<typeof spawn>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(timer);
}

