/**
 * `quarry mcp`: the MCP endpoint over stdio. Stdout carries nothing but protocol messages: console output and
 * LanceDB's native logger go to stderr. The handshake is never blocked by indexing: the server connects at once.
 *
 * One index, several processes (engine/indexer/owner.ts): when a live owner (the language server, `quarry serve`)
 * keeps the workspace's index fresh, this process only reads it — it never indexes, and its searches see the owner's
 * commits. When nobody owns it, this process claims it (under the index lock) and indexes in the background (no
 * index yet: a lexical run first, progress on stderr; an existing index: an incremental refresh). Without an index,
 * searches wait briefly for that first run (then answer with what is indexed, with an "indexing in progress"
 * warning); with one, they answer from it at once while the refresh runs (with that warning). It steps
 * down when a language server or `quarry serve` takes over, and takes over when the owner is gone. An owner that only
 * indexes on its own start (another `quarry mcp`, `quarry serve`) does not follow edits: then this process refreshes
 * the index once, incrementally, under the lock. Exits when the client closes stdin.
 */
// First: a packaged extension unpacks its compressed native libraries before anything requires LanceDB.
import '../startup/unpackNatives';
import '../startup/heapPolicy';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { warmUp } from '../engine/search/warmUp';
import { Engine } from '../engine/engine';
import { IndexLockedError } from '../engine/indexer/lock';
import { describeOwner, IndexOwnership, liveOwner } from '../engine/indexer/owner';
import { createQuarryMcpServer } from './server';

function log(message: string): void {
  process.stderr.write(`[quarry mcp] ${message}\n`);
}

export interface McpStdioOptions {
  /** Never index (read-only use, tests): do not take part in ownership either. */
  noIndex?: boolean;
}

export async function runMcpStdio(projectDir: string, options: McpStdioOptions = {}): Promise<void> {
  process.env.LANCEDB_LOG = process.env.LANCEDB_LOG || 'error';
  // Nothing but protocol on stdout: anything printed through console goes to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  const engine = await Engine.open(projectDir, { longRunning: true });
  const shutdownAbort = new AbortController();
  /** Aborts the index runs of the current ownership term (stepping down ends them). */
  let term = new AbortController();
  const background: Array<Promise<unknown>> = [];
  let ready: Promise<unknown> | undefined;
  /** The warm-up of an existing index (see `connect` below). */
  let warm: Promise<void> | undefined;

  const startIndexing = (why: string): Promise<void> => {
    term = new AbortController();
    const signal = AbortSignal.any([term.signal, shutdownAbort.signal]);
    log(why);
    // an existing index is warmed up at once (the first question of the session should not load the models); a new
    // one after its first commit (initialIndex)
    if (engine.hasIndex) background.push((warm = warmUp(engine, signal)));
    const run = initialIndex(engine, signal, background);
    background.push(run);
    return run;
  };

  let ownership: IndexOwnership | undefined;
  if (!options.noIndex) {
    ownership = await IndexOwnership.claim(engine.quarryDir, {
      kind: 'mcp',
      root: engine.root,
      onChange: (owned, holder) => {
        if (owned) {
          void startIndexing(`the previous owner of ${engine.root} is gone: this process owns the index now and updates it`);
        } else {
          log(`${holder ? describeOwner(holder) : 'another process'} took over the index of ${engine.root}: reading it from now on`);
          term.abort();
        }
      },
    });
    if (ownership.owned) {
      // A new index is waited for (briefly, see tools.ts); an existing one answers at once while the start-up refresh
      // runs (as in the language server), its answers saying that indexing is in progress.
      const run = startIndexing(`this process owns the index of ${engine.root}`);
      if (!engine.hasIndex) ready = run;
    } else {
      const owner = ownership.holder;
      log(
        owner
          ? `${describeOwner(owner)} owns the index of ${engine.root}: serving it read-only (its new writes are seen; no indexing here)`
          : `another process is indexing ${engine.root}: serving the existing index (this process takes over if nobody owns it)`,
      );
      // No index yet: searches wait (briefly, see tools.ts) for the owner's first commit.
      if (!engine.hasIndex) ready = waitFor(() => engine.hasIndex || !liveOwner(engine.quarryDir), shutdownAbort.signal);
      else if (owner && owner.kind !== 'lsp') {
        // An owner that indexed on its start only (`quarry mcp`, `quarry serve`) does not follow edits: refresh the
        // index once, incrementally, under the lock (skipped while the owner itself is writing).
        background.push(
          engine.index({ signal: shutdownAbort.signal }).then(
            (s) => log(`refreshed ${engine.root}: ${s.filesIndexed} file(s) updated, ${s.filesRemoved} removed`),
            (e) => !shutdownAbort.signal.aborted && log(e instanceof IndexLockedError ? `not refreshed: ${describeOwner(owner)} is writing the index` : `refresh failed: ${(e as Error).message}`),
          ),
        );
      }
    }
  } else if (!engine.hasIndex) {
    log(`no index for ${engine.root} and --no-index: searches return nothing until one is built`);
  }

  // a reader (another process owns the index, or --no-index) answers from an existing index too: warm it up as well
  if (engine.hasIndex && !warm) background.push((warm = warmUp(engine, shutdownAbort.signal)));

  // Patterns recorded through this server are indexed here only while this process owns the index.
  const server = createQuarryMcpServer(engine, { ready, mayIndex: () => ownership?.owned === true });
  const transport = new StdioServerTransport();

  let closing: Promise<void> | undefined;
  const shutdown = (why: string): Promise<void> => {
    closing ??= (async () => {
      log(`shutting down (${why})`);
      shutdownAbort.abort();
      term.abort();
      await ready?.catch(() => undefined);
      await Promise.allSettled(background);
      ownership?.close();
      await server.close().catch(() => undefined);
      await engine.close().catch((e) => log(`close failed: ${(e as Error).message}`));
    })();
    return closing;
  };

  // An existing index is ready to answer before the session starts: the handshake waits (up to WARM_WAIT_MS) for the
  // warm-up, so that the agent's first question does not share the process with it (issue 21: a find right after
  // connecting took 0.3-0.9 s, the next ones 0.1-0.2 s). A new index is not waited for (tools.ts).
  if (warm) {
    const t0 = Date.now();
    const done = await Promise.race([warm.then(() => true), delay(WARM_WAIT_MS).then(() => false)]);
    log(done ? `warmed up in ${Date.now() - t0} ms` : `still warming up after ${WARM_WAIT_MS} ms: serving meanwhile`);
  }
  await server.connect(transport);
  log(`serving ${engine.root} over stdio`);

  await new Promise<void>((resolveDone) => {
    const done = (why: string) => void shutdown(why).then(() => resolveDone());
    process.stdin.once('end', () => done('stdin closed'));
    process.stdin.once('close', () => done('stdin closed'));
    transport.onclose = () => done('transport closed');
    process.once('SIGTERM', () => done('SIGTERM'));
    process.once('SIGINT', () => done('SIGINT'));
  });
}

