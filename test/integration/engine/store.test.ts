import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { ChunkStore } from '../../../server/src/engine/store/chunkStore';
import { copyFixture, removeDir } from '../../support/workspace';
import { readFileSync } from 'node:fs';
import { chunkFile } from '../../../server/src/engine/chunking';
import { defaultConfig } from '../../../server/src/engine/config/schema';

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

  it('keeps each unit\'s context (parent signature, imports it uses) as the chunker made it', async () => {
    const { store } = await ChunkStore.open(join(root, '.quarry'));
    try {
      const stored = await store.getChunks(await store.allChunkIds());
      const withParent = stored.filter((c) => c.context?.parent);
      const withImports = stored.filter((c) => c.context?.imports?.length);
      assert.ok(withParent.length > 0 && withImports.length > 0, `${withParent.length} with a parent, ${withImports.length} with imports`);
      const path = withImports[0]!.path;
      const made = await chunkFile({ path, language: withImports[0]!.language, content: readFileSync(join(root, path), 'utf8') }, defaultConfig().chunking);
      const byId = new Map(stored.filter((c) => c.path === path).map((c) => [c.id, c]));
      for (const c of made) {
        assert.deepEqual(byId.get(c.id)?.context, c.context, `${path} ${c.symbol}`);
        assert.equal(byId.get(c.id)?.contentHash, c.contentHash);
      }
    } finally {
      await store.close();
    }
  });
});
