import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { ChunkStore } from '../../../server/src/engine/store/chunkStore';
import { copyFixture, removeDir } from '../../support/workspace';

describe('LanceDB store: conformances table and scalar indexes', function () {
  this.timeout(180_000);
  let root: string;
  before(async () => {
    root = copyFixture('polyglot');
    const engine = await Engine.open(root);
    await engine.index();
    await engine.close();
  });
  after(() => removeDir(root));

  it('indexes protocol_name, id and path, and answers conformance lookups', async () => {
    const { store } = await ChunkStore.open(join(root, '.quarry'));
    try {
      const ix = await store.scalarIndexes();
      assert.ok(ix.conformances.includes('protocol_name'), JSON.stringify(ix));
      assert.ok(ix.chunks.includes('id') && ix.chunks.includes('path'));
      const rows = await store.conformancesOf('ChunkStore');
      assert.ok(rows.length >= 1, 'something conforms to ChunkStore');
      assert.ok(rows.every((r) => r.protocolName === 'ChunkStore' && r.path.endsWith('.swift')));
      const codable = await store.conformancesOf('Codable');
      assert.ok(codable.some((r) => r.kind === 'extension'), 'extension User: Codable is recorded');
      const chunks = await store.getChunks(rows.map((r) => r.chunkId));
      assert.ok(chunks.every((c) => c.conformances.includes('ChunkStore')));
      assert.equal((await store.conformancesOf("No'Such")).length, 0, 'quotes are escaped');
    } finally {
      await store.close();
    }
  });
});
