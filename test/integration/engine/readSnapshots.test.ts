import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Engine } from '../../../server/src/engine/engine';
import { ChunkStore } from '../../../server/src/engine/store/chunkStore';
import { TableSnapshot } from '../../../server/src/engine/store/tableSnapshot';
import type { FindCodeResponseSummary } from '../../../server/src/engine/api/results';
import { copyFixture, removeDir } from '../../support/workspace';

/** Read snapshots (store/tableSnapshot.ts): the long-running doors' in-memory copies of `chunks` and `chunk_git`. */
describe('read snapshots: in-memory chunk and git rows give the answers LanceDB gives', function () {
  this.timeout(240_000);
  let root: string;
  before(async () => {
    root = copyFixture('polyglot');
    // a generated table of constants (as Go's zerrors_*.go): one chunk with thousands of symbols and their ranges
    mkdirSync(join(root, 'gen'), { recursive: true });
    const consts = Array.from({ length: 1500 }, (_, i) => `\tGeneratedConstant${i} = ${i}`).join('\n');
    writeFileSync(join(root, 'gen', 'zconsts.go'), `package gen\n\nconst (\n${consts}\n)\n`);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: root, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'fixture');
    const engine = await Engine.open(root);
    await engine.index();
    await engine.close();
  });
  after(() => removeDir(root));

  const open = async () => (await ChunkStore.open(join(root, '.quarry'))).store;

  it('getChunks, chunksByHashes and gitRowsOf answer from the snapshot exactly as from LanceDB', async () => {
    const plain = await open();
    const snapped = await open();
    try {
      await snapped.keepReadSnapshots();
      const ids = await plain.allChunkIds();
      assert.ok(ids.length > 50, `${ids.length} chunks`);
      const some = ids.filter((_, i) => i % 3 === 0);
      // the order asked, repeated and unknown ids
      const asked = [...some].reverse().concat(['no-such-id', some[0]!]);
      const fromSnapshot = await snapped.getChunks(asked);
      assert.deepEqual(fromSnapshot, await plain.getChunks(asked));
      const every = await plain.getChunks(ids);
      assert.ok(every.some((c) => (c.symbolRanges?.length ?? 0) > 1000), 'the generated table\'s ranges (a spilled column) are among them');
      assert.deepEqual(await snapped.getChunks(ids), every);
      const hashes = [...new Set(fromSnapshot.map((c) => c.contentHash))].concat(['no-such-hash']);
      assert.deepEqual(await snapped.chunksByHashes(hashes), await plain.chunksByHashes(hashes));
      const git = await plain.gitRowsOf(asked);
      assert.ok(git.length > 10, `${git.length} git rows`);
      assert.deepEqual(await snapped.gitRowsOf(asked), git);
      // and the snapshots were what answered
      const slots = (snapped as unknown as { snapshots: Record<'chunks' | 'git', { fresh(): Promise<unknown> }> }).snapshots;
      assert.ok(await slots.chunks.fresh(), 'the chunk snapshot is of the live version');
      assert.ok(await slots.git.fresh(), 'the git snapshot is of the live version');
    } finally {
      await plain.close();
      await snapped.close();
    }
  });

  it('reads while the snapshot loads go to LanceDB and schedule no second load', async () => {
    const store = await open();
    try {
      const loading = store.keepReadSnapshots();
      const ids = await store.allChunkIds();
      assert.ok((await store.getChunks(ids)).length);
      await loading;
      const slots = (store as unknown as { snapshots: Record<'chunks' | 'git', { timer?: unknown; fresh(): Promise<unknown> }> }).snapshots;
      assert.equal(slots.chunks.timer, undefined, 'no reload scheduled');
      assert.ok(await slots.chunks.fresh());
    } finally {
      await store.close();
    }
  });

  it('a write makes the snapshot stale: reads go to LanceDB at once, and the snapshot reloads once writes stop', async () => {
    const snapped = await open();
    const engine = await Engine.open(root);
    try {
      await snapped.keepReadSnapshots();
      const file = 'services/pricing/discounts.py';
      const before = (await snapped.getChunks(await snapped.allChunkIds())).filter((c) => c.path === file);
      assert.ok(before.length, `chunks of ${file}`);
      // the live version is now known from the `_versions` folder's time (no LanceDB round trip) …
      const slot = (snapped as unknown as { snapshots: { chunks: { fresh(): Promise<unknown>; confirmed?: unknown } } }).snapshots.chunks;
      await new Promise((r) => setTimeout(r, 3100));
      assert.ok(await slot.fresh());
      assert.ok(await slot.fresh());
      assert.ok(slot.confirmed, 'an unchanged _versions folder stands for the live version');
      // … and another writer (an editor buffer) replaces the file's chunks: a new manifest there, seen at once
      await engine.setBuffer(join(root, file), readFileSync(join(root, file), 'utf8') + '\n\ndef snapshot_probe_fn():\n    return 42\n');
      const ids = await snapped.allChunkIds();
      const after = (await snapped.getChunks(ids)).filter((c) => c.path === file);
      assert.ok(after.some((c) => c.content.includes('snapshot_probe_fn')), 'the new chunk is read at once');
      const slots = (snapped as unknown as { snapshots: Record<'chunks', { fresh(): Promise<unknown> }> }).snapshots;
      assert.equal(await slots.chunks.fresh(), undefined, 'the snapshot is stale');
      await new Promise((r) => setTimeout(r, 3000));
      assert.ok(await slots.chunks.fresh(), 'reloaded after the quiet period');
      const plain = await open();
      try {
        assert.deepEqual(await snapped.getChunks(ids), await plain.getChunks(ids));
      } finally {
        await plain.close();
      }
    } finally {
      await engine.close();
      await snapped.close();
    }
  });

  it('a spilled column is written to a file at load and read back for the rows asked, with the same values', async () => {
    const db = await lancedb.connect(join(root, '.quarry', 'lancedb'), { readConsistencyInterval: 0 });
    const full = await TableSnapshot.load(db, { table: 'chunks', keys: ['id'] });
    const spillDir = join(root, '.quarry', 'snapshots-test');
    const lazy = await TableSnapshot.load(db, { table: 'chunks', keys: ['id'], spilled: ['content'], spillDir });
    try {
      assert.equal(full.rowCount, lazy.rowCount);
      const positions = Array.from({ length: full.rowCount }, (_, i) => full.rowCount - 1 - i).filter((i) => i % 2 === 0);
      const a = await full.rows(positions);
      const b = await lazy.rows(positions);
      assert.equal(b.length, a.length);
      for (let i = 0; i < a.length; i++) {
        assert.equal(b[i]!.id, a[i]!.id);
        assert.equal(b[i]!.content, a[i]!.content);
        assert.ok(typeof a[i]!.content === 'string' && (a[i]!.content as string).length > 0);
      }
      // the file has no name left (POSIX: unlinked once open), so a killed process leaves nothing behind
      if (process.platform !== 'win32') assert.deepEqual(readdirSync(spillDir), []);
      lazy.close();
      await assert.rejects(lazy.rows(positions.slice(0, 1)), /closed/);
    } finally {
      full.close();
      lazy.close();
      db.close();
    }
  });

  it('converted rows are kept (the same object on the next read), large and small alike', async () => {
    const db = await lancedb.connect(join(root, '.quarry', 'lancedb'), { readConsistencyInterval: 0 });
    const snap = await TableSnapshot.load(db, { table: 'chunks', keys: ['id', 'path'] });
    try {
      const convert = (r: Record<string, unknown>) => ({ id: String(r.id), symbols: Array.from(r.symbols as string[]), ranges: String(r.symbol_ranges) });
      const big = snap.positions('path', ['gen/zconsts.go']);
      const small = snap.positions('path', ['services/pricing/discounts.py']);
      assert.ok(big.length && small.length);
      const first = await snap.convertedRows([...big, ...small], convert);
      const again = await snap.convertedRows([...big, ...small], convert);
      assert.deepEqual(again, first);
      assert.deepEqual(first, (await snap.rows([...big, ...small])).map(convert), 'as converting the rows read');
      const large = first.findIndex((c) => c.symbols.length >= 1500);
      assert.ok(large >= 0, 'the constants table is one large chunk');
      assert.equal(again[large], first[large], 'kept');
      assert.equal(again[again.length - 1], first[first.length - 1], 'a small row is kept too (successive searches share candidates)');
      // every row of the table read once: the small rows' budget (4 MB of text) holds this fixture's table whole
      const all = snap.positions('path', [...new Set((await snap.rows([...Array(snap.rowCount).keys()])).map((r) => String(r.path)))]);
      const whole = await snap.convertedRows(all, convert);
      const twice = await snap.convertedRows(all, convert);
      assert.ok(whole.every((c, i) => c === twice[i]));
    } finally {
      snap.close();
      db.close();
    }
  });

  it('a long-running engine answers searches exactly as a one-shot engine', async () => {
    const oneShot = await Engine.open(root);
    const longRunning = await Engine.open(root, { longRunning: true });
    try {
      await longRunning.keepReadSnapshots();
      const strip = (r: FindCodeResponseSummary) => ({ ...r, execution_time_ms: 0 });
      for (const q of ['ChunkStore', 'parse the configuration file', 'what implements Observer', 'User', 'save a user to the database', 'GeneratedConstant7']) {
        assert.deepEqual(strip(await longRunning.search(q, { limit: 10 })), strip(await oneShot.search(q, { limit: 10 })), q);
      }
    } finally {
      await oneShot.close();
      await longRunning.close();
    }
  });
});
