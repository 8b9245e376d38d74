/**
 * The language client: starts `node <extension>/dist/cli.js lsp --stdio` (the extension host's own runtime with
 * ELECTRON_RUN_AS_NODE=1) and wraps Quarry's custom requests.
 */
import * as vscode from 'vscode';
import { CloseAction, ErrorAction, LanguageClient, LanguageClientOptions, RevealOutputChannelOn, ServerOptions, State, TransportKind } from 'vscode-languageclient/node';
import { join } from 'node:path';
import {
  FIND_METHOD,
  FindParams,
  FindResult,
  MCP_ENDPOINTS_NOTIFICATION,
  McpEndpoint,
  McpEndpointsParams,
  LocatedMatch,
  RESULT_OPENED_NOTIFICATION,
  ResultOpenedParams,
  REINDEX_METHOD,
  ReindexParams,
  ReindexResult,
  STATUS_CHANGED_NOTIFICATION,
  STATUS_METHOD,
  StatusChangedParams,
  StatusResult,
} from '../../server/src/lsp/protocol';
import { SERVER_NODE_FLAGS, serverEnvironment } from '../../server/src/lsp/serverProcess';
import { initializationOptions } from './settings';
import { createServer } from 'node:net';

/**
 * The ports the language server's MCP endpoint (first folder) is served on: the first free one. The package.json
 * contributes `remote.portsAttributes` for this range with `onAutoForward: ignore`, so that code-server and remote
 * windows do not auto-forward it (a regular expression on the process command line was not applied by code-server
 * 4.139; a port range is). Keep the two in sync.
 */
export const MCP_PORT_RANGE: readonly [number, number] = [47631, 47640];

function portFree(port: number): Promise<boolean> {
  return new Promise((res) => {
    const srv = createServer();
    srv.once('error', () => res(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => res(true)));
  });
}

/** The first free port of MCP_PORT_RANGE, or 0 (any port) when all are taken. */
export async function pickMcpPort(): Promise<number> {
  for (let p = MCP_PORT_RANGE[0]; p <= MCP_PORT_RANGE[1]; p++) if (await portFree(p)) return p;
  return 0;
}