/** How long the MCP handshake waits for the warm-up of an existing index (a bound; 0.3-0.7 s on a 2k-chunk repository). */
const WARM_WAIT_MS = 1500;

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

/** Resolves when `test()` holds (polled every 200 ms) or the signal aborts. */
function waitFor(test: () => boolean, signal: AbortSignal): Promise<void> {
  return new Promise((resolveWait) => {
    const check = () => {
      if (signal.aborted || test()) {
        clearInterval(timer);
        resolveWait();
      }
    };
    const timer = setInterval(check, 200);
    timer.unref();
    check();
  });
}

/** No index yet: a lexical run first (searchable soonest), then the dense phase; an index: an incremental refresh. */
async function initialIndex(engine: Engine, signal: AbortSignal, background: Array<Promise<unknown>>): Promise<void> {
  const fresh = !engine.hasIndex;
  try {
    if (fresh) log(`no index yet for ${engine.root}: indexing (lexical first)…`);
    let lastReport = 0;
    const throttled = (line: () => string, force = false) => {
      const now = Date.now();
      if (force || now - lastReport > 1000) {
        lastReport = now;
        log(line());
      }
    };
    const s = await engine.index({
      signal,
      lexicalOnly: fresh,
      onProgress: (p) =>
        throttled(() => `${p.phase}: ${p.filesProcessed}/${p.filesToProcess} files, ${p.chunksCreated} chunks`, p.phase !== 'indexing'),
      onEmbedProgress: (p) => throttled(() => `embedding (${p.model}): ${p.done}/${p.total}`),
    });
    log(`indexed ${engine.root}: ${s.filesIndexed} file(s) indexed, ${s.filesUnchanged} unchanged, ${s.chunksCreated} chunk(s) in ${s.durationMs} ms`);
    // the first question of the session should not pay for loading the models and segments
    if (fresh && !signal.aborted) background.push(warmUp(engine, signal));
    if (fresh && !signal.aborted && engine.config.embedding.provider !== 'none') {
      // Embeddings fill in behind the lexical index (a no-op when no embedding provider is configured).
      background.push(
        engine
          .index({ signal, onEmbedProgress: (p) => throttled(() => `embedding (${p.model}): ${p.done}/${p.total}`) })
          .then((r) => r.embedding && log(`embedding done (${r.embedding.model})`))
          .catch((e) => {
            if (!signal.aborted) log(e instanceof IndexLockedError ? e.message : `dense phase failed: ${(e as Error).message}`);
          }),
      );
    }
  } catch (e) {
    if (signal.aborted) return;
    log(e instanceof IndexLockedError ? e.message : `indexing failed: ${(e as Error).message}`);
  }
}
