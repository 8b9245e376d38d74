/**
 * One index, several processes (engine/indexer/owner.ts), with real processes on both sides: the language server
 * (tsx, stdio JSON-RPC) and `quarry mcp` (tsx, the MCP SDK's stdio client).
 * - With the language server owning the workspace, `quarry mcp` answers from the same index, does not index (no
 *   state change, reports the owner in index_status) and sees what the language server indexes later.
 * - When the owner is killed, the running `quarry mcp` takes over and indexes; a `quarry mcp` started on a stale
 *   owner record indexes itself; a language server started later takes the index over from `quarry mcp`.
 * - Two `quarry mcp` started at once on an unowned workspace: exactly one owns it (the lock decides).
 * - A language server started while `quarry mcp` is indexing takes over: mcp aborts, the server waits for the lock.
 * - `quarry serve` (built CLI) serves a language server's index read-only and takes over when it is gone.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, copyFixture, removeDir, REPO_ROOT, writeFiles } from '../../support/workspace';
import { LspTestClient } from '../lsp/lspClient';
import type { StatusResult } from '../../../server/src/lsp/protocol';

const ENTRY = join(REPO_ROOT, 'server/src/mcp/main.ts');
const POLL_MS = '300';

interface Owner {
  kind: string;
  pid: number;
  this_process: boolean;
  alive: boolean;
  mcp_url: string | null;
}
interface IndexStatusOut {
  last_indexed: string | null;
  files: number;
  indexing_in_progress: boolean;
  owner: Owner | null;
}

function noEmbeddingConfig(root: string): void {
  mkdirSync(join(root, '.quarry'), { recursive: true });
  writeFileSync(join(root, '.quarry', 'config.yml'), 'embedding:\n  provider: none\nrerank:\n  provider: none\n');
}

/** A function large enough to be its own chunk. */
function bigFunction(name: string): string {
  const body = Array.from({ length: 40 }, (_, i) => `  total = total + rows.length * ${i + 1} - offset${i % 7};`);
  const decls = Array.from({ length: 7 }, (_, i) => `  const offset${i} = ${i * 3};`);
  return `\n/** Sums the ledger rows of the warehouse. */\nexport function ${name}(rows: unknown[]): number {\n  let total = 0;\n${decls.join('\n')}\n${body.join('\n')}\n  return total;\n}\n`;
}

class McpProc {
  stderr = '';
  private constructor(
    readonly client: Client,
    readonly transport: StdioClientTransport,
  ) {}

  static async start(root: string): Promise<McpProc> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', ENTRY, root],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), LANCEDB_LOG: 'error', QUARRY_OWNER_POLL_MS: POLL_MS },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'quarry-ownership-test', version: '0.0.0' });
    const p = new McpProc(client, transport);
    transport.stderr?.on('data', (d) => (p.stderr += String(d)));
    await client.connect(transport);
    return p;
  }

  get pid(): number {
    return this.transport.pid!;
  }

  async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    try {
      return (await this.client.callTool({ name, arguments: args })) as CallToolResult;
    } catch (e) {
      // a server that died says why on stderr
      throw new Error(`${name} on quarry mcp (pid ${this.transport.pid}) failed: ${(e as Error).message}\n--- its stderr ---\n${this.stderr}`);
    }
  }

  async status(): Promise<IndexStatusOut> {
    const r = await this.call('index_status', {});
    assert.ok(!r.isError, JSON.stringify(r.content));
    return r.structuredContent as unknown as IndexStatusOut;
  }

  /** Symbols of find_code's matches. */
  async symbols(query: string): Promise<string[]> {
    const r = await this.call('find_code', { query, max_results: 10 });
    assert.ok(!r.isError, JSON.stringify(r.content));
    return (r.structuredContent as { matches: Array<{ content: { symbol: string } }> }).matches.map((m) => m.content.symbol);
  }

  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}

async function eventually<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** The pid of a process that has exited (for a stale owner record). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

const ownerFile = (root: string) => join(root, '.quarry', 'owner.json');

