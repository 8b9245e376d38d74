import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, copyFixture, removeDir, tempDir } from '../../support/workspace';

function hasNeovim(): boolean {
  try {
    execFileSync('nvim', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Neovim's built-in LSP client (Debian's neovim 0.7) against `quarry lsp --stdio`. CI installs neovim. */
describe('a second, independent LSP client: headless Neovim', function () {
  this.timeout(180_000);
  let root: string;
  let out: string;
  before(function () {
    if (!hasNeovim()) {
      if (process.env.CI) throw new Error('nvim is not installed: .ci/run installs Debian neovim for this test');
      this.skip();
    }
    root = copyFixture('polyglot');
    out = join(tempDir('quarry-nvim-'), 'result.json');
  });
  after(() => root && removeDir(root));

  it('gets codeSearch/find and workspace/symbol answers', () => {
    const r = spawnSync('nvim', ['--headless', '-u', 'NONE', '-i', 'NONE', '-S', join(__dirname, 'neovim', 'client.lua')], {
      env: { ...process.env, QUARRY_CLI: CLI, QUARRY_ROOT: root, QUARRY_OUT: out, LANCEDB_LOG: 'error' },
      timeout: 150_000,
      encoding: 'utf8',
    });
    const result = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(result.ok, true, `${JSON.stringify(result)}\n${r.stderr}`);
    assert.equal(result.find.symbol, 'RestockBatcher');
    assert.equal(result.symbol.name, 'OrderSummaryPanel');
  });
});
