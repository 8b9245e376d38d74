/**
 * A workspace folder's life: open its engine (configuration = `.quarry/config.yml` under the editor settings), serve
 * it as MCP over Streamable HTTP, claim its index ownership (`.quarry/owner.json`, kind `lsp`), index it on start
 * when it owns it (or read the index another process keeps, taking over when that process exits), and close it all.
 */
import type { WorkspaceFoldersChangeEvent } from 'vscode-languageserver';
import { loadConfig, mergeConfig } from '../engine/config/load';
import type { QuarryConfig } from '../engine/config/schema';
import { Engine } from '../engine/engine';
import { warmUp } from '../engine/search/warmUp';
import { describeOwner, IndexOwnership, readOwner } from '../engine/indexer/owner';
import { startMcpHttp } from '../mcp/http';
import { notifyStatus, sendMcpEndpoints } from './clientNotifications';
import type { ServerContext } from './context';
import { Folder, makeFolder, owns } from './folder';
import { watchMemoryFolder } from './fileWatcher';
import { indexFolder } from './indexRuns';

/**
 * Opens a folder's engine and, on an existing index, starts its warm-up (engine/search/warmUp.ts; a reader's too; not
 * the BPE tables) — nothing that talks to the client but an error message about invalid settings, so the `initialize`
 * request may wait for it (handlers/lifecycle.ts) and the session's first search finds the models and segments loaded.
 * Once per folder: `openFolder` continues from the same engine.
 */
export function openEngine(ctx: ServerContext, f: Folder): Promise<Engine> {
  f.opening ??= (async () => {
    const { options } = ctx;
    let config: QuarryConfig | undefined;
    try {
      config = mergeConfig(loadConfig(f.root).config, options.settings, 'editor settings (quarry.*)');
    } catch (e) {
      // Invalid editor settings: say which, and keep working on the file's (or default) configuration.
      void ctx.connection.window.showErrorMessage(`Quarry: ${(e as Error).message}`);
      config = undefined;
    }
    const engine = await Engine.open(f.root, {
      ...(config ? { config } : {}),
      ...(options.embedding === false ? { embedding: null } : {}),
      ...(options.reranker === false ? { reranker: null } : {}),
      longRunning: true,
    });
    if (engine.hasIndex && !f.closed) f.warming = warmUp(engine, undefined, { tokenCounts: false });
    return engine;
  })();
  return f.opening;
}

export async function openFolder(ctx: ServerContext, f: Folder): Promise<void> {
  const { options } = ctx;
  try {
    const engine = await openEngine(ctx, f);
    if (f.closed) {
      await f.warming;
      await engine.close();
      return;
    }
    f.engine = engine;
    watchMemoryFolder(ctx, f, engine.root);
    if (engine.hasIndex) f.markReady(); // the existing index answers while the update runs (and is warming up: openEngine)
    f.state = 'ready';
    await startFolderMcp(ctx, f, engine);
    f.ownership = await IndexOwnership.claim(engine.quarryDir, {
      kind: 'lsp',
      root: engine.root,
      mcpUrl: f.mcp?.url,
      onChange: (owned, holder) => onOwnershipChange(ctx, f, owned, holder),
    });
    if (f.closed) {
      f.ownership.close();
      return;
    }
    if (!f.ownership.owned) {
      const holder = f.ownership.holder;
      const who = holder ? describeOwner(holder) : 'another process';
      ctx.log(`Quarry: ${who} owns the index of ${f.name}; this server reads it (and takes over when that process exits).`);
      if (engine.hasIndex) {
        f.markReady();
        notifyStatus(ctx, f, `reading the index kept by ${who}`);
      } else {
        notifyStatus(ctx, f, `waiting for ${who} to build the index`);
        void waitUntil(() => f.closed || engine.hasIndex || f.ownership?.owned === true).then(() => {
          if (!f.closed && engine.hasIndex) {
            f.markReady();
            notifyStatus(ctx, f, `reading the index kept by ${who}`);
          }
        });
      }
      return;
    }
    if (options.indexOnStart === false) {
      f.markReady();
      notifyStatus(ctx, f, 'opened (no index run on start)');
      return;
    }
    // an existing index is warming up beside the start-up refresh (above); a new one is warmed up after its first build
    await indexFolder(ctx, f, { reason: engine.hasIndex ? 'updating the index' : 'building the index' }).catch(() => undefined);
    if (!f.closed && engine.hasIndex && !f.warming) f.warming = warmUp(engine, undefined, { tokenCounts: false });
  } catch (e) {
    f.state = 'error';
    f.error = (e as Error).message;
    f.markReady();
    notifyStatus(ctx, f, `cannot open: ${f.error}`);
    ctx.log(`Quarry: cannot open ${f.root}: ${f.error}`);
  }
}

