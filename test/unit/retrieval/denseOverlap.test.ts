import assert from 'node:assert/strict';
import { retrieve, type RetrievalContext } from '../../../server/src/engine/retrieval/hybrid';
import { parseQuery } from '../../../server/src/engine/ranking/query';
import { defaultConfig } from '../../../server/src/engine/config/schema';
import type { Chunk } from '../../../server/src/engine/types';

/** A chunk with what retrieval reads. */
const chunk = (id: string, hash: string): Chunk => ({ id, path: `src/${id}.go`, contentHash: hash, content: id }) as unknown as Chunk;

/**
 * Retrieval starts a description's dense kNN before its lexical search (issue 21: LanceDB answers off the main thread
 * while the lexical search runs on it); what it returns and warns is what the sequential order gave.
 */
describe('retrieve: the dense kNN overlaps the lexical search', () => {
  const chunks = [chunk('a', 'ha'), chunk('b', 'hb'), chunk('c', 'hc')];
  function context(calls: string[], embed: (text: string) => Promise<Float32Array>): RetrievalContext {
    const config = defaultConfig();
    return {
      lexical: {
        search: () => {
          calls.push('lexical');
          return { hits: [{ id: 'a', path: 'src/a.go', score: 2, matches: [{ field: 'name', token: '=parse', contribution: 2 }] }], matched: 1 };
        },
      },
      store: {
        chunksByHashes: async (hashes: string[]) => chunks.filter((c) => hashes.includes(c.contentHash)),
        getChunks: async (ids: string[]) => chunks.filter((c) => ids.includes(c.id)),
      },
      dense: {
        provider: { id: 'fake', embedQuery: async (t: string) => (calls.push('embed'), embed(t)) },
        vectors: {
          nearest: async () => {
            calls.push('nearest');
            return [{ contentHash: 'hb', similarity: 0.9 }, { contentHash: 'hc', similarity: 0.5 }];
          },
        },
        coverage: 1,
      },
      bm25: config.bm25,
      retrieval: config.retrieval,
    } as unknown as RetrievalContext;
  }

  it('a description: embedding and kNN are asked before the lexical search, and both channels are fused', async () => {
    const calls: string[] = [];
    const r = await retrieve(context(calls, async () => new Float32Array([1, 0])), parseQuery('parse the configuration'), 10, () => true);
    // the kNN is asked before the synchronous lexical search, so that LanceDB searches beside it (it used to be asked
    // after: the embedding's promise resolved only once the lexical search had returned)
    assert.deepEqual(calls, ['embed', 'nearest', 'lexical']);
    assert.deepEqual(r.strategy, ['HYBRID_SEARCH']);
    assert.deepEqual(new Set(r.candidates.map((c) => c.id)), new Set(['a', 'b', 'c']));
    assert.deepEqual(r.warnings, []);
  });

  it('a failing embedder: the same warning and BM25 answer as before, and no unhandled rejection', async () => {
    const calls: string[] = [];
    let unhandled: unknown;
    const onUnhandled = (e: unknown) => (unhandled = e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const r = await retrieve(context(calls, async () => Promise.reject(new Error('down'))), parseQuery('parse the configuration'), 10, () => true);
      await new Promise((res) => setImmediate(res));
      assert.equal(unhandled, undefined);
      assert.deepEqual(r.strategy, ['SPARSE_ONLY']);
      assert.deepEqual(r.candidates.map((c) => c.id), ['a']);
      assert.equal(r.warnings.length, 1);
      assert.match(r.warnings[0]!, /Dense embedding service unavailable \(fake: down\)/);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('an identifier with its definition among the lexical hits never asks the dense channel', async () => {
    const calls: string[] = [];
    const r = await retrieve(context(calls, async () => new Float32Array([1, 0])), parseQuery('parse'), 10, () => true);
    assert.deepEqual(calls, ['lexical']);
    assert.deepEqual(r.strategy, ['SPARSE_ONLY']);
  });
});
