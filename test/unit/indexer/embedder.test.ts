/**
 * The dense phase's windows (indexer/embedder.ts): chunks are read and vectors written once per window, not per
 * embedding batch; an abort or a provider failure mid-window still writes what was embedded.
 */
import assert from 'node:assert/strict';
import { backfillEmbeddings } from '../../../server/src/engine/indexer/embedder';
import type { ChunkStore } from '../../../server/src/engine/store/chunkStore';
import type { EmbeddingProvider } from '../../../server/src/engine/embedding/types';
import type { Chunk } from '../../../server/src/engine/types';

function fakes(total: number, failAtCall = -1, onCall?: (n: number) => void) {
  const hashes = Array.from({ length: total }, (_, i) => `h${String(i).padStart(5, '0')}`);
  const calls = { chunksByHashes: 0, add: 0, embed: 0, written: [] as string[] };
  const vectors = {
    knownHashes: async () => new Set<string>(),
    count: async () => 0,
    add: async (rows: ReadonlyArray<{ contentHash: string }>) => {
      calls.add++;
      calls.written.push(...rows.map((r) => r.contentHash));
      return rows.length;
    },
    maintain: async () => undefined,
  };
  const store = {
    vectors: async () => vectors,
    missingHashes: async () => hashes.map((h) => ({ contentHash: h, path: `${h}.py` })),
    fileRecords: async () => new Map(),
    chunksByHashes: async (hs: readonly string[]) => {
      calls.chunksByHashes++;
      return hs.map((h) => ({ contentHash: h, content: h }) as unknown as Chunk);
    },
  } as unknown as ChunkStore;
  const provider = {
    id: 'fake', dims: 2, maxInputTokens: 100, kind: 'local',
    embedDocuments: async (texts: string[]) => {
      onCall?.(calls.embed);
      if (calls.embed++ === failAtCall) throw new Error('provider down');
      return texts.map(() => new Float32Array([1, 0]));
    },
  } as unknown as EmbeddingProvider;
  return { store, provider, calls, hashes };
}

describe('dense phase windows', () => {
  it('one store read and one vector write per window of 512, every chunk embedded once', async () => {
    const { store, provider, calls, hashes } = fakes(1100);
    const progress: number[] = [];
    const s = await backfillEmbeddings(store, provider, (c) => c.content, { onProgress: (p) => progress.push(p.done) });
    assert.equal(s.embedded, 1100);
    assert.equal(s.stoppedBy, undefined);
    assert.equal(calls.chunksByHashes, 3);
    assert.equal(calls.add, 3);
    assert.equal(calls.embed, Math.ceil(512 / 32) * 2 + Math.ceil(76 / 32));
    assert.deepEqual(calls.written, hashes);
    assert.equal(progress.at(-1), 1100);
    assert.ok(progress.every((v, i) => i === 0 || v >= progress[i - 1]), 'progress never goes back');
  });

  it('a provider failure mid-window writes what was embedded and stops', async () => {
    const { store, provider, calls } = fakes(1000, 20);
    const s = await backfillEmbeddings(store, provider, (c) => c.content);
    // window 1: 16 batches of 32; window 2: 4 batches before the 21st call fails
    assert.equal(s.embedded, 512 + 4 * 32);
    assert.match(s.stoppedBy!, /fake: provider down/);
    assert.equal(calls.written.length, s.embedded);
  });

  it('an abort mid-window writes what was embedded and says interrupted', async () => {
    const controller = new AbortController();
    const { store, provider, calls } = fakes(1000, -1, (n) => n === 3 && controller.abort());
    const s = await backfillEmbeddings(store, provider, (c) => c.content, { signal: controller.signal });
    assert.equal(s.stoppedBy, 'interrupted');
    assert.equal(s.embedded, 4 * 32);
    assert.equal(calls.written.length, 4 * 32);
  });
});