export async function closeFolder(ctx: ServerContext, f: Folder): Promise<void> {
  f.closed = true;
  f.state = 'closed';
  clearTimeout(f.watchTimer);
  f.memoryWatcher?.close();
  for (const t of f.bufferTimers.values()) clearTimeout(t.timer);
  f.running?.abort.abort();
  const mcp = f.mcp;
  f.mcp = undefined;
  if (mcp) {
    await mcp.close().catch(() => undefined);
    if (!ctx.shuttingDown) sendMcpEndpoints(ctx);
  }
  await f.queue.idle();
  await f.warming;
  f.ownership?.close();
  await f.engine?.close().catch(() => undefined);
  f.engine = undefined;
}

/** `workspace/didChangeWorkspaceFolders`: closes the removed folders and opens the added ones. */
export function workspaceFoldersChanged(ctx: ServerContext, ev: WorkspaceFoldersChangeEvent): void {
  const { folders } = ctx;
  for (const r of ev.removed) {
    const i = folders.findIndex((f) => f.uri === r.uri);
    if (i >= 0) void closeFolder(ctx, folders.splice(i, 1)[0]);
  }
  for (const a of ev.added) {
    const f = makeFolder(a.uri, a.name);
    if (f && !folders.some((x) => x.uri === f.uri)) {
      folders.push(f);
      void openFolder(ctx, f);
    }
  }
}

/** Serves the folder's engine as MCP over Streamable HTTP (unless turned off); a failure is logged, never fatal. */
async function startFolderMcp(ctx: ServerContext, f: Folder, engine: Engine): Promise<void> {
  const { options } = ctx;
  if (options.mcp?.http === false) return;
  const port = !ctx.mcpPortUsed && options.mcp?.port ? options.mcp.port : 0;
  ctx.mcpPortUsed = true;
  try {
    f.mcp = await startMcpHttp(engine, { host: '127.0.0.1', port, token: ctx.mcpToken, tools: { ready: f.ready, mayIndex: () => owns(f) } });
    if (f.closed) {
      await f.mcp.close();
      f.mcp = undefined;
      return;
    }
    ctx.log(`Quarry: MCP (Streamable HTTP) for ${f.name} on ${f.mcp.url}`);
    sendMcpEndpoints(ctx);
  } catch (e) {
    ctx.log(`Quarry: cannot serve MCP over HTTP for ${f.name}: ${(e as Error).message}`);
  }
}

/** Another process took the index over (this server only reads it now), or its owner exited (this one keeps it). */
function onOwnershipChange(ctx: ServerContext, f: Folder, owned: boolean, holder: ReturnType<typeof readOwner>): void {
  if (f.closed || ctx.shuttingDown) return;
  if (owned) {
    ctx.log(`Quarry: the previous owner of ${f.name}'s index is gone; this server keeps it fresh now.`);
    void indexFolder(ctx, f, { reason: 'taking over the index: updating it' }).catch(() => undefined);
  } else {
    ctx.log(`Quarry: ${holder ? describeOwner(holder) : 'another process'} took over the index of ${f.name}; this server reads it from now on.`);
    f.pending.clear();
    f.pendingIndex = false;
    clearTimeout(f.watchTimer);
    f.running?.abort.abort();
    notifyStatus(ctx, f, `reading the index kept by ${holder ? describeOwner(holder) : 'another process'}`);
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
