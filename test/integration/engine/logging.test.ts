import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { Engine } from '../../../server/src/engine/engine';
import { configureLogging } from '../../../server/src/engine/log';
import { tempDir, writeFiles, removeDir } from '../../support/workspace';

/** Seed 002 FR-040: every log entry has timestamp, level, component, operation, duration_ms, request_id, context. */
describe('structured logs', function () {
  this.timeout(60_000);
  const lines: Array<Record<string, unknown>> = [];
  let root: string;
  before(() => {
    configureLogging({
      level: 'debug',
      destination: new Writable({
        write(chunk, _enc, cb) {
          for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
          cb();
        },
      }) as never,
    });
    root = tempDir();
    writeFiles(root, { 'a.py': 'def alpha():\n    return 1\n' });
  });
  after(() => {
    configureLogging({ level: 'warn' });
    removeDir(root);
  });

  it('logs index runs and searches as JSON with the FR-040 fields', async () => {
    const engine = await Engine.open(root, { embedding: null, reranker: null });
    await engine.index();
    await engine.search('alpha');
    await assert.rejects(engine.search('"unclosed'));
    await engine.close();
    const run = lines.find((l) => l.operation === 'index_run')!;
    assert.ok(run, JSON.stringify(lines));
    assert.equal(run.component, 'indexer');
    assert.equal(run.level, 'INFO');
    assert.ok(Date.parse(String(run.timestamp)));
    assert.equal(typeof run.duration_ms, 'number');
    assert.match(String(run.request_id), /^[0-9a-f-]{36}$/);
    assert.equal((run.context as { root: string }).root, root);
    assert.equal((run.context as { full: boolean }).full, false);
    const search = lines.find((l) => l.operation === 'hybrid_search' && l.level === 'DEBUG')!;
    assert.equal(search.component, 'searcher');
    const rejected = lines.find((l) => l.operation === 'hybrid_search' && (l.error as { type?: string } | undefined)?.type === 'QueryError')!;
    assert.equal(rejected.level, 'DEBUG', 'a mistyped query is not logged as a service error');
  });
});
