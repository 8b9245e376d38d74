/**
 * Several processes opening a workspace that has no index yet, at the same moment (an editor starting its language
 * server while an agent starts `quarry mcp`): none may take another's half-made store for an outdated one and delete
 * it. Real processes, real LanceDB.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChunkStore, STORE_SCHEMA_VERSION } from '../../../server/src/engine/store/chunkStore';
import { REPO_ROOT, removeDir, tempDir } from '../../support/workspace';

const SCRIPT = `
  const { ChunkStore } = require(${JSON.stringify(join(REPO_ROOT, 'server/src/engine/store/chunkStore.ts'))});
  (async () => {
    const { store } = await ChunkStore.open(process.argv[1]);
    await store.putFiles([{ path: 'f' + process.argv[2] + '.ts', size: 1, mtimeMs: 1, hash: 'h', language: 'typescript', chunkCount: 0, indexedAt: 1 }]);
    await store.close();
  })().catch((e) => { console.error(e); process.exit(1); });
`;

describe('opening a new index from several processes at once', function () {
  this.timeout(120_000);
  it("keeps every process's writes: nobody resets a store another one is creating", async () => {
    for (let round = 0; round < 3; round++) {
      const dir = tempDir('quarry-concurrent-open-');
      try {
        const codes = await Promise.all(
          [0, 1, 2, 3].map(
            (n) =>
              new Promise<number>((resolve) => {
                const p = spawn(process.execPath, ['-r', 'tsx/cjs', '-e', SCRIPT, dir, String(n)], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, LANCEDB_LOG: 'error' } });
                p.on('exit', (code) => resolve(code ?? 1));
              }),
          ),
        );
        assert.deepEqual(codes, [0, 0, 0, 0]);
        assert.equal(JSON.parse(readFileSync(join(dir, 'store.json'), 'utf8')).schemaVersion, STORE_SCHEMA_VERSION);
        const { store } = await ChunkStore.open(dir);
        assert.deepEqual([...(await store.fileRecords()).keys()].sort(), ['f0.ts', 'f1.ts', 'f2.ts', 'f3.ts']);
        await store.close();
      } finally {
        removeDir(dir);
      }
    }
  });
});
