/**
 * Warm-up for long-running doors (the language server, the MCP server): one description search and one identifier
 * search right after the index is ready load what a first search would otherwise pay for — the lexical segments,
 * the embedding model's table, the learned scorer, the symbol table, the store's read snapshots of a long-running
 * engine (store/tableSnapshot.ts) and, for the MCP server, the BPE tables that cut an answer to its token budget — so
 * that the user's first question is answered as fast as the next ones. The language server leaves the BPE tables out
 * (`tokenCounts: false`): its searches never count tokens (matches carry their stored counts), and the tables cost
 * about 330 ms of blocked event loop and 76 MB of resident memory; an edited buffer's chunking loads them when it
 * first needs them. Nothing is recorded (searches leave no trace in the index or the memory); failures are
 * ignored (the user's own search reports them).
 */
import type { FindCodeResponseSummary } from '../api/results';
import { countTokens } from '../tokenize/tokenCount';

export interface Searchable {
  search(query: string, opts: { limit?: number; explain?: boolean }): Promise<FindCodeResponseSummary>;
  keepReadSnapshots?(): Promise<void>;
}

export interface WarmUpOptions {
  /** Load the BPE token-count tables too (default true: MCP's token budget cuts answers with them). */
  tokenCounts?: boolean;
}

export async function warmUp(engine: Searchable, signal?: AbortSignal, options: WarmUpOptions = {}): Promise<void> {
  for (const query of ['where is the configuration loaded and validated', 'main']) {
    if (signal?.aborted) return;
    await engine.search(query, { limit: 1, explain: false }).catch(() => undefined);
  }
  if (!signal?.aborted && options.tokenCounts !== false) countTokens('warm');
  if (!signal?.aborted) await engine.keepReadSnapshots?.().catch(() => undefined);
}
