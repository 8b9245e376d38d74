/**
 * Quarry's language server: the engine behind LSP.
 *
 * - One Engine per workspace folder (multi-root), opened on `initialized`, then an index run reported with
 *   work-done progress (`window/workDoneProgress/create` + `$/progress`) and `codeSearch/statusChanged`.
 *   Searches run as soon as the lexical phase is committed (the dense phase continues in the background).
 * - Requests: `codeSearch/find`, `codeSearch/status`, `codeSearch/reindex`, `workspace/symbol`.
 *   Each honours `$/cancelRequest` (checked between steps → RequestCancelled); engine errors become
 *   ResponseErrors with their message.
 * - Freshness: watched-file events are batched (~150 ms, a branch switch is one batch) into `updateFiles`;
 *   open buffers are pushed with `setBuffer` (debounced ~200 ms per document, null on close); saves re-index the
 *   file; a `.gitignore` change runs an incremental index of the folder. Writes are serialized per folder.
 *
 * - Ownership (engine/indexer/owner.ts): the server claims each folder's index (`.quarry/owner.json`, kind `lsp`,
 *   outranking `quarry serve` and `quarry mcp`). When another language server owns it, this one only reads it (no
 *   index run on start, no file-watch or buffer writes; explicit reindex requests still run, under the lock) and takes
 *   over when that owner exits. An index run that finds the lock held by a displaced owner waits for it.
 * - MCP: each folder's engine is also served as MCP over Streamable HTTP on loopback (mcp/http.ts: bearer token per
 *   server start, Host/Origin checks, size and concurrency limits), announced with `codeSearch/mcpEndpoints` and in
 *   `codeSearch/status`, so that the editor can hand it to its agents; `initializationOptions.mcp.http: false` is off.
 *
 * Nothing here writes to stdout: logs go to `connection.console` (the client's output) or stderr.
 */
import { loadConfig, mergeConfig } from '../engine/config/load';
import type { QuarryConfig } from '../engine/config/schema';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CancellationToken,
  Connection,
  DidChangeWatchedFilesNotification,
  ErrorCodes,
  FileChangeType,
  InitializeParams,
  InitializeResult,
  LSPErrorCodes,
  ResponseError,
  SymbolInformation,
  SymbolKind,
  TextDocuments,
  TextDocumentSyncKind,
  WorkDoneProgressReporter,
  WorkspaceSymbolParams,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { randomBytes } from 'node:crypto';
import { mkdirSync, watch, type FSWatcher } from 'node:fs';
import { PATTERNS_PATH } from '../engine/memory/patterns';
import { Engine, EngineIndexOptions, EngineIndexSummary } from '../engine/engine';
import { IndexLockedError } from '../engine/indexer/lock';
import { describeOwner, IndexOwnership, lockHeldByLiveProcess, readOwner } from '../engine/indexer/owner';
import { startMcpHttp, McpHttpHandle } from '../mcp/http';
import type { CodeMatch, FindCodeResponseSummary, SearchStrategy } from '../engine/api/results';
import type { SymbolHit } from '../engine/symbols';
import {
  FIND_METHOD,
  FindParams,
  FindResult,
  FolderState,
  FolderStatus,
  LocatedMatch,
  LspLocation,
  MCP_ENDPOINTS_NOTIFICATION,
  McpEndpointsParams,
  QuarryInitializationOptions,
  REINDEX_METHOD,
  ReindexParams,
  ReindexResult,
  RESULT_OPENED_NOTIFICATION,
  ResultOpenedParams,
  STATUS_CHANGED_NOTIFICATION,
  STATUS_METHOD,
  StatusChangedParams,
  StatusResult,
} from './protocol';
import { WriteQueue } from './writeQueue';

class Cancelled extends Error {}

function cancelledError(): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'Request cancelled');
}

function checkCancel(token: CancellationToken): void {
  if (token.isCancellationRequested) throw new Cancelled();
}

/** Lets already-received messages (a `$/cancelRequest` right behind the request) be processed. */
function tick(): Promise<void> {
  return new Promise((r) => setImmediate(r));
}

/** Resolves with `p`, or rejects with Cancelled as soon as the token fires. */
function untilCancelled<T>(p: Promise<T>, token: CancellationToken): Promise<T> {
  if (token.isCancellationRequested) return Promise.reject(new Cancelled());
  return new Promise<T>((resolveP, reject) => {
    const sub = token.onCancellationRequested(() => {
      sub.dispose();
      reject(new Cancelled());
    });
    p.then(
      (v) => {
        sub.dispose();
        resolveP(v);
      },
      (e) => {
        sub.dispose();
        reject(e);
      },
    );
  });
}

