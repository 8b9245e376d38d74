import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { CHECKPOINT_FILE, resumeDecision, Checkpoint } from '../../../server/src/engine/indexer/checkpoint';
import { tempDir, writeFiles, removeDir } from '../../support/workspace';

const cp = (over: Partial<Checkpoint>): Checkpoint => ({
  session_id: 's', project_path: '/p', start_time: new Date().toISOString(), last_checkpoint: new Date().toISOString(),
  files_processed: ['a'], chunks_created: 3, errors: [], settings_hash: 'h', ...over,
});

describe('indexing checkpoints (seed 002 FR-034)', function () {
  this.timeout(60_000);

  it('decides: resume with the same settings within 24 h, otherwise re-index', () => {
    assert.equal(resumeDecision(undefined, 'h').action, 'none');
    assert.equal(resumeDecision(cp({}), 'h').action, 'resume');
    assert.match(resumeDecision(cp({}), 'other').reason!, /settings changed/);
    assert.equal(resumeDecision(cp({ last_checkpoint: new Date(Date.now() - 25 * 3600e3).toISOString() }), 'h').action, 'reindex');
  });

  it('an interrupted run leaves a checkpoint; the next run resumes and removes it', async () => {
    const root = tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 6; i++) files[`src/m${i}.py`] = `def function_number_${i}():\n    return ${i}\n`;
    writeFiles(root, files);
    const engine = await Engine.open(root, { embedding: null, reranker: null });
    try {
      const abort = new AbortController();
      const first = await engine.index({
        batchSize: 2,
        signal: abort.signal,
        onProgress: (p) => {
          if (p.filesProcessed >= 2) abort.abort();
        },
      });
      assert.ok(first.filesIndexed >= 2 && first.filesIndexed < 6, `indexed ${first.filesIndexed}`);
      const path = join(root, '.quarry', CHECKPOINT_FILE);
      assert.ok(existsSync(path), 'checkpoint written on interruption');
      const saved = JSON.parse(readFileSync(path, 'utf8')) as Checkpoint;
      assert.equal(saved.files_processed.length, first.filesIndexed);
      assert.match(saved.settings_hash, /^sha256:/);
      assert.equal((await engine.search('function_number_0')).matches[0].file.path, 'src/m0.py', 'committed work is searchable');
      const second = await engine.index();
      assert.match(second.resumed ?? '', /resuming an interrupted run/);
      assert.equal(second.filesIndexed, 6 - first.filesIndexed, 'only the rest is indexed');
      assert.ok(!existsSync(path), 'a complete run removes the checkpoint');
      // A stale checkpoint (over 24 h) means a fresh index.
      writeFileSync(path, JSON.stringify({ ...saved, last_checkpoint: new Date(Date.now() - 48 * 3600e3).toISOString() }));
      const third = await engine.index();
      assert.match(third.rebuiltBecause ?? '', /more than 24 hours/);
      assert.equal(third.filesIndexed, 6);
    } finally {
      await engine.close();
      removeDir(root);
    }
  });
});
