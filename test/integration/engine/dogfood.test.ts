import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { ChunkStore } from '../../../server/src/engine/store/chunkStore';
import type { Chunk } from '../../../server/src/engine/types';
import { TYPE_DECLARATION_KINDS } from '../../../server/src/engine/types';
import { REPO_ROOT, tempDir, removeDir } from '../../support/workspace';

/**
 * Dogfooding: index Quarry's own source and query every uniquely defined symbol by its bare name.
 * The queries are derived from the index itself (no hand-picked list), so this measures identifier →
 * definition in general rather than on chosen examples.
 */
describe('identifier → definition on Quarry\'s own code', function () {
  this.timeout(300_000);
  let root: string;
  let engine: Engine;
  before(async () => {
    root = tempDir('quarry-dogfood-');
    cpSync(join(REPO_ROOT, 'server'), join(root, 'server'), { recursive: true });
    engine = await Engine.open(root);
    await engine.index();
  });
  after(async () => {
    await engine?.close();
    removeDir(root);
  });

  it('puts the defining chunk first for every uniquely defined symbol', async () => {
    const { store } = await ChunkStore.open(join(root, '.quarry'));
    const chunks: Chunk[] = [];
    for await (const batch of store.allChunks()) chunks.push(...batch);
    await store.close();
    const definers = new Map<string, number>();
    for (const c of chunks) for (const s of new Set(c.symbols.map((x) => x.toLowerCase()))) definers.set(s, (definers.get(s) ?? 0) + 1);
    const targets = chunks.filter(
      (c) =>
        c.name.length >= 4 &&
        (TYPE_DECLARATION_KINDS.has(c.kind) || c.kind === 'function' || c.kind === 'method') &&
        definers.get(c.name.toLowerCase()) === 1,
    );
    assert.ok(targets.length >= 100, `only ${targets.length} targets`);
    const misses: string[] = [];
    for (const t of targets) {
      const top = (await engine.search(t.name, { limit: 3 })).matches[0];
      if (top?.content.chunk_id !== t.id) misses.push(`${t.name} (${t.path}) → ${top ? `${top.file.path} ${top.content.symbol}` : 'nothing'}`);
    }
    const rate = 1 - misses.length / targets.length;
    // Seed 003 asks for ≥ 90%; Quarry aims at 100%.
    assert.equal(misses.length, 0, `top-1 ${(rate * 100).toFixed(1)}% of ${targets.length}; misses:\n${misses.slice(0, 20).join('\n')}`);
  });
});