/** Maps any failure to a ResponseError with a clear message (never a crash). */
function toResponseError(e: unknown): ResponseError<void> {
  if (e instanceof ResponseError) return e;
  if (e instanceof Cancelled) return cancelledError();
  const err = e as Error;
  const message = err?.message ?? String(e);
  switch (err?.name) {
    case 'QueryError':
      return new ResponseError(ErrorCodes.InvalidParams, message);
    case 'IndexLockedError':
    case 'ConfigError':
    case 'EngineError':
      return new ResponseError(LSPErrorCodes.RequestFailed, message);
    default:
      return new ResponseError(LSPErrorCodes.RequestFailed, `Quarry: ${message}`);
  }
}

function uriToPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

/** The LSP SymbolKind of a chunk kind. */
export function symbolKindOf(kind: string): SymbolKind {
  switch (kind) {
    case 'class':
      return SymbolKind.Class;
    case 'struct':
      return SymbolKind.Struct;
    case 'interface':
    case 'protocol':
    case 'trait':
      return SymbolKind.Interface;
    case 'enum':
      return SymbolKind.Enum;
    case 'function':
      return SymbolKind.Function;
    case 'method':
      return SymbolKind.Method;
    case 'constructor':
      return SymbolKind.Constructor;
    case 'variable':
      return SymbolKind.Variable;
    case 'module':
      return SymbolKind.Module;
    case 'namespace':
      return SymbolKind.Namespace;
    case 'type_alias':
      return SymbolKind.TypeParameter;
    case 'extension':
    case 'impl':
      return SymbolKind.Class;
    case 'section':
      return SymbolKind.String;
    default:
      return SymbolKind.Object;
  }
}

const MATCH_RANK: Record<string, number> = { exact: 4, prefix: 3, camel: 2, fuzzy: 1 };

interface Folder {
  uri: string;
  name: string;
  root: string;
  engine?: Engine;
  state: FolderState;
  error: string | null;
  searchable: boolean;
  /** Resolves when searches can run (or the folder failed to open). */
  ready: Promise<void>;
  markReady: () => void;
  queue: WriteQueue;
  /** The running index run, when its dense phase may be preempted by other writes. */
  running?: { abort: AbortController; dense: boolean; preempted: boolean };
  /** Pending watched-file paths (workspace-relative) and whether a .gitignore changed. */
  pending: Set<string>;
  pendingIndex: boolean;
  watchTimer?: NodeJS.Timeout;
  /** Watches `.quarry/memory/` for patterns recorded by other processes (agents over stdio MCP, the CLI). */
  memoryWatcher?: FSWatcher;
  bufferTimers: Map<string, NodeJS.Timeout>;
  closed: boolean;
  /** This server's part in the folder's index ownership; writes only while `owned`. */
  ownership?: IndexOwnership;
  /** The folder's MCP endpoint. */
  mcp?: McpHttpHandle;
}

/** How long an index run waits for a lock held by another live process (a displaced owner finishing a batch). */
const LOCK_WAIT_MS = 120_000;

