/**
 * The user-level configuration file through the built CLI (`dist/cli.js`): `quarry config --show` names every
 * layer and whether it was read, an invalid user file is reported with its path, and the settings hash (the
 * index rebuild decision) follows the effective configuration, whichever file a setting comes from.
 * Each run gets its own QUARRY_CONFIG_HOME / XDG_CONFIG_HOME, so the real user's files are never read.
 */
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { removeDir, runCli, tempDir, writeFiles } from '../../support/workspace';

describe('quarry CLI with a user-level config file', function () {
  this.timeout(180_000);
  let userHome: string;
  let project: string;
  const env = () => ({ QUARRY_CONFIG_HOME: userHome, XDG_CONFIG_HOME: '' });
  const userFile = () => join(userHome, 'config.yml');
  const workspaceFile = () => join(project, '.quarry', 'config.yml');
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  beforeEach(() => {
    userHome = tempDir('quarry-user-home-');
    project = tempDir('quarry-user-cfg-project-');
    mkdirSync(join(project, '.quarry'));
  });
  afterEach(() => {
    removeDir(userHome);
    removeDir(project);
  });

  it('config --show with only the user file: the user layer is read, the workspace file is not found', () => {
    writeFileSync(userFile(), 'bm25:\n  k1: 1.25\nembedding:\n  provider: none\n');
    const r = runCli(['config', '--show', '-p', project], { env: env() });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^# layers, lowest first \(later files win key by key\):$/m);
    assert.match(r.stdout, /^# {3}defaults$/m);
    assert.match(r.stdout, new RegExp(`^# {3}user: +${escape(userFile())} \\(read, from \\$QUARRY_CONFIG_HOME\\)$`, 'm'));
    assert.match(r.stdout, new RegExp(`^# {3}workspace: +${escape(workspaceFile())} \\(not found\\)$`, 'm'));
    const shown = parseYaml(r.stdout);
    assert.equal(shown.bm25.k1, 1.25);
    assert.equal(shown.bm25.b, 0.75);
    assert.equal(shown.embedding.provider, 'none');
  });

  it('config --show with both files: the workspace wins key by key; --json lists the layers', () => {
    writeFileSync(userFile(), 'bm25:\n  k1: 1.25\n  b: 0.6\nretrieval:\n  fusion: rrf\n');
    writeFileSync(workspaceFile(), 'bm25:\n  k1: 1.75\n');
    const text = runCli(['config', '--show', '-p', project], { env: env() });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`user: +${escape(userFile())} \\(read, from \\$QUARRY_CONFIG_HOME\\)`));
    assert.match(text.stdout, new RegExp(`workspace: +${escape(workspaceFile())} \\(read\\)`));
    const shown = parseYaml(text.stdout);
    assert.deepEqual([shown.bm25.k1, shown.bm25.b, shown.retrieval.fusion], [1.75, 0.6, 'rrf']);

    const json = runCli(['config', '--show', '--json', '-p', project], { env: env() });
    assert.equal(json.status, 0, json.stderr);
    const out = JSON.parse(json.stdout);
    assert.equal(out.source, workspaceFile());
    assert.deepEqual(out.layers, [
      { kind: 'user', file: userFile(), read: true, origin: 'QUARRY_CONFIG_HOME' },
      { kind: 'workspace', file: workspaceFile(), read: true },
    ]);
    assert.deepEqual([out.config.bm25.k1, out.config.bm25.b, out.config.retrieval.fusion], [1.75, 0.6, 'rrf']);
  });

  it('without QUARRY_CONFIG_HOME the user file is $XDG_CONFIG_HOME/quarry/config.yml', () => {
    mkdirSync(join(userHome, 'quarry'));
    writeFileSync(join(userHome, 'quarry', 'config.yml'), 'bm25:\n  k1: 1.1\n');
    const r = runCli(['config', '--show', '-p', project], { env: { QUARRY_CONFIG_HOME: '', XDG_CONFIG_HOME: userHome } });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`user: +${escape(join(userHome, 'quarry', 'config.yml'))} \\(read, from \\$XDG_CONFIG_HOME\\)`));
    assert.equal(parseYaml(r.stdout).bm25.k1, 1.1);
  });

  it('without any file: defaults only, both files shown as not found', () => {
    const r = runCli(['config', '--show', '-p', project], { env: env() });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /\(not found, from \$QUARRY_CONFIG_HOME\)/);
    assert.match(r.stdout, /workspace: .*\(not found\)/);
    assert.match(r.stdout, /^# \(no configuration file found: defaults only\)$/m);
  });

  it('config --show --config FILE: the file replaces the workspace layer, the user file stays beneath', () => {
    writeFileSync(userFile(), 'bm25:\n  b: 0.6\n');
    writeFileSync(workspaceFile(), 'bm25:\n  b: 0.1\n');
    const explicit = join(project, 'service.yml');
    writeFileSync(explicit, 'bm25:\n  k1: 2.5\n');
    const r = runCli(['config', '--show', '-p', project, '--config', explicit], { env: env() });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^# {3}--config: +${escape(explicit)} \\(read\\)$`, 'm'));
    assert.doesNotMatch(r.stdout, /workspace:/);
    const shown = parseYaml(r.stdout);
    assert.deepEqual([shown.bm25.k1, shown.bm25.b], [2.5, 0.6]);
  });

  it('an invalid user file fails with exit 1 and names that file, every key with its rule and value', () => {
    writeFileSync(userFile(), 'bm25:\n  k1: -1\n  bogus: 3\nretrieval:\n  fusion: magic\n');
    writeFileSync(workspaceFile(), 'bm25:\n  k1: 1.5\n');
    const r = runCli(['config', '--show', '-p', project], { env: env() });
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`^Error: Invalid configuration in ${escape(userFile())}:$`, 'm'));
    assert.match(r.stderr, /^ {2}- bm25\.k1: .*\(got -1\)$/m);
    assert.match(r.stderr, /^ {2}- bm25: unknown key\(s\) 'bogus'$/m);
    assert.match(r.stderr, /^ {2}- retrieval\.fusion: .*\(got "magic"\)$/m);
    // Commands that open the engine refuse the same way.
    const idx = runCli(['index', '-p', project, '--lexical-only'], { env: env() });
    assert.equal(idx.status, 1);
    assert.match(idx.stderr, new RegExp(`Invalid configuration in ${escape(userFile())}`));
  });

  it('the settings hash follows the effective configuration: moving a setting between files keeps the index, changing it rebuilds', () => {
    writeFiles(project, {
      'src/a.py': 'def alpha():\n    return 1\n',
      'src/b.ts': 'export function beta(): number {\n  return 2;\n}\n',
      'vendor/c.py': 'def gamma():\n    return 3\n',
    });
    const index = () => {
      const r = runCli(['index', '-p', project, '--json', '--lexical-only'], { env: env() });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout) as { filesIndexed: number; filesUnchanged: number; filesDiscovered: number; rebuiltBecause?: string };
    };
    writeFileSync(userFile(), 'embedding: { provider: none }\nrerank: { provider: none }\ndiscovery:\n  exclude: ["vendor/**"]\n');
    const first = index();
    assert.equal(first.filesDiscovered, 2, 'the user file\'s exclude applies');
    assert.equal(first.filesIndexed, 2);

    // The same effective settings, now from the workspace file: nothing to rebuild.
    writeFileSync(userFile(), 'embedding: { provider: none }\nrerank: { provider: none }\n');
    writeFileSync(workspaceFile(), 'discovery:\n  exclude: ["vendor/**"]\n');
    const moved = index();
    assert.equal(moved.rebuiltBecause, undefined);
    assert.deepEqual([moved.filesIndexed, moved.filesUnchanged], [0, 2]);

    // A chunking change in the user file alone changes the hash: the index is rebuilt.
    writeFileSync(userFile(), 'embedding: { provider: none }\nrerank: { provider: none }\nchunking:\n  minTokens: 50\n');
    const changed = index();
    assert.match(changed.rebuiltBecause ?? '', /settings changed/);
    assert.equal(changed.filesIndexed, 2);

    // Removing the user file (back to defaults for chunking) rebuilds again; then it is stable.
    renameSync(userFile(), userFile() + '.off');
    writeFileSync(workspaceFile(), 'discovery:\n  exclude: ["vendor/**"]\nembedding: { provider: none }\nrerank: { provider: none }\n');
    assert.match(index().rebuiltBecause ?? '', /settings changed/);
    assert.equal(index().rebuiltBecause, undefined);
  });
});
