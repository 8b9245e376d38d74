import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, REPO_ROOT, removeDir, tempDir, writeFiles } from '../../support/workspace';

/**
 * dist/cli.js is a launcher (server/src/cli/launch.ts): `quarry lsp --stdio` loads the language server's bundle alone
 * (the full CLI bundle holds the engine too: two copies of it in an editor's language server, issue 19); every other
 * command loads the full command line, dist/cli-main.js.
 */
describe('dist/cli.js launcher', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = tempDir('quarry-launcher-');
  });
  after(() => removeDir(dir));

  /** The dist/ bundles a `node dist/cli.js ...args` process loaded (written by a preload when it exits). */
  function loadedBundles(args: string[], input = ''): { bundles: string[]; status: number | null; stdout: string } {
    const out = join(dir, `loaded-${args.join('-').replace(/\W+/g, '_')}.json`);
    const preload = join(dir, 'preload.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));\n`,
    );
    const r = spawnSync(process.execPath, ['-r', preload, CLI, ...args], { cwd: REPO_ROOT, input, encoding: 'utf8', timeout: 30_000, env: { ...process.env, LANCEDB_LOG: 'error' } });
    const distDir = join(REPO_ROOT, 'dist');
    const bundles = (JSON.parse(readFileSync(out, 'utf8')) as string[]).filter((p) => p.startsWith(distDir)).map((p) => p.slice(distDir.length + 1)).sort();
    return { bundles, status: r.status, stdout: r.stdout };
  }

  it('quarry lsp --stdio (as the VS Code client starts it, with its own extra --stdio) loads dist/lsp.js and not the full CLI', () => {
    for (const args of [['lsp', '--stdio'], ['lsp', '--stdio', '--stdio'], ['lsp']]) {
      // stdin closed at once: the server exits as an LSP server does when its client goes away
      const r = loadedBundles(args);
      assert.deepEqual(r.bundles, ['cli.js', 'lsp.js'], args.join(' '));
    }
  });

  it('every other command runs the full command line (dist/cli-main.js), without the language server', () => {
    const version = loadedBundles(['--version']);
    assert.equal(version.status, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+/);
    assert.deepEqual(version.bundles, ['cli-main.js', 'cli.js']);
    const help = loadedBundles(['lsp', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /language server/);
    assert.deepEqual(help.bundles, ['cli-main.js', 'cli.js']);
    const unknown = loadedBundles(['no-such-command']);
    assert.equal(unknown.status, 2, 'usage errors keep their exit code');
  });

  it("LanceDB's native library loads with its log level quiet (errors only) unless the user set one", () => {
    // LanceDB reads LANCEDB_LOG when its library loads, while a bundle's imports run: a default set by the bundle's own
    // statements came too late, and `quarry index` printed LanceDB's warnings (issue 21's re-index of the Go tree)
    const seen = join(dir, 'lancedb-log.json');
    const preload = join(dir, 'lancedb-log.cjs');
    writeFileSync(
      preload,
      `const M = require('module'); const load = M._load; const levels = [];\n` +
        `M._load = function (request, ...rest) { if (/^@lancedb\\/lancedb$/.test(request)) levels.push(process.env.LANCEDB_LOG ?? null); return load.call(this, request, ...rest); };\n` +
        `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify(levels)));\n`,
    );
    const project = join(dir, 'project');
    writeFiles(project, { 'a.py': 'def f():\n    return 1\n' });
    const run = (env: NodeJS.ProcessEnv) => {
      const { LANCEDB_LOG: _drop, ...rest } = process.env;
      const r = spawnSync(process.execPath, ['-r', preload, CLI, 'status', '--project', project], { encoding: 'utf8', timeout: 30_000, env: { ...rest, ...env } });
      return { status: r.status, levels: JSON.parse(readFileSync(seen, 'utf8')) as Array<string | null> };
    };
    const quiet = run({});
    assert.ok(quiet.levels.length > 0, 'the status command loads LanceDB');
    assert.deepEqual([...new Set(quiet.levels)], ['error']);
    const chosen = run({ LANCEDB_LOG: 'info' });
    assert.deepEqual([...new Set(chosen.levels)], ['info'], "the user's level is kept");
  });
});
