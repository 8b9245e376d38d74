/**
 * The vector table's ANN index (store/vectorStore.ts `maintain`): none below ANN_MIN_ROWS, the HNSW kind above it
 * (an IVF_FLAT index left by an earlier version is replaced once), and a kNN through it still finds each vector.
 */
import assert from 'node:assert/strict';
import * as lancedb from '@lancedb/lancedb';
import { ANN_INDEX_TYPE, ANN_MIN_ROWS, VectorStore } from '../../../server/src/engine/store/vectorStore';
import { WriteQueue } from '../../../server/src/engine/store/writeQueue';
import { removeDir, tempDir } from '../../support/workspace';

const DIMS = 32;

/** Deterministic unit vectors (mulberry32), one per row. */
function vectors(n: number, seed = 7): Float32Array[] {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
  return Array.from({ length: n }, () => {
    const v = Float32Array.from({ length: DIMS }, next);
    const norm = Math.hypot(...v);
    return v.map((y) => y / norm);
  });
}

describe('vector store: the ANN index of large tables', function () {
  this.timeout(120_000);
  let dir: string;
  let db: lancedb.Connection;
  beforeEach(async () => {
    dir = tempDir('quarry-vector-index-');
    db = await lancedb.connect(dir);
  });
  afterEach(() => removeDir(dir));

  it('builds none below the threshold and the HNSW kind above it; the kNN still finds a stored vector first', async () => {
    const store = await VectorStore.open(db, new WriteQueue(), 'test-model', DIMS, dir);
    const vs = vectors(ANN_MIN_ROWS);
    await store.add(vs.slice(0, 1000).map((vector, i) => ({ contentHash: `h${i}`, vector })));
    await store.maintain();
    assert.equal(await store.vectorIndexType(), null);
    await store.add(vs.slice(1000).map((vector, i) => ({ contentHash: `h${i + 1000}`, vector })));
    await store.maintain();
    assert.equal(await store.vectorIndexType(), ANN_INDEX_TYPE);
    for (const i of [3, 4321, ANN_MIN_ROWS - 1]) {
      const hits = await store.nearest(vs[i]!, 5);
      assert.equal(hits[0]?.contentHash, `h${i}`);
      assert.ok(hits[0]!.similarity > 0.999, `similarity ${hits[0]!.similarity}`);
    }
    store.close();
  });

  it('replaces an IVF_FLAT index left by an earlier version', async () => {
    const store = await VectorStore.open(db, new WriteQueue(), 'test-model', DIMS, dir);
    const vs = vectors(ANN_MIN_ROWS, 11);
    await store.add(vs.map((vector, i) => ({ contentHash: `h${i}`, vector })));
    store.close();
    const table = await db.openTable((await db.tableNames())[0]!);
    await table.createIndex('vector', { config: lancedb.Index.ivfFlat({ distanceType: 'cosine' }) });
    table.close();
    const again = await VectorStore.open(db, new WriteQueue(), 'test-model', DIMS, dir);
    assert.equal(await again.vectorIndexType(), 'IvfFlat');
    await again.maintain();
    assert.equal(await again.vectorIndexType(), ANN_INDEX_TYPE);
    assert.equal((await again.nearest(vs[77]!, 3))[0]?.contentHash, 'h77');
    again.close();
  });
});