export class QuarryClient implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient> | undefined;
  private readonly statusEmitter = new vscode.EventEmitter<StatusChangedParams>();
  /** `codeSearch/statusChanged`, as the server sends it. */
  readonly onStatusChanged = this.statusEmitter.event;
  /** The last notification per folder URI. */
  readonly lastStatus = new Map<string, StatusChangedParams>();
  /** The language server's MCP endpoints (Streamable HTTP) by folder URI, as last announced; empty while it is down. */
  readonly mcpEndpoints = new Map<string, McpEndpoint>();
  private readonly mcpEmitter = new vscode.EventEmitter<void>();
  /** The MCP endpoints changed (announced, or gone with the server). */
  readonly onMcpEndpoints = this.mcpEmitter.event;
  /** Server exits (not asked for) in the last 3 minutes. */
  private crashes: number[] = [];
  /**
   * Set after the server crashed twice in 3 minutes: it then runs with `embedding: false` (lexical search only).
   * (A crash that also happens without embeddings still ends after 5 exits in 3 minutes.)
   */
  lexicalOnlyReason: string | undefined;
  private readonly degradedEmitter = new vscode.EventEmitter<string>();
  /** A degraded mode the client chose (shown to the user, never silent). */
  readonly onDegraded = this.degradedEmitter.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  /** Starts the server once (later calls share the start); never blocks activation. */
  start(): Promise<LanguageClient> {
    if (this.starting) return this.starting;
    const cli = join(this.context.extensionPath, 'dist', 'cli.js');
    const run = {
      command: process.execPath,
      // node's flags and environment for the server (memory and the Node 24 WASM crash): lsp/serverProcess.ts
      args: [...SERVER_NODE_FLAGS, cli, 'lsp', '--stdio'],
      transport: TransportKind.stdio,
      options: { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', ...serverEnvironment(process.env) } },
    };
    const serverOptions: ServerOptions = { run, debug: run };
    const watcher = vscode.workspace.createFileSystemWatcher('**/*');
    this.context.subscriptions.push(watcher);
    let mcpPort = 0;
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      synchronize: { fileEvents: watcher },
      outputChannel: this.output,
      // A function: evaluated when the server is initialized, after the port was picked below.
      initializationOptions: () => {
        const o = initializationOptions(this.lexicalOnlyReason !== undefined);
        return mcpPort && o.mcp?.http !== false ? { ...o, mcp: { ...o.mcp, port: mcpPort } } : o;
      },
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue }),
        closed: () => this.onServerClosed(),
      },
      // Indexing failures are reported through statusChanged and the status bar, not pop-ups.
      revealOutputChannelOn: RevealOutputChannelOn.Never,
    };
    const client = new LanguageClient('quarry', 'Quarry', serverOptions, clientOptions);
    // No work-done progress from the server: vscode-languageclient shows it as a second status bar entry (with the
    // embedding model's id in it); Quarry's own item shows the same state from codeSearch/statusChanged.
    client.registerFeature({
      fillClientCapabilities(caps) {
        if (caps.window) caps.window.workDoneProgress = false;
      },
      initialize() {},
      getState: () => ({ kind: 'static' }),
      clear() {},
    });
    this.client = client;
    this.starting = (async () => {
      mcpPort = await pickMcpPort();
      await client.start();
      client.onNotification(STATUS_CHANGED_NOTIFICATION, (p: StatusChangedParams) => {
        this.lastStatus.set(p.folder, p);
        this.statusEmitter.fire(p);
      });
      client.onNotification(MCP_ENDPOINTS_NOTIFICATION, (p: McpEndpointsParams) => this.setMcpEndpoints(p.endpoints ?? []));
      return client;
    })();
    this.starting.catch((e) => {
      this.output.appendLine(`Quarry: the language server did not start: ${(e as Error)?.message ?? e}`);
      this.starting = undefined;
      this.client = undefined;
    });
    return this.starting;
  }

  private setMcpEndpoints(endpoints: McpEndpoint[]): void {
    this.mcpEndpoints.clear();
    for (const e of endpoints) this.mcpEndpoints.set(e.folder, e);
    this.mcpEmitter.fire();
  }

  /**
   * Resolves once the server announced MCP endpoints for every open folder, or after `timeoutMs` (or cancellation);
   * starts the server when it is not running.
   */
  async waitForMcpEndpoints(timeoutMs: number, token?: vscode.CancellationToken): Promise<void> {
    const complete = () => (vscode.workspace.workspaceFolders ?? []).every((f) => this.mcpEndpoints.has(f.uri.toString()));
    if (complete()) return;
    void this.start().catch(() => undefined);
    await new Promise<void>((resolveWait) => {
      const subs: vscode.Disposable[] = [];
      const done = () => {
        clearTimeout(timer);
        for (const s of subs) s.dispose();
        resolveWait();
      };
      const timer = setTimeout(done, timeoutMs);
      subs.push(this.onMcpEndpoints(() => complete() && done()));
      if (token) subs.push(token.onCancellationRequested(done));
    });
  }

  private onServerClosed(): { action: CloseAction; message?: string; handled?: boolean } {
    if (this.mcpEndpoints.size) this.setMcpEndpoints([]);
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < 180_000), now];
    this.output.appendLine(`Quarry: the language server exited unexpectedly (${this.crashes.length} time(s) in 3 minutes).`);
    if (this.lexicalOnlyReason === undefined && this.crashes.length >= 2) {
      this.lexicalOnlyReason = 'the language server crashed twice in 3 minutes; restarted without embeddings (lexical BM25 search only). Set quarry.embedding.provider or run "Quarry: Restart Language Server" to try embeddings again.';
      this.degradedEmitter.fire(this.lexicalOnlyReason);
      // Restart outside the close handler, with `embedding: false`.
      setTimeout(() => void this.restart(true).catch((e) => this.output.appendLine(`Quarry: restart failed: ${(e as Error).message}`)), 500);
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    if (this.crashes.length >= 5) {
      return { action: CloseAction.DoNotRestart, message: 'Quarry: the language server crashed 5 times in 3 minutes and will not be restarted. See the Quarry output; "Quarry: Restart Language Server" tries again.' };
    }
    return { action: CloseAction.Restart, handled: true };
  }

  /** Restarts the server; `keepDegraded` false (a user's restart) tries embeddings again. */
  async restart(keepDegraded = false): Promise<void> {
    if (!keepDegraded) {
      this.lexicalOnlyReason = undefined;
      this.crashes = [];
    }
    await this.stop();
    this.lastStatus.clear();
    await this.start();
  }

  async stop(): Promise<void> {
    const c = this.client;
    const starting = this.starting;
    this.client = undefined;
    this.starting = undefined;
    if (this.mcpEndpoints.size) this.setMcpEndpoints([]);
    if (!c) return;
    try {
      await starting?.catch(() => undefined);
      if (c.state !== State.Stopped) await c.stop(5000);
    } catch (e) {
      this.output.appendLine(`Quarry: stopping the language server: ${(e as Error).message}`);
    }
  }

  async find(params: FindParams, token?: vscode.CancellationToken): Promise<FindResult> {
    const c = await this.start();
    return c.sendRequest<FindResult>(FIND_METHOD, params, token);
  }

  /** Tells the server a result was opened (its activation rises); best effort, never throws. */
  resultOpened(match: LocatedMatch): void {
    const params: ResultOpenedParams = { folder: match.folder, chunkId: match.content.chunk_id, uri: match.location.uri, line: match.span[0] };
    void this.start()
      .then((c) => c.sendNotification(RESULT_OPENED_NOTIFICATION, params))
      .catch((e: Error) => this.output.appendLine(`Quarry: reporting an opened result: ${e.message}`));
  }

  async status(token?: vscode.CancellationToken): Promise<StatusResult> {
    const c = await this.start();
    return c.sendRequest<StatusResult>(STATUS_METHOD, undefined, token);
  }

  async reindex(params: ReindexParams, token?: vscode.CancellationToken): Promise<ReindexResult> {
    const c = await this.start();
    return c.sendRequest<ReindexResult>(REINDEX_METHOD, params, token);
  }

  dispose(): void {
    void this.stop();
    this.statusEmitter.dispose();
    this.degradedEmitter.dispose();
    this.mcpEmitter.dispose();
  }
}
