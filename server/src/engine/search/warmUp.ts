/**
 * Warm-up for long-running doors (the language server, the MCP server): one description search and one identifier
 * search right after the index is ready load what a first search would otherwise pay for — the lexical segments,
 * the embedding model's table, the learned scorer, the symbol table, the BPE tables that count an answer's tokens
 * (MCP's token budget), the store's read snapshots of a long-running engine (store/tableSnapshot.ts) — so that the
 * user's first question is answered as fast as the next ones. Nothing is recorded (searches leave no trace in the index or the memory); failures are
 * ignored (the user's own search reports them).
 */
import type { FindCodeResponseSummary } from '../api/results';
import { countTokens } from '../tokenize/tokenCount';

export interface Searchable {
  search(query: string, opts: { limit?: number; explain?: boolean }): Promise<FindCodeResponseSummary>;
  keepReadSnapshots?(): Promise<void>;
}

export async function warmUp(engine: Searchable, signal?: AbortSignal): Promise<void> {
  for (const query of ['where is the configuration loaded and validated', 'main']) {
    if (signal?.aborted) return;
    await engine.search(query, { limit: 1, explain: false }).catch(() => undefined);
  }
  if (!signal?.aborted) countTokens('warm');
  if (!signal?.aborted) await engine.keepReadSnapshots?.().catch(() => undefined);
}
