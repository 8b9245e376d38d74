/** A minimal LSP client for tests: spawns the real server (tsx, stdio) and talks JSON-RPC to it. */
import { spawn, ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, MessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { REPO_ROOT } from '../../support/workspace';

export interface ProgressEvent {
  token: string | number;
  value: { kind: 'begin' | 'report' | 'end'; title?: string; message?: string; percentage?: number };
}

export class LspTestClient {
  readonly progress: ProgressEvent[] = [];
  readonly statusChanged: Array<Record<string, unknown>> = [];
  readonly registrations: unknown[] = [];
  /** window/logMessage lines from the server. */
  readonly logs: string[] = [];
  /** Protocol errors on the client side (e.g. non-protocol bytes on the server's stdout). */
  readonly protocolErrors: string[] = [];
  stderr = '';
  exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    readonly conn: MessageConnection,
  ) {
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
  }

  /** Spawns the server from source (tsx), or with `args` the given command line (e.g. the built `quarry lsp --stdio`). */
  static spawn(args: string[] = ['--import', 'tsx', join(REPO_ROOT, 'server/src/lsp/main.ts'), '--stdio']): LspTestClient {
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, LANCEDB_LOG: 'error' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
    const client = new LspTestClient(child, conn);
    child.stderr!.on('data', (d) => (client.stderr += String(d)));
    conn.onRequest('window/workDoneProgress/create', () => null);
    conn.onRequest('client/registerCapability', (p) => {
      client.registrations.push(p);
      return null;
    });
    conn.onRequest('workspace/configuration', () => []);
    conn.onNotification('$/progress', (p: ProgressEvent) => client.progress.push(p));
    conn.onNotification('codeSearch/statusChanged', (p: Record<string, unknown>) => client.statusChanged.push(p));
    conn.onNotification('window/logMessage', (p: { message: string }) => client.logs.push(p.message));
    conn.onError(([e]) => client.protocolErrors.push(String(e?.message ?? e)));
    conn.listen();
    return client;
  }

  async initialize(folders: string[], initializationOptions: Record<string, unknown> = { embedding: false, reranker: false }): Promise<unknown> {
    const result = await this.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(folders[0]).href,
      workspaceFolders: folders.map((f, i) => ({ uri: pathToFileURL(f).href, name: `folder${i}` })),
      capabilities: {
        window: { workDoneProgress: true },
        workspace: { didChangeWatchedFiles: { dynamicRegistration: true }, workspaceFolders: true, symbol: {} },
        textDocument: { synchronization: { didSave: true, dynamicRegistration: false } },
      },
      initializationOptions,
    });
    await this.conn.sendNotification('initialized', {});
    return result;
  }

  /** Resolves when a begin..end sequence of $/progress was seen for some token (the first index run). */
  async waitForIndexed(timeoutMs = 60_000): Promise<ProgressEvent[]> {
    const started = Date.now();
    for (;;) {
      const ended = this.progress.find((p) => p.value.kind === 'end');
      if (ended) return this.progress.filter((p) => p.token === ended.token);
      if (Date.now() - started > timeoutMs) throw new Error(`no progress end after ${timeoutMs} ms; stderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async shutdown(): Promise<number | null> {
    await this.conn.sendRequest('shutdown');
    await this.conn.sendNotification('exit');
    const code = await Promise.race([this.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000))]);
    this.conn.dispose();
    if (code === 'timeout') {
      this.child.kill('SIGKILL');
      throw new Error('the server did not exit within 10 s of `exit`');
    }
    return code;
  }
}
