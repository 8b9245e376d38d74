/**
 * `quarry mcp`: the MCP endpoint over stdio. Stdout carries nothing but protocol messages: console output and
 * LanceDB's native logger go to stderr. The handshake is never blocked by indexing: the server connects at once,
 * indexes in the background when needed (no index yet: a lexical run first, progress on stderr; an existing
 * index: an incremental refresh), and searches wait briefly for that first run (then answer with what is indexed,
 * with an "indexing in progress" warning). Exits when the client closes stdin.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { join } from 'node:path';
import { Engine } from '../engine/engine';
import { IndexLockedError, readLock } from '../engine/indexer/lock';
import { createQuarryMcpServer } from './server';

function log(message: string): void {
  process.stderr.write(`[quarry mcp] ${message}\n`);
}

export interface McpStdioOptions {
  /** Skip the background index run on start (tests, read-only use). */
  noIndex?: boolean;
}

export async function runMcpStdio(projectDir: string, options: McpStdioOptions = {}): Promise<void> {
  process.env.LANCEDB_LOG = process.env.LANCEDB_LOG || 'error';
  // Nothing but protocol on stdout: anything printed through console goes to stderr.
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;

  const engine = await Engine.open(projectDir);
  const abort = new AbortController();
  const quarryDir = join(engine.root, '.quarry');

  let ready: Promise<unknown> | undefined;
  const background: Array<Promise<unknown>> = [];
  if (!options.noIndex) {
    const holder = readLock(quarryDir);
    if (holder) {
      log(`another process (pid ${holder.pid}) is indexing ${engine.root}; serving the existing index`);
    } else {
      ready = initialIndex(engine, abort.signal, background);
    }
  }

  const server = createQuarryMcpServer(engine, { ready });
  const transport = new StdioServerTransport();

  let closing: Promise<void> | undefined;
  const shutdown = (why: string): Promise<void> => {
    closing ??= (async () => {
      log(`shutting down (${why})`);
      abort.abort();
      await ready?.catch(() => undefined);
      await Promise.allSettled(background);
      await server.close().catch(() => undefined);
      await engine.close().catch((e) => log(`close failed: ${(e as Error).message}`));
    })();
    return closing;
  };

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
