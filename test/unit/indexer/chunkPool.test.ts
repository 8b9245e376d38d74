import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { ChunkPool, LARGE_PARSE_BYTES } from '../../../server/src/engine/indexer/chunkPool';
import { prepareFile, type FileJob } from '../../../server/src/engine/indexer/fileWork';
import { QuarryConfigSchema } from '../../../server/src/engine/config/schema';
import { languageForPath } from '../../../server/src/engine/languages';
import { goFactsOf } from '../../../server/src/engine/chunking/languages/go/refresh';
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

  it('replaces a worker that parsed a large file once it has answered its jobs, and loses no work (issue 19)', async () => {
    const all = jobs();
    const plain = ChunkPool.open(1)!;
    try {
      await Promise.all(all.map((j) => plain.run(j, LARGE_PARSE_BYTES)));
      assert.equal(plain.renewed, 0, 'without `renew` (a one-shot run) the worker stays');
    } finally {
      await plain.close();
    }
    const pool = ChunkPool.open(1, { renew: true })!;
    try {
      // every 7th file is declared large: its worker takes no new job, answers what it holds, and a fresh one follows
      const works = await Promise.all(all.map((j, i) => pool.run(j, i % 7 === 3 ? LARGE_PARSE_BYTES : 100)));
      for (const [i, j] of all.entries()) assert.deepEqual(works[i], await prepareFile(j), j.path);
      const large = all.filter((_, i) => i % 7 === 3).length;
      assert.ok(pool.renewed >= 1 && pool.renewed <= large, `${pool.renewed} worker(s) replaced for ${large} large files`);
      const slots = (pool as unknown as { slots: unknown[] }).slots;
      assert.equal(slots.length, 1, 'one worker at a time');
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

describe('chunk pool: a derived-conformance pass offloaded to a worker', function () {
  this.timeout(120_000);

  it('Go facts computed by a worker equal those computed in-process; a language without the pass is refused', async () => {
    const root = join(REPO_ROOT, 'test', 'fixtures', 'go-implicit');
    const config = QuarryConfigSchema.parse({});
    const files = [];
    for (const dir of ['codec', 'storage', 'stream']) {
      for (const name of readdirSync(join(root, dir))) {
        const path = `${dir}/${name}`;
        const work = await prepareFile({ path, absPath: join(root, path), language: 'go', read: { maxFileSizeBytes: 1 << 20 }, chunking: config.chunking });
        assert.equal(work.kind, 'chunks');
        if (work.kind !== 'chunks') continue;
        files.push({ path, chunks: work.chunks.map((c) => ({ id: c.id, path: c.path, kind: c.kind, symbol: c.symbol, name: c.name, startByte: c.startByte, content: c.content })) });
      }
    }
    const here = await goFactsOf(files);
    assert.ok(here.some((f) => f.methods.length > 0) && here.some((f) => f.types.some((t) => t.interface)), 'methods and interfaces');
    const pool = ChunkPool.open(1)!;
    try {
      assert.deepEqual(await pool.derive('go', files), here);
      assert.equal(await pool.derive('python', files), undefined, 'no pass for Python: the caller computes (nothing)');
      // the worker still answers after a refused request
      assert.deepEqual(await pool.derive('go', files.slice(0, 1)), here.slice(0, 1));
    } finally {
      await pool.close();
    }
    assert.equal(await pool.derive('go', files), undefined, 'a closed pool leaves the work to the caller');
  });
});
