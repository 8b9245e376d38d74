import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, copyFixture as tempCopy, runCli } from '../../support/workspace';

describe('log files (seed 002 FR-040): .quarry/logs/quarry.log', () => {
  it('quarry index keeps JSON log lines with the required fields in the project, besides stderr', () => {
    const root = tempCopy('polyglot');
    const r = runCli(['index', '-p', root, '-q'], { env: { QUARRY_LOG_LEVEL: 'warn' } });
    assert.equal(r.status, 0, r.stderr);
    const dir = join(root, '.quarry', 'logs');
    assert.deepEqual(readdirSync(dir), ['quarry.log']);
    const lines = readFileSync(join(dir, 'quarry.log'), 'utf8').trim().split('\n');
    assert.ok(lines.length >= 1);
    const run = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.operation === 'index_run');
    assert.ok(run, lines.join('\n'));
    for (const k of ['timestamp', 'level', 'component', 'operation', 'duration_ms', 'request_id', 'context']) assert.ok(k in run!, k);
    assert.equal(run!.level, 'INFO');
    assert.equal(run!.component, 'indexer');
    assert.ok(!Number.isNaN(Date.parse(String(run!.timestamp))));
    // stderr stays at its own level (warn): the INFO line is only in the file.
    assert.ok(!r.stderr.includes('"operation":"index_run"'));
  });

  it('on a terminal, stderr gets one readable line per record (the file keeps JSON)', function () {
    // `script` (util-linux) runs the CLI under a pseudo-terminal, as a person's shell would.
    const root = tempCopy('polyglot');
    const r = spawnSync('script', ['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} index -p ${JSON.stringify(root)} -q`, '/dev/null'], {
      encoding: 'utf8', env: { ...process.env, QUARRY_LOG_LEVEL: 'info' }, timeout: 120_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^\d\d:\d\d:\d\d INFO indexer index_run done \(\d+ ms\)\r?$/m);
    assert.ok(!r.stdout.includes('{"level"'));
    assert.ok(readFileSync(join(root, '.quarry', 'logs', 'quarry.log'), 'utf8').includes('"operation":"index_run"'));
  });

  it('never creates a missing project directory', () => {
    const missing = join(tempCopy('polyglot'), 'does-not-exist');
    const r = runCli(['index', '-p', missing], { env: { QUARRY_LOG_LEVEL: 'warn' } });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /does not exist/);
    assert.ok(!existsSync(missing));
  });
});
