import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { ChunkPool } from '../../../server/src/engine/indexer/chunkPool';
import { prepareFile, type FileJob } from '../../../server/src/engine/indexer/fileWork';
import { QuarryConfigSchema } from '../../../server/src/engine/config/schema';
import { languageForPath } from '../../../server/src/engine/languages';
import { REPO_ROOT } from '../../support/workspace';

const ROOT = join(REPO_ROOT, 'test', 'fixtures', 'polyglot');

function jobs(): FileJob[] {
  const config = QuarryConfigSchema.parse({});
  const out: FileJob[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, e.name);
      if (e.isDirectory()) walk(abs);
      else {
        const path = relative(ROOT, abs);
        const language = languageForPath(path)?.id;
        if (language && extname(path)) out.push({ path, absPath: abs, language, read: { maxFileSizeBytes: 1 << 20 }, chunking: config.chunking });
      }
    }
  };
  walk(ROOT);
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

describe('chunk pool (indexing in worker threads)', function () {
  this.timeout(120_000);

  it('gives the same work as in-process chunking, file by file', async () => {
    const all = jobs();
    assert.ok(all.length > 10, `${all.length} fixture files`);
    assert.ok(new Set(all.map((j) => j.language)).size > 5, 'several languages');
    const pool = ChunkPool.open(2);
    assert.ok(pool, 'the pool starts from the TypeScript sources');
    try {
      const pooled = await Promise.all(all.map((j) => pool.run(j)));
      for (const [i, j] of all.entries()) assert.deepEqual(pooled[i], await prepareFile(j), j.path);
      assert.ok(pooled.some((w) => w.kind === 'chunks' && w.chunks.some((c) => c.source === 'ast')), 'syntax-aware chunks');
    } finally {
      await pool.close();
    }
  });

  it('skips chunking a file whose content hash is the indexed one', async () => {
    const [job] = jobs();
    const first = await prepareFile(job);
    assert.equal(first.kind, 'chunks');
    const pool = ChunkPool.open(1)!;
    try {
      const again = await pool.run({ ...job, previousHash: first.kind === 'chunks' ? first.hash : '' });
      assert.equal(again.kind, 'unchanged');
    } finally {
      await pool.close();
    }
  });

  it('does the work in-process when its workers are gone', async () => {
    const all = jobs().slice(0, 5);
    const pool = ChunkPool.open(1)!;
    const slots = (pool as unknown as { slots: Array<{ worker: { terminate(): Promise<number> } }> }).slots;
    await slots[0].worker.terminate();
    try {
      const works = await Promise.all(all.map((j) => pool.run(j)));
      for (const [i, j] of all.entries()) assert.deepEqual(works[i], await prepareFile(j), j.path);
    } finally {
      await pool.close();
    }
  });
});
