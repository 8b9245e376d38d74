import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, copyFixture, removeDir, tempDir } from '../../support/workspace';
import { requireSystemTool } from '../../support/systemTool';

/** Neovim's built-in LSP client (Debian's neovim 0.7) against `quarry lsp --stdio`. CI installs neovim. */
describe('a second, independent LSP client: headless Neovim', function () {
  this.timeout(180_000);
  let root: string;
  let out: string;
  before(() => {
    requireSystemTool('nvim', 'neovim');
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
