import assert from 'node:assert/strict';
import { Engine } from '../../../server/src/engine/engine';
import { defaultConfig } from '../../../server/src/engine/config/schema';
import { tempDir, writeFiles, removeDir } from '../../support/workspace';

const FILES = {
  'src/lock.ts': [
    'export function isStaleLock(lock: LockFile, now: number): boolean {',
    '  return !pidAlive(lock.pid) || now - lock.startedAt > MAX_AGE_MS;',
    '}',
    '',
    'export function acquireLock(dir: string): LockFile {',
    '  const lock = readLock(dir);',
    '  if (lock && !isStaleLock(lock, Date.now())) throw new Error("index is locked");',
    '  return writeLock(dir, { pid: process.pid, startedAt: Date.now() });',
    '}',
  ].join('\n'),
  'src/table.ts': 'export class Table {\n  render(rows: Row[]): string {\n    return rows.map((r) => r.cells.join(" | ")).join("\\n");\n  }\n}\n',
  'src/retry.py': 'def retry_with_backoff(call, delays):\n    for d in delays:\n        try:\n            return call()\n        except IOError:\n            time.sleep(d)\n    return call()\n',
  'docs/locks.md': '# Locks\n\nA lock whose process is gone is stale and removed by the next run.\n',
};

describe('the default reranker (quarry-rerank) in the engine', function () {
  this.timeout(120_000);
  let root: string;
  before(() => {
    root = tempDir();
    writeFiles(root, FILES);
  });
  after(() => removeDir(root));

  /** Opens an engine on the fixture with `edit` applied to the default configuration, runs `fn`, closes it. */
  async function withEngine(edit: (c: ReturnType<typeof defaultConfig>) => void, fn: (engine: Engine) => Promise<void>): Promise<void> {
    const config = defaultConfig();
    edit(config);
    const engine = await Engine.open(root, { config });
    try {
      await engine.index();
      await fn(engine);
    } finally {
      await engine.close();
    }
  }

  it('reranks hybrid searches for descriptions, explains it, and leaves identifier queries in BM25 order', () =>
    withEngine(() => {}, async (engine) => {
      const res = await engine.search('check whether a lock is stale', { limit: 3 });
      assert.deepEqual(res.search_strategy, ['HYBRID_SEARCH', 'SEMANTIC_RERANK']);
      assert.equal(res.matches[0].file.path, 'src/lock.ts');
      // code results are scored; the Markdown section (knowledge: not what the model was trained on) keeps its fused place
      for (const m of res.matches) {
        const scored = m.explanation.some((l) => /^scorer quarry-rerank:quarry-rerank@/.test(l));
        assert.equal(scored, m.file.language !== 'markdown', `${m.file.path}\n${m.explanation.join('\n')}`);
      }
      const ident = await engine.search('acquireLock', { limit: 3 });
      assert.ok(!ident.search_strategy.includes('SEMANTIC_RERANK'));
      assert.equal(ident.matches[0].content.symbol, 'acquireLock');
      const health = await engine.health();
      assert.match(String(health.services.reranking.model), /^quarry-rerank:/);
      assert.equal(health.services.reranking.status, 'up');
    }));

  it('keeps the order of a one-channel (BM25) search: it was trained on hybrid lists', () =>
    withEngine((c) => (c.embedding.provider = 'none'), async (engine) => {
      const res = await engine.search('check whether a lock is stale', { limit: 3 });
      assert.deepEqual(res.search_strategy, ['SPARSE_ONLY']);
      assert.ok(res.matches.every((m) => !m.explanation.some((l) => l.startsWith('scorer '))));
    }));

  it('rerank.provider none turns it off', () =>
    withEngine((c) => (c.rerank.provider = 'none'), async (engine) => {
      const res = await engine.search('check whether a lock is stale', { limit: 3 });
      assert.deepEqual(res.search_strategy, ['HYBRID_SEARCH']);
      assert.equal((await engine.health()).services.reranking.status, 'none');
    }));
});