describe('One index, several processes: language server and quarry mcp (real processes)', function () {
  this.timeout(180_000);
  const savedPoll = process.env.QUARRY_OWNER_POLL_MS;
  let root: string;
  let lsp: LspTestClient | undefined;
  const procs: McpProc[] = [];
  const lsps: LspTestClient[] = [];

  before(() => {
    process.env.QUARRY_OWNER_POLL_MS = POLL_MS; // the language servers spawned below inherit it
    root = copyFixture('polyglot');
    noEmbeddingConfig(root);
  });

  after(async () => {
    for (const p of procs) await p.close();
    for (const l of lsps) l.child.kill('SIGKILL');
    if (savedPoll === undefined) delete process.env.QUARRY_OWNER_POLL_MS;
    else process.env.QUARRY_OWNER_POLL_MS = savedPoll;
    removeDir(root);
  });

  const startMcp = async (dir: string) => {
    const p = await McpProc.start(dir);
    procs.push(p);
    return p;
  };
  const startLsp = async (dir: string) => {
    const l = LspTestClient.spawn();
    lsps.push(l);
    await l.initialize([dir]);
    return l;
  };

  let reader: McpProc;

  it('with the language server owning the workspace, quarry mcp answers from its index and does not index', async () => {
    lsp = await startLsp(root);
    await lsp.waitForIndexed();
    const state = join(root, '.quarry', 'state.json');
    const before = { text: readFileSync(state, 'utf8'), mtime: statSync(state).mtimeMs };

    reader = await startMcp(root);
    const st = await reader.status();
    assert.equal(st.owner?.kind, 'lsp');
    assert.equal(st.owner?.pid, lsp.child.pid);
    assert.equal(st.owner?.this_process, false);
    assert.ok(st.owner?.mcp_url?.startsWith('http://127.0.0.1:'), 'the owner record names its MCP endpoint');
    assert.ok((await reader.symbols('InventoryCatalog')).includes('InventoryCatalog'));
    // Several ownership polls later: still nothing written by the reader.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(readFileSync(state, 'utf8'), before.text);
    assert.equal(statSync(state).mtimeMs, before.mtime);
    assert.ok(!existsSync(join(root, '.quarry', 'index.lock')), 'nobody holds the index lock');
    assert.equal((await reader.status()).last_indexed, JSON.parse(before.text).lastIndexed);
    assert.match(reader.stderr, /owns the index of .*serving it read-only/);
    assert.doesNotMatch(reader.stderr, /this process owns the index/);
  });

  it('quarry mcp sees what the language server indexes later', async () => {
    writeFiles(root, { 'web/src/ledger.ts': bigFunction('reconcileWarehouseLedgerTotals') });
    await lsp!.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(join(root, 'web/src/ledger.ts')).href, type: 1 }] });
    await eventually(async () => {
      const r = (await lsp!.conn.sendRequest('codeSearch/find', { query: 'reconcileWarehouseLedgerTotals', limit: 3 })) as { matches: Array<{ content: { symbol: string } }> };
      return r.matches.some((m) => m.content.symbol === 'reconcileWarehouseLedgerTotals') || undefined;
    }, 'the language server to index the new file');
    assert.ok((await reader.symbols('reconcileWarehouseLedgerTotals')).includes('reconcileWarehouseLedgerTotals'), 'the reader sees the commit at once');
    const sym = await reader.call('find_symbol', { query: 'reconcileWarehouseLedgerTotals' });
    assert.ok((sym.structuredContent as { symbols: Array<{ name: string }> }).symbols.some((s) => s.name === 'reconcileWarehouseLedgerTotals'));
    assert.doesNotMatch(reader.stderr, /this process owns the index/);
  });

  it('when the owner is killed, the running quarry mcp takes over and indexes', async () => {
    const killed = lsp!.child.pid;
    lsp!.child.kill('SIGKILL');
    await lsp!.exited;
    lsp = undefined;
    assert.equal(JSON.parse(readFileSync(ownerFile(root), 'utf8')).pid, killed, 'a killed owner leaves its record');
    writeFiles(root, { 'web/src/audit.ts': bigFunction('summarizeAuditTrailEntries') });
    const st = await eventually(async () => {
      const s = await reader.status();
      return s.owner?.this_process ? s : undefined;
    }, 'quarry mcp to take over');
    assert.equal(st.owner?.kind, 'mcp');
    assert.equal(st.owner?.pid, reader.pid);
    await eventually(async () => ((await reader.symbols('summarizeAuditTrailEntries')).includes('summarizeAuditTrailEntries') ? true : undefined), 'the new owner to index the new file');
    assert.match(reader.stderr, /previous owner .* is gone/);
    await reader.close();
    await eventually(async () => (existsSync(ownerFile(root)) ? undefined : true), 'the owner record to go with a clean exit', 10_000);
  });

  let owner: McpProc;

  it('quarry mcp started on a stale owner record (killed owner) indexes itself', async () => {
    writeFileSync(
      ownerFile(root),
      JSON.stringify({ pid: deadPid(), host: (await import('node:os')).hostname(), kind: 'lsp', startedAt: new Date().toISOString(), id: 'dead', root }),
    );
    writeFiles(root, { 'web/src/shelves.ts': bigFunction('rebalanceShelfCapacityPlan') });
    owner = await startMcp(root);
    const st = await owner.status();
    assert.equal(st.owner?.kind, 'mcp');
    assert.equal(st.owner?.this_process, true);
    assert.equal(st.owner?.pid, owner.pid);
    await eventually(async () => ((await owner.symbols('rebalanceShelfCapacityPlan')).includes('rebalanceShelfCapacityPlan') ? true : undefined), 'quarry mcp to index the new file');
    assert.match(owner.stderr, /this process owns the index/);
  });

  it('a language server started later takes the index over from quarry mcp', async () => {
    lsp = await startLsp(root);
    await lsp.waitForIndexed();
    const status = (await lsp.conn.sendRequest('codeSearch/status')) as StatusResult;
    assert.equal(status.folders[0].owner?.thisProcess, true);
    assert.equal(status.folders[0].owner?.kind, 'lsp');
    const st = await eventually(async () => {
      const s = await owner.status();
      return s.owner?.kind === 'lsp' ? s : undefined;
    }, 'quarry mcp to see the new owner');
    assert.equal(st.owner?.pid, lsp.child.pid);
    assert.equal(st.owner?.this_process, false);
    await eventually(async () => (/took over the index/.test(owner.stderr) ? true : undefined), 'quarry mcp to log that it stepped down', 10_000);
    assert.ok((await owner.symbols('rebalanceShelfCapacityPlan')).includes('rebalanceShelfCapacityPlan'));
    await owner.close();
    assert.equal(await lsp.shutdown(), 0);
    lsp = undefined;
  });

  it('quarry serve reads the index a language server owns, and takes over when that server is killed', async () => {
    const fresh = copyFixture('polyglot');
    noEmbeddingConfig(fresh);
    const server = await startLsp(fresh);
    await server.waitForIndexed();
    const state = join(fresh, '.quarry', 'state.json');
    const before = statSync(state).mtimeMs;
    const serve = spawn(process.execPath, [CLI, 'serve', '--project', fresh, '--port', '0', '--mcp-port', '0'], {
      cwd: REPO_ROOT,
      env: { ...process.env, LANCEDB_LOG: 'error', QUARRY_OWNER_POLL_MS: POLL_MS },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    serve.stderr!.on('data', (d) => (err += String(d)));
    try {
      await eventually(async () => (/owns the index of .*serving it read-only/.test(err) ? true : undefined), `serve to start read-only; stderr: ${err}`);
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(statSync(state).mtimeMs, before, 'serve did not index');
      assert.doesNotMatch(err, /indexed \d+ files/);
      server.child.kill('SIGKILL');
      await server.exited;
      writeFiles(fresh, { 'web/src/ledger.ts': bigFunction('reconcileWarehouseLedgerTotals') });
      await eventually(async () => (/indexed \d+ files/.test(err) ? true : undefined), 'serve to take over and index');
      const rec = JSON.parse(readFileSync(ownerFile(fresh), 'utf8'));
      assert.equal(rec.kind, 'serve');
      assert.equal(rec.pid, serve.pid);
      assert.match(rec.mcpUrl, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      serve.kill('SIGTERM');
      await new Promise((r) => serve.once('exit', r));
      assert.ok(!existsSync(ownerFile(fresh)), 'a stopped serve gives its record up');
    } finally {
      serve.kill('SIGKILL');
      removeDir(fresh);
    }
  });

  it('a language server started while quarry mcp is indexing takes over: mcp stops, the server waits for the lock and finishes', async () => {
    const big = copyFixture('polyglot');
    noEmbeddingConfig(big);
    const files: Record<string, string> = {};
    const body = Array.from({ length: 30 }, (_, j) => `  total = total + rows.length * ${j} - offset;`).join('\n');
    for (let i = 0; i < 1500; i++) files[`gen/m${i % 30}/f${i}.ts`] = `export function compute${i}(rows: unknown[], offset: number): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
    writeFiles(big, files);
    try {
      const mcp = await startMcp(big);
      await eventually(async () => (/indexing: \d+\/\d+ files/.test(mcp.stderr) ? true : undefined), `quarry mcp to be indexing; stderr: ${mcp.stderr}`);
      const server = await startLsp(big);
      const ended = await server.waitForIndexed(120_000);
      const end = ended.find((p) => p.value.kind === 'end');
      assert.ok(end, 'the server finished its run');
      const failed = server.statusChanged.filter((c) => /indexing failed/.test(String(c.message)));
      assert.deepEqual(failed, [], 'the server waited for the lock instead of failing');
      await eventually(async () => (/took over the index/.test(mcp.stderr) ? true : undefined), 'quarry mcp to step down', 10_000);
      const status = (await server.conn.sendRequest('codeSearch/status')) as StatusResult;
      assert.equal(status.folders[0].owner?.thisProcess, true);
      assert.ok((status.folders[0].status?.files ?? 0) >= 1500, JSON.stringify(status.folders[0].status?.files));
      assert.ok((await mcp.symbols('compute1499')).includes('compute1499'));
      assert.equal((await mcp.status()).owner?.kind, 'lsp');
      await mcp.close();
      assert.equal(await server.shutdown(), 0);
    } finally {
      removeDir(big);
    }
  });

  it('two quarry mcp started at once on an unowned workspace: exactly one owns and indexes it; a later one refreshes it', async () => {
    const fresh = copyFixture('polyglot');
    noEmbeddingConfig(fresh);
    try {
      const [a, b] = await Promise.all([startMcp(fresh), startMcp(fresh)]);
      // Both report the same owner; it is one of the two.
      const ownerPid = await eventually(async () => {
        const [x, y] = await Promise.all([a.status(), b.status()]);
        return x.owner && y.owner && x.owner.pid === y.owner.pid ? x.owner.pid : undefined;
      }, 'both to agree on the owner');
      assert.ok([a.pid, b.pid].includes(ownerPid), `owner ${ownerPid} is one of ${a.pid}, ${b.pid}`);
      const [winner, loser] = ownerPid === a.pid ? [a, b] : [b, a];
      assert.equal((await winner.status()).owner?.this_process, true);
      assert.equal((await loser.status()).owner?.this_process, false);
      await eventually(async () => (/this process owns the index/.test(winner.stderr) ? true : undefined), 'the owner to log it', 10_000);
      assert.doesNotMatch(loser.stderr, /this process owns the index/);
      // The reader answers from the winner's index.
      await eventually(async () => ((await loser.symbols('InventoryCatalog')).includes('InventoryCatalog') ? true : undefined), 'the reader to answer');
      // An mcp owner does not follow edits: a quarry mcp started later refreshes the index once (under the lock).
      await eventually(async () => ((await winner.status()).indexing_in_progress ? undefined : true), 'the owner to finish');
      writeFiles(fresh, { 'web/src/ledger.ts': bigFunction('reconcileWarehouseLedgerTotals') });
      const late = await startMcp(fresh);
      assert.equal((await late.status()).owner?.pid, ownerPid);
      await eventually(async () => ((await late.symbols('reconcileWarehouseLedgerTotals')).includes('reconcileWarehouseLedgerTotals') ? true : undefined), 'the refresh');
      assert.ok((await winner.symbols('reconcileWarehouseLedgerTotals')).includes('reconcileWarehouseLedgerTotals'), 'the owner sees the refresh');
      await eventually(async () => (/refreshed .*1 file\(s\) updated/.test(late.stderr) ? true : undefined), `the refresh log; stderr: ${late.stderr}`, 5000);
      await late.close();
      await a.close();
      await b.close();
    } finally {
      removeDir(fresh);
    }
  });
});
