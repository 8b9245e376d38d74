/**
 * Seed 003's shell tests ST-1..ST-20 (Appendix D), run as the seed writes them: bash scripts (test/shell/) calling
 * the built `quarry` CLI on a fixture workspace that mirrors the seed's (test/fixtures/aurora: SOAROrchestrator,
 * authenticate_user, BM25Scorer, HybridRetriever, HTTPSConnection, getUserData, conversation logs) turned into a git
 * repository with dated commits, plus reasoning patterns recorded through `quarry pattern record`.
 * The same scripts run outside mocha: `QUARRY="node dist/cli.js" bash test/shell/run.sh`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { requireSystemTool } from '../../support/systemTool';
import { removeDir, tempDir } from '../../support/workspace';

const SHELL = resolve(__dirname, '../../shell');
const CLI = resolve(__dirname, '../../../dist/cli.js');

describe('seed 003 shell tests (ST-1..ST-20) against the quarry CLI', function () {
  this.timeout(180_000);
  let dir: string;
  const env = () => ({ ...process.env, QUARRY: `${process.execPath} ${CLI}`, WS: join(dir, 'aurora'), NO_COLOR: '1' });

  before(() => {
    requireSystemTool('git', 'git');
    dir = tempDir('quarry-shell-');
    const setup = spawnSync('bash', [join(SHELL, 'setup.sh'), join(dir, 'aurora')], { env: env(), encoding: 'utf8' });
    assert.equal(setup.status, 0, `test/shell/setup.sh failed:\n${setup.stdout}\n${setup.stderr}`);
  });
  after(() => removeDir(dir));

  for (const script of readdirSync(SHELL).filter((f) => /^test_\d+_.*\.sh$/.test(f)).sort()) {
    it(script.replace(/\.sh$/, ''), () => {
      const r = spawnSync('bash', [join(SHELL, script)], { env: env(), encoding: 'utf8' });
      assert.equal(r.status, 0, `${script} failed:\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /✅ PASS/);
    });
  }
});