export function startLanguageServer(connection: Connection): void {
  const folders: Folder[] = [];
  let options: QuarryInitializationOptions = {};
  let progressSupported = false;
  let watchRegistration = false;
  let shuttingDown = false;
  const documents = new TextDocuments(TextDocument);
  /** One bearer token for every MCP endpoint of this server start. */
  const mcpToken = randomBytes(32).toString('base64url');
  /** The first folder gets the configured MCP port; later ones any free port. */
  let mcpPortUsed = false;

  const log = (msg: string) => {
    try {
      connection.console.log(msg);
    } catch {
      process.stderr.write(msg + '\n');
    }
  };

  const notify = (f: Folder, message: string, counts?: { files: number; chunks: number }) => {
    const params: StatusChangedParams = { folder: f.uri, name: f.name, state: f.state, searchable: f.searchable, message, ...counts };
    void connection.sendNotification(STATUS_CHANGED_NOTIFICATION, params).catch(() => undefined);
  };

  /** This server keeps the folder's index fresh (no ownership record: the folder is not open yet). */
  const owns = (f: Folder): boolean => f.ownership?.owned !== false;

  const sendMcpEndpoints = () => {
    const params: McpEndpointsParams = {
      endpoints: folders.filter((f) => f.mcp && !f.closed).map((f) => ({ folder: f.uri, name: f.name, root: f.root, url: f.mcp!.url, token: f.mcp!.token })),
    };
    void connection.sendNotification(MCP_ENDPOINTS_NOTIFICATION, params).catch(() => undefined);
  };

  const makeFolder = (uri: string, name: string): Folder | undefined => {
    const root = uriToPath(uri);
    if (!root) return undefined;
    let markReady!: () => void;
    const ready = new Promise<void>((r) => (markReady = r));
    const f: Folder = {
      uri,
      name,
      root: resolve(root),
      state: 'opening',
      error: null,
      searchable: false,
      ready,
      markReady: () => undefined,
      queue: new WriteQueue(),
      pending: new Set(),
      pendingIndex: false,
      bufferTimers: new Map(),
      closed: false,
    };
    f.markReady = () => {
      f.searchable = true;
      markReady();
    };
    return f;
  };

  /** The folder holding an absolute path (the innermost root), with the workspace-relative path. */
  const locate = (absPath: string): { folder: Folder; rel: string } | undefined => {
    let best: { folder: Folder; rel: string } | undefined;
    for (const f of folders) {
      const rel = relative(f.root, absPath);
      if (!rel || rel.startsWith('..') || isAbsolute(rel)) continue;
      if (!best || f.root.length > best.folder.root.length) best = { folder: f, rel: rel.split(sep).join('/') };
    }
    return best;
  };

  const selectFolders = (which: string | undefined): Folder[] => {
    if (!which) return folders;
    const asPath = uriToPath(which) ?? which;
    const out = folders.filter((f) => f.uri === which || f.name === which || f.root === resolve(asPath));
    if (!out.length) throw new ResponseError(ErrorCodes.InvalidParams, `No workspace folder "${which}" (open: ${folders.map((f) => f.name).join(', ') || 'none'}).`);
    return out;
  };

  // ── index runs ─────────────────────────────────────────────────────────────────────────────────────

  const createProgress = async (): Promise<WorkDoneProgressReporter | undefined> => {
    if (!progressSupported) return undefined;
    try {
      return await connection.window.createWorkDoneProgress();
    } catch {
      return undefined;
    }
  };

  /** One index run of a folder on its write queue, with work-done progress. */
  const indexFolder = (f: Folder, opts: { full?: boolean; reason: string; signal?: AbortSignal }): Promise<EngineIndexSummary | undefined> =>
    f.queue.run(async () => {
      const engine = f.engine;
      if (!engine || f.closed || shuttingDown) return undefined;
      const abort = new AbortController();
      const onOuterAbort = () => abort.abort();
      opts.signal?.addEventListener('abort', onOuterAbort);
      const run = { abort, dense: false, preempted: false };
      f.running = run;
      const progress = await createProgress();
      const title = `Quarry: indexing ${f.name}`;
      progress?.begin(title, 0, opts.reason, false);
      let lastPct = -1;
      let lastAt = 0;
      const report = (pct: number, message: string, force = false) => {
        const p = Math.max(lastPct, Math.min(100, Math.round(pct)));
        const now = Date.now();
        if (!force && p === lastPct && now - lastAt < 250) return;
        if (!force && now - lastAt < 100 && p - lastPct < 5) return;
        lastPct = p;
        lastAt = now;
        progress?.report(p, message);
      };
      f.state = 'indexing';
      f.error = null;
      notify(f, opts.reason);
      const indexOptions: EngineIndexOptions = {
        full: opts.full,
        signal: abort.signal,
        onProgress: (p) => {
          if (p.phase === 'discovering') report(0, `discovering files (${p.filesDiscovered})`);
          else if (p.phase === 'indexing') report(p.filesToProcess ? (p.filesProcessed / p.filesToProcess) * 80 : 80, `${p.filesProcessed}/${p.filesToProcess} files · ${p.chunksCreated} chunks`);
          else report(80, 'committing');
        },
        onEmbedProgress: (p) => {
          if (!run.dense) {
            // The dense phase starts only after the lexical index is committed: searches can run.
            run.dense = true;
            f.state = 'embedding';
            f.markReady();
            notify(f, `searchable; embedding ${p.total} chunks (${p.model})`);
          }
          report(80 + (p.total ? (p.done / p.total) * 20 : 20), `embedding ${p.done}/${p.total} chunks (${p.model})`);
        },
      };
      try {
        const summary = await indexWhenUnlocked(engine, indexOptions, abort.signal, (holderPid) => report(lastPct < 0 ? 0 : lastPct, `waiting for process ${holderPid} to finish writing the index`, true));
        f.state = 'ready';
        f.markReady();
        const msg = `indexed: ${summary.totalFiles} files, ${summary.totalChunks} chunks` + (abort.signal.aborted ? ' (interrupted)' : '');
        report(100, msg, true);
        notify(f, msg, { files: summary.totalFiles, chunks: summary.totalChunks });
        if (summary.errors.length) log(`Quarry: ${summary.errors.length} file(s) failed to index in ${f.name}: ${summary.errors.slice(0, 5).map((e) => `${e.path} (${e.message})`).join('; ')}`);
        return summary;
      } catch (e) {
        f.error = (e as Error).message;
        f.state = 'error';
        // A failed run (e.g. another process holds the index lock) leaves the committed index usable.
        f.markReady();
        notify(f, `indexing failed: ${f.error}`);
        log(`Quarry: indexing ${f.name} failed: ${f.error}`);
        throw e;
      } finally {
        progress?.done();
        opts.signal?.removeEventListener('abort', onOuterAbort);
        if (f.running === run) f.running = undefined;
        // The dense phase gave way to other writes: finish it after them.
        if (run.preempted && !f.closed && !shuttingDown) void indexFolder(f, { reason: 'resuming embeddings' }).catch(() => undefined);
      }
    });

  /** A write on the folder's queue; a running dense phase gives way (it resumes afterwards). */
  const write = <T>(f: Folder, what: string, task: (engine: Engine) => Promise<T>): Promise<T | undefined> => {
    if (f.running?.dense && !f.running.preempted) {
      f.running.preempted = true;
      f.running.abort.abort();
    }
    return f.queue
      .run(async () => {
        if (!f.engine || f.closed) return undefined;
        return task(f.engine);
      })
      .catch((e) => {
        log(`Quarry: ${what} in ${f.name} failed: ${(e as Error).message}`);
        return undefined;
      });
  };

  const openFolder = async (f: Folder): Promise<void> => {
    try {
      let config: QuarryConfig | undefined;
      try {
        config = mergeConfig(loadConfig(f.root).config, options.settings, 'editor settings (quarry.*)');
      } catch (e) {
        // Invalid editor settings: say which, and keep working on the file's (or default) configuration.
        void connection.window.showErrorMessage(`Quarry: ${(e as Error).message}`);
        config = undefined;
      }
      const engine = await Engine.open(f.root, {
        ...(config ? { config } : {}),
        ...(options.embedding === false ? { embedding: null } : {}),
        ...(options.reranker === false ? { reranker: null } : {}),
      });
      if (f.closed) {
        await engine.close();
        return;
      }
      f.engine = engine;
      watchMemory(f, engine.root);
      if (engine.hasIndex) f.markReady(); // the existing index answers while the update runs
      f.state = 'ready';
      await startFolderMcp(f, engine);
      f.ownership = await IndexOwnership.claim(engine.quarryDir, {
        kind: 'lsp',
        root: engine.root,
        mcpUrl: f.mcp?.url,
        onChange: (owned, holder) => onOwnershipChange(f, owned, holder),
      });
      if (f.closed) {
        f.ownership.close();
        return;
      }
      if (!f.ownership.owned) {
        const holder = f.ownership.holder;
        const who = holder ? describeOwner(holder) : 'another process';
        log(`Quarry: ${who} owns the index of ${f.name}; this server reads it (and takes over when that process exits).`);
        if (engine.hasIndex) {
          f.markReady();
          notify(f, `reading the index kept by ${who}`);
        } else {
          notify(f, `waiting for ${who} to build the index`);
          void waitUntil(() => f.closed || engine.hasIndex || f.ownership?.owned === true).then(() => {
            if (!f.closed && engine.hasIndex) {
              f.markReady();
              notify(f, `reading the index kept by ${who}`);
            }
          });
        }
        return;
      }
      if (options.indexOnStart === false) {
        f.markReady();
        notify(f, 'opened (no index run on start)');
        return;
      }
      await indexFolder(f, { reason: engine.hasIndex ? 'updating the index' : 'building the index' }).catch(() => undefined);
    } catch (e) {
      f.state = 'error';
      f.error = (e as Error).message;
      f.markReady();
      notify(f, `cannot open: ${f.error}`);
      log(`Quarry: cannot open ${f.root}: ${f.error}`);
    }
  };

  const closeFolder = async (f: Folder): Promise<void> => {
    f.closed = true;
    f.state = 'closed';
    clearTimeout(f.watchTimer);
    f.memoryWatcher?.close();
    for (const t of f.bufferTimers.values()) clearTimeout(t);
    f.running?.abort.abort();
    const mcp = f.mcp;
    f.mcp = undefined;
    if (mcp) {
      await mcp.close().catch(() => undefined);
      if (!shuttingDown) sendMcpEndpoints();
    }
    await f.queue.idle();
    f.ownership?.close();
    await f.engine?.close().catch(() => undefined);
    f.engine = undefined;
  };

  /** Serves the folder's engine as MCP over Streamable HTTP (unless turned off); a failure is logged, never fatal. */
  const startFolderMcp = async (f: Folder, engine: Engine): Promise<void> => {
    if (options.mcp?.http === false) return;
    const port = !mcpPortUsed && options.mcp?.port ? options.mcp.port : 0;
    mcpPortUsed = true;
    try {
      f.mcp = await startMcpHttp(engine, { host: '127.0.0.1', port, token: mcpToken, tools: { ready: f.ready, mayIndex: () => owns(f) } });
      if (f.closed) {
        await f.mcp.close();
        f.mcp = undefined;
        return;
      }
      log(`Quarry: MCP (Streamable HTTP) for ${f.name} on ${f.mcp.url}`);
      sendMcpEndpoints();
    } catch (e) {
      log(`Quarry: cannot serve MCP over HTTP for ${f.name}: ${(e as Error).message}`);
    }
  };

  const onOwnershipChange = (f: Folder, owned: boolean, holder: ReturnType<typeof readOwner>) => {
    if (f.closed || shuttingDown) return;
    if (owned) {
      log(`Quarry: the previous owner of ${f.name}'s index is gone; this server keeps it fresh now.`);
      void indexFolder(f, { reason: 'taking over the index: updating it' }).catch(() => undefined);
    } else {
      log(`Quarry: ${holder ? describeOwner(holder) : 'another process'} took over the index of ${f.name}; this server reads it from now on.`);
      f.pending.clear();
      f.pendingIndex = false;
      clearTimeout(f.watchTimer);
      f.running?.abort.abort();
      notify(f, `reading the index kept by ${holder ? describeOwner(holder) : 'another process'}`);
    }
  };

  // ── lifecycle ──────────────────────────────────────────────────────────────────────────────────────

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    options = (params.initializationOptions ?? {}) as QuarryInitializationOptions;
    progressSupported = params.capabilities.window?.workDoneProgress === true;
    watchRegistration = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    const given = params.workspaceFolders?.length
      ? params.workspaceFolders.map((w) => ({ uri: w.uri, name: w.name }))
      : params.rootUri
        ? [{ uri: params.rootUri, name: basename(uriToPath(params.rootUri) ?? params.rootUri) }]
        : params.rootPath
          ? [{ uri: pathToFileURL(params.rootPath).href, name: basename(params.rootPath) }]
          : [];
    for (const g of given) {
      const f = makeFolder(g.uri, g.name);
      if (f) folders.push(f);
    }
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        workspaceSymbolProvider: true,
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'quarry' },
    };
  });

  connection.onInitialized(() => {
    if (watchRegistration) {
      void connection.client
        .register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/*' }] })
        .catch((e) => log(`Quarry: cannot register file watchers: ${(e as Error).message}`));
    }
    try {
      connection.workspace.onDidChangeWorkspaceFolders((ev) => {
        for (const r of ev.removed) {
          const i = folders.findIndex((f) => f.uri === r.uri);
          if (i >= 0) void closeFolder(folders.splice(i, 1)[0]);
        }
        for (const a of ev.added) {
          const f = makeFolder(a.uri, a.name);
          if (f && !folders.some((x) => x.uri === f.uri)) {
            folders.push(f);
            void openFolder(f);
          }
        }
      });
    } catch {
      /* the client does not send folder changes */
    }
    for (const f of folders) void openFolder(f);
  });

  connection.onShutdown(async () => {
    shuttingDown = true;
    await Promise.all(folders.map(closeFolder));
  });

  // ── requests ───────────────────────────────────────────────────────────────────────────────────────

  /** Runs a handler with cancellation and error mapping. */
  const guarded =
    <P, R>(fn: (params: P, token: CancellationToken) => Promise<R>) =>
    async (...args: unknown[]): Promise<R | ResponseError<void>> => {
      // vscode-jsonrpc calls a handler with (token) alone when the request has no params; LSP handlers get
      // (params, token, workDoneProgress, resultProgress).
      const isToken = (a: unknown) => CancellationToken.is(a);
      const token = (args.find(isToken) as CancellationToken | undefined) ?? CancellationToken.None;
      const params = (isToken(args[0]) ? undefined : args[0]) as P;
      try {
        await tick();
        checkCancel(token);
        const result = await fn(params, token);
        checkCancel(token);
        return result;
      } catch (e) {
        return toResponseError(e);
      }
    };

  /** A location whose range is a name range (1-based line and UTF-16 column, exclusive end → LSP's 0-based). */
  const locationOf = (f: Folder, path: string, name: { line: number; column: number; endLine: number; endColumn: number }): LspLocation => ({
    uri: pathToFileURL(resolve(f.root, path)).href,
    range: {
      start: { line: Math.max(0, name.line - 1), character: Math.max(0, name.column - 1) },
      end: { line: Math.max(0, name.endLine - 1), character: Math.max(0, name.endColumn - 1) },
    },
  });
  const matchLocation = (f: Folder, m: CodeMatch): LspLocation => {
    const r = m.name_range;
    return locationOf(f, m.file.path, r ? { line: r.line, column: r.column, endLine: r.end_line, endColumn: r.end_column } : { line: m.span[0], column: 1, endLine: m.span[0], endColumn: 1 });
  };

  connection.onRequest(
    FIND_METHOD,
    guarded(async (params: FindParams, token): Promise<FindResult> => {
      if (!params || typeof params.query !== 'string' || !params.query.trim()) throw new ResponseError(ErrorCodes.InvalidParams, 'codeSearch/find needs a non-empty "query" string.');
      if (params.limit !== undefined && (!Number.isInteger(params.limit) || params.limit < 1)) throw new ResponseError(ErrorCodes.InvalidParams, '"limit" must be a positive integer.');
      const targets = selectFolders(params.folder);
      if (!targets.length) throw new ResponseError(LSPErrorCodes.RequestFailed, 'No workspace folder is open: open a folder to search it.');
      await untilCancelled(Promise.all(targets.map((f) => f.ready)), token);
      const limit = params.limit ?? 10;
      const results: Array<{ f: Folder; res: FindCodeResponseSummary }> = [];
      const problems: string[] = [];
      for (const f of targets) {
        checkCancel(token);
        if (!f.engine) {
          problems.push(`${f.name}: ${f.error ?? 'not open'}`);
          continue;
        }
        const res = await f.engine.search(params.query, {
          limit,
          includeTests: params.includeTests,
          languages: params.languages,
          types: params.types,
          intent: params.intent ?? null,
          explain: params.explain,
        });
        results.push({ f, res });
      }
      checkCancel(token);
      if (!results.length) throw new ResponseError(LSPErrorCodes.RequestFailed, `No workspace folder could be searched: ${problems.join('; ')}`);
      return mergeResults(results, limit, problems, targets.length > 1);
    }),
  );

  const mergeResults = (results: Array<{ f: Folder; res: FindCodeResponseSummary }>, limit: number, problems: string[], multi: boolean): FindResult => {
    const all: LocatedMatch[] = [];
    for (const { f, res } of results) for (const m of res.matches) all.push({ ...m, location: matchLocation(f, m), folder: f.uri });
    if (results.length === 1) {
      const { res } = results[0];
      return { ...res, matches: all, locations: all.map((m) => m.location), warnings: [...res.warnings, ...problems] };
    }
    all.sort((a, b) => b.score - a.score);
    const matches = all.slice(0, limit);
    const best = Math.max(0, ...matches.map((m) => m.score));
    for (const m of matches) m.relevance_score = best > 0 ? Math.round((m.score / best) * 10000) / 10000 : 0;
    const sum = (k: 'total_matches' | 'execution_time_ms') => results.reduce((n, r) => n + r.res[k], 0);
    const languages = [...new Set(matches.map((m) => m.file.language))].sort();
    const strategy = [...new Set(results.flatMap((r) => r.res.search_strategy))] as SearchStrategy[];
    const searched = { chunks: results.reduce((n, r) => n + r.res.searched.chunks, 0), files: results.reduce((n, r) => n + r.res.searched.files, 0) };
    const tag = (f: Folder, s: string) => (multi ? `${f.name}: ${s}` : s);
    return {
      matches,
      locations: matches.map((m) => m.location),
      summary: (matches.length
        ? `Found ${matches.length} match${matches.length === 1 ? '' : 'es'} in ${new Set(matches.map((m) => `${m.folder}|${m.file.path}`)).size} file(s) across ${results.length} folders` +
          (languages.length ? ` (${languages.join(', ')})` : '') + `; ${sum('total_matches')} candidate chunk(s) matched.`
        : `No results (searched ${searched.chunks} chunks across ${searched.files} files in ${results.length} folders).`
      ).slice(0, 1000),
      query_intent: results.find((r) => r.res.query_intent)?.res.query_intent ?? null,
      total_matches: sum('total_matches'),
      total_results: matches.length,
      token_count: matches.reduce((n, m) => n + m.content.token_count, 0),
      execution_time_ms: Math.round(sum('execution_time_ms') * 100) / 100,
      search_strategy: strategy,
      languages_found: languages,
      warnings: [...new Set(results.flatMap((r) => r.res.warnings.map((w) => tag(r.f, w))))].concat(problems),
      suggestions: matches.length ? [] : [...new Set(results.flatMap((r) => r.res.suggestions))],
      searched,
    };
  };

  connection.onRequest(
    STATUS_METHOD,
    guarded(async (_params: unknown, token): Promise<StatusResult> => {
      const out: FolderStatus[] = [];
      for (const f of folders) {
        checkCancel(token);
        let status = null;
        if (f.engine) {
          try {
            status = await f.engine.status();
          } catch (e) {
            f.error = (e as Error).message;
          }
        }
        const owner = f.engine ? readOwner(f.engine.quarryDir) : undefined;
        out.push({
          uri: f.uri,
          name: f.name,
          root: f.root,
          state: f.state,
          searchable: f.searchable,
          error: f.error,
          status,
          mcp: f.mcp ? { url: f.mcp.url, token: f.mcp.token } : null,
          owner: owner?.alive
            ? { kind: owner.kind, pid: owner.pid, thisProcess: f.ownership?.owned === true && owner.pid === process.pid, mcpUrl: owner.mcpUrl ?? null }
            : null,
        });
      }
      return { folders: out };
    }),
  );

  // A result the user opened: its chunk's activation rises (an append to .quarry/memory/accesses.jsonl; any process
  // may record it, owner or reader). Best effort: a bad notification is logged, never answered.
  connection.onNotification(RESULT_OPENED_NOTIFICATION, (params: ResultOpenedParams) => {
    const f = params && typeof params.folder === 'string' ? selectFolders(params.folder)[0] : undefined;
    if (!f?.engine) return;
    const ref = typeof params.chunkId === 'string' && params.chunkId
      ? { chunkId: params.chunkId }
      : typeof params.uri === 'string' && typeof params.line === 'number' ? { path: fileURLToPath(params.uri), line: params.line } : undefined;
    if (!ref) return;
    f.engine.recordAccess([ref], 'vscode').then(
      (r) => r.unknown.length && log(`Quarry: an opened result is no longer in the index of ${f.name} (${r.unknown.join(', ')})`),
      (e: Error) => log(`Quarry: recording an opened result failed: ${e.message}`),
    );
  });

  connection.onRequest(
    REINDEX_METHOD,
    guarded(async (params: ReindexParams | undefined, token): Promise<ReindexResult> => {
      const targets = selectFolders(params?.folder);
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        const out: ReindexResult['folders'] = [];
        await Promise.all(
          targets.map(async (f) => {
            if (!f.engine) {
              out.push({ uri: f.uri, error: f.error ?? 'not open' });
              return;
            }
            try {
              const s = await indexFolder(f, { full: params?.full === true, reason: params?.full ? 'rebuilding the index' : 'updating the index', signal: abort.signal });
              out.push({ uri: f.uri, filesIndexed: s?.filesIndexed, filesRemoved: s?.filesRemoved, totalChunks: s?.totalChunks, durationMs: s?.durationMs });
            } catch (e) {
              out.push({ uri: f.uri, error: (e as Error).message });
            }
          }),
        );
        checkCancel(token);
        return { folders: out };
      } finally {
        sub.dispose();
      }
    }),
  );

  connection.onWorkspaceSymbol(
    guarded(async (params: WorkspaceSymbolParams, token): Promise<SymbolInformation[]> => {
      const query = params.query ?? '';
      const limit = 200;
      const hits: Array<{ f: Folder; h: SymbolHit }> = [];
      for (const f of folders) {
        checkCancel(token);
        if (!f.engine || !f.searchable) continue; // no waiting per keystroke: folders still indexing answer later
        for (const h of await f.engine.symbols(query, limit)) hits.push({ f, h });
      }
      hits.sort((a, b) => (MATCH_RANK[b.h.match] ?? 0) - (MATCH_RANK[a.h.match] ?? 0) || b.h.score - a.h.score);
      return hits.slice(0, limit).map(({ f, h }) => ({
        name: h.name,
        kind: symbolKindOf(h.kind),
        containerName: h.container || undefined,
        location: locationOf(f, h.path, h.nameRange),
      }));
    }),
  );

  // ── freshness ──────────────────────────────────────────────────────────────────────────────────────

  const watchDelay = () => options.watchDebounceMs ?? 150;
  const bufferDelay = () => options.bufferDebounceMs ?? 200;

  /** The pattern log changed (another process recorded a pattern): the owner re-indexes it. */
  const schedulePatternUpdate = (f: Folder) => {
    f.pending.add(PATTERNS_PATH);
    if (f.watchTimer) clearTimeout(f.watchTimer);
    f.watchTimer = setTimeout(() => flushWatched(f), watchDelay());
  };

  /** Every client sends file events differently (or not at all for dot folders): watch the memory folder directly. */
  const watchMemory = (f: Folder, root: string) => {
    try {
      const dir = resolve(root, PATTERNS_PATH, '..');
      mkdirSync(dir, { recursive: true });
      f.memoryWatcher = watch(dir, (_event, name) => {
        if (!f.closed && String(name) === basename(PATTERNS_PATH)) schedulePatternUpdate(f);
      });
      f.memoryWatcher.on('error', () => undefined);
    } catch (e) {
      log(`Quarry: cannot watch ${f.name}'s memory folder (${(e as Error).message}); recorded patterns are indexed by the next index run`);
    }
  };

  const flushWatched = (f: Folder) => {
    f.watchTimer = undefined;
    if (!owns(f)) {
      // The owner (another process) follows these changes.
      f.pending.clear();
      f.pendingIndex = false;
      return;
    }
    const paths = [...f.pending];
    const full = f.pendingIndex;
    f.pending.clear();
    f.pendingIndex = false;
    if (full) {
      void indexFolder(f, { reason: '.gitignore changed: updating the index' }).catch(() => undefined);
    } else if (paths.length) {
      void write(f, `updating ${paths.length} file(s)`, async (engine) => {
        f.state = 'indexing';
        notify(f, `updating ${paths.length} changed file(s)`);
        let s;
        try {
          s = await engine.updateFiles(paths);
        } catch (e) {
          if (!(e instanceof IndexLockedError)) throw e;
          // Another process is writing (e.g. an owner stepping down): keep the paths for the next flush.
          f.state = 'ready';
          for (const p of paths) f.pending.add(p);
          clearTimeout(f.watchTimer);
          f.watchTimer = setTimeout(() => flushWatched(f), 1000);
          return undefined;
        }
        f.state = 'ready';
        notify(f, `updated ${paths.length} file(s)`, { files: s.totalFiles, chunks: s.totalChunks });
        return s;
      });
    }
  };

  connection.onDidChangeWatchedFiles((params) => {
    for (const ev of params.changes) {
      const abs = uriToPath(ev.uri);
      if (!abs) continue;
      const hit = locate(resolve(abs));
      if (!hit) continue;
      const { folder: f, rel } = hit;
      if (rel === PATTERNS_PATH) {
        schedulePatternUpdate(f);
        continue;
      }
      if (rel === '.quarry' || rel.startsWith('.quarry/') || rel === '.git' || rel.startsWith('.git/')) continue;
      if (basename(rel) === '.gitignore' || rel === '.quarryignore' || rel === '.quarry/config.yml') f.pendingIndex = true;
      else f.pending.add(rel);
      void ev.type; // created, changed and deleted are all "re-classify this path"
      if (f.watchTimer) clearTimeout(f.watchTimer);
      f.watchTimer = setTimeout(() => flushWatched(f), watchDelay());
    }
  });

  const docTarget = (uri: string) => {
    const abs = uriToPath(uri);
    return abs ? locate(resolve(abs)) : undefined;
  };

  documents.onDidChangeContent((ev) => {
    const hit = docTarget(ev.document.uri);
    if (!hit || !owns(hit.folder)) return;
    const { folder: f, rel } = hit;
    clearTimeout(f.bufferTimers.get(rel));
    f.bufferTimers.set(
      rel,
      setTimeout(() => {
        f.bufferTimers.delete(rel);
        const doc = documents.get(ev.document.uri);
        if (!doc) return;
        const text = doc.getText();
        void write(f, `updating the buffer of ${rel}`, (engine) => engine.setBuffer(rel, text));
      }, bufferDelay()),
    );
  });

  documents.onDidClose((ev) => {
    const hit = docTarget(ev.document.uri);
    if (!hit || !owns(hit.folder)) return;
    const { folder: f, rel } = hit;
    clearTimeout(f.bufferTimers.get(rel));
    f.bufferTimers.delete(rel);
    void write(f, `closing the buffer of ${rel}`, (engine) => engine.setBuffer(rel, null));
  });

  documents.onDidSave((ev) => {
    const hit = docTarget(ev.document.uri);
    if (!hit || !owns(hit.folder)) return;
    const { folder: f, rel } = hit;
    clearTimeout(f.bufferTimers.get(rel));
    f.bufferTimers.delete(rel);
    void write(f, `re-indexing ${rel}`, (engine) => engine.updateFiles([rel]));
  });

  documents.listen(connection);
}

/**
 * Runs an index run; while the index lock is held by another live process (a displaced owner finishing its batch,
 * a one-shot `quarry index`), waits for it (up to LOCK_WAIT_MS) instead of failing.
 */
async function indexWhenUnlocked(engine: Engine, options: EngineIndexOptions, signal: AbortSignal, waiting: (pid: number) => void): Promise<EngineIndexSummary> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return await engine.index(options);
    } catch (e) {
      if (!(e instanceof IndexLockedError) || signal.aborted || Date.now() > deadline) throw e;
      waiting(e.holder.pid);
      while (lockHeldByLiveProcess(engine.quarryDir) && !signal.aborted && Date.now() <= deadline) await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** Resolves when `test()` holds (polled every 250 ms). */
function waitUntil(test: () => boolean): Promise<void> {
  return new Promise((resolveWait) => {
    const timer = setInterval(() => {
      if (test()) {
        clearInterval(timer);
        resolveWait();
      }
    }, 250);
  });
}

/** FileChangeType re-exported for clients that build watch events. */
export { FileChangeType };
