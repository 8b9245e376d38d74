/**
 * The user-level configuration file under the workspace's `.quarry/config.yml`: where it is looked for, how the
 * layers merge, and that validation errors name the file they come from. Real files in temporary folders; the
 * environment variables that choose the user file are set per test and restored.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, mergeConfig, userConfigPath } from '../../../server/src/engine/config/load';
import { defaultConfig } from '../../../server/src/engine/config/schema';
import { removeDir, tempDir } from '../../support/workspace';

const ENV_KEYS = ['QUARRY_CONFIG_HOME', 'XDG_CONFIG_HOME', 'APPDATA'] as const;

describe('user-level configuration file', () => {
  let saved: Record<string, string | undefined>;
  let dirs: string[];
  let userHome: string;
  let project: string;

  const write = (file: string, text: string) => {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
  };
  const userFile = () => join(userHome, 'config.yml');
  const workspaceFile = () => join(project, '.quarry', 'config.yml');

  beforeEach(() => {
    saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
    for (const k of ENV_KEYS) delete process.env[k];
    userHome = tempDir('quarry-user-config-');
    project = tempDir('quarry-project-');
    dirs = [userHome, project];
    process.env.QUARRY_CONFIG_HOME = userHome;
  });
  afterEach(() => {
    for (const k of ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    for (const d of dirs) removeDir(d);
  });

  describe('location', () => {
    it('$QUARRY_CONFIG_HOME/config.yml first, then $XDG_CONFIG_HOME/quarry/config.yml, then ~/.config/quarry/config.yml', () => {
      assert.deepEqual(userConfigPath({ QUARRY_CONFIG_HOME: '/q', XDG_CONFIG_HOME: '/x' }, 'linux'), { file: join('/q', 'config.yml'), origin: 'QUARRY_CONFIG_HOME' });
      assert.deepEqual(userConfigPath({ XDG_CONFIG_HOME: '/x' }, 'linux'), { file: join('/x', 'quarry', 'config.yml'), origin: 'XDG_CONFIG_HOME' });
      assert.deepEqual(userConfigPath({}, 'linux'), { file: join(homedir(), '.config', 'quarry', 'config.yml'), origin: 'home' });
      // Empty values count as unset; a relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
      assert.equal(userConfigPath({ QUARRY_CONFIG_HOME: '', XDG_CONFIG_HOME: ' ' }, 'linux').origin, 'home');
      assert.equal(userConfigPath({ XDG_CONFIG_HOME: 'relative/dir' }, 'linux').origin, 'home');
    });

    it('on Windows, %APPDATA%\\quarry\\config.yml (XDG_CONFIG_HOME and QUARRY_CONFIG_HOME still win)', () => {
      assert.deepEqual(userConfigPath({ APPDATA: 'C:\\Users\\me\\AppData\\Roaming' }, 'win32'), {
        file: 'C:\\Users\\me\\AppData\\Roaming\\quarry\\config.yml',
        origin: 'APPDATA',
      });
      assert.equal(userConfigPath({ APPDATA: 'C:\\A', XDG_CONFIG_HOME: '/x' }, 'win32').origin, 'XDG_CONFIG_HOME');
      assert.equal(userConfigPath({ APPDATA: 'C:\\A', QUARRY_CONFIG_HOME: '/q' }, 'win32').origin, 'QUARRY_CONFIG_HOME');
    });

    it('loadConfig reads the user file from $XDG_CONFIG_HOME when QUARRY_CONFIG_HOME is not set', () => {
      delete process.env.QUARRY_CONFIG_HOME;
      process.env.XDG_CONFIG_HOME = userHome;
      write(join(userHome, 'quarry', 'config.yml'), 'bm25:\n  k1: 1.1\n');
      const { config, layers } = loadConfig(project);
      assert.equal(config.bm25.k1, 1.1);
      assert.deepEqual(layers[0], { kind: 'user', file: join(userHome, 'quarry', 'config.yml'), read: true, origin: 'XDG_CONFIG_HOME' });
    });
  });

  it('no files: defaults, and both files are reported as looked for', () => {
    const { config, source, layers } = loadConfig(project);
    assert.deepEqual(config, defaultConfig());
    assert.equal(source, undefined);
    assert.deepEqual(layers, [
      { kind: 'user', file: userFile(), read: false, origin: 'QUARRY_CONFIG_HOME' },
      { kind: 'workspace', file: workspaceFile(), read: false },
    ]);
  });

  it('the user file alone applies over the defaults', () => {
    write(userFile(), 'bm25:\n  k1: 1.2\ndiscovery:\n  exclude: ["vendor/**"]\nembedding:\n  provider: none\n');
    const { config, source, layers } = loadConfig(project);
    assert.equal(config.bm25.k1, 1.2);
    assert.equal(config.bm25.b, 0.75, 'sibling keys keep their defaults');
    assert.deepEqual(config.discovery.exclude, ['vendor/**']);
    assert.equal(config.embedding.provider, 'none');
    assert.equal(source, userFile());
    assert.deepEqual(layers.map((l) => [l.kind, l.read]), [['user', true], ['workspace', false]]);
  });

  it('user + workspace: the workspace wins key by key, nested objects merge, arrays are replaced', () => {
    write(
      userFile(),
      [
        'bm25:',
        '  k1: 1.2',
        '  b: 0.6',
        'discovery:',
        '  exclude: ["vendor/**", "third_party/**"]',
        '  extraExtensions: { ".tpl": text }',
        'embedding:',
        '  provider: none',
        '  onnx: { modelPath: /models/user-model, batchSize: 4 }',
        '',
      ].join('\n'),
    );
    write(
      workspaceFile(),
      ['bm25:', '  k1: 1.9', 'discovery:', '  exclude: ["generated/**"]', '  extraExtensions: { ".jinja": text }', 'embedding:', '  onnx: { batchSize: 8 }', ''].join('\n'),
    );
    const { config, source, layers } = loadConfig(project);
    assert.equal(config.bm25.k1, 1.9, 'workspace value wins');
    assert.equal(config.bm25.b, 0.6, 'user value kept where the workspace says nothing');
    assert.deepEqual(config.discovery.exclude, ['generated/**'], 'arrays are replaced, not concatenated');
    assert.deepEqual(config.discovery.extraExtensions, { '.tpl': 'text', '.jinja': 'text' }, 'maps merge key by key');
    assert.equal(config.embedding.provider, 'none');
    assert.equal(config.embedding.onnx.modelPath, '/models/user-model');
    assert.equal(config.embedding.onnx.batchSize, 8);
    assert.equal(source, workspaceFile());
    assert.deepEqual(layers.map((l) => [l.kind, l.file, l.read]), [['user', userFile(), true], ['workspace', workspaceFile(), true]]);
  });

  it('a setting gives the same effective configuration (so the same settings hash) from either file', () => {
    write(userFile(), 'chunking:\n  maxTokens: 3000\ndiscovery:\n  followSymlinks: false\n');
    const fromUser = loadConfig(project).config;
    removeDir(userHome);
    write(workspaceFile(), 'discovery:\n  followSymlinks: false\nchunking:\n  maxTokens: 3000\n');
    const fromWorkspace = loadConfig(project).config;
    // The engine hashes JSON.stringify of discovery + chunking: key order must not depend on the layer either.
    assert.equal(JSON.stringify(fromUser), JSON.stringify(fromWorkspace));
    assert.notEqual(JSON.stringify(fromUser.chunking), JSON.stringify(defaultConfig().chunking));
  });

  it('an invalid user file is reported with that file named, every key with its rule and the value seen', () => {
    write(userFile(), 'bm25:\n  k1: -2\n  bogus: 1\nchunking:\n  maxTokens: "big"\n');
    write(workspaceFile(), 'bm25:\n  k1: 1.3\n');
    assert.throws(
      () => loadConfig(project),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.equal(e.file, userFile());
        assert.match(e.message, new RegExp(`^Invalid configuration in ${userFile().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:`));
        assert.ok(e.problems.some((p) => /^bm25\.k1: .*got -2\)$/.test(p)), e.message);
        assert.ok(e.problems.some((p) => /^bm25: unknown key\(s\) 'bogus'$/.test(p)), e.message);
        assert.ok(e.problems.some((p) => /^chunking\.maxTokens: .*got "big"\)$/.test(p)), e.message);
        assert.equal(e.problems.length, 3);
        assert.doesNotMatch(e.message, /\.quarry/, 'the workspace file is not blamed');
        return true;
      },
    );
  });

  it('an invalid workspace file is blamed on the workspace file, not the valid user file', () => {
    write(userFile(), 'bm25:\n  k1: 1.2\n');
    write(workspaceFile(), 'retrieval:\n  fusion: magic\n');
    assert.throws(
      () => loadConfig(project),
      (e: unknown) => e instanceof ConfigError && e.file === workspaceFile() && /retrieval\.fusion: .*got "magic"/.test(e.message),
    );
  });

  it('YAML syntax errors and unreadable files name the user file', () => {
    write(userFile(), 'bm25: [unclosed\n');
    assert.throws(() => loadConfig(project), (e: unknown) => e instanceof ConfigError && e.file === userFile() && /YAML syntax error/.test(e.message));
    removeDir(userFile());
    mkdirSync(userFile()); // a directory where the file should be
    assert.throws(() => loadConfig(project), (e: unknown) => e instanceof ConfigError && e.file === userFile() && /cannot read the file \(EISDIR\)/.test(e.message));
  });

  it('an empty user file is fine (defaults)', () => {
    write(userFile(), '# nothing yet\n');
    assert.deepEqual(loadConfig(project).config, defaultConfig());
  });

  it('--config FILE replaces the workspace file; the user file still applies beneath it', () => {
    write(userFile(), 'bm25:\n  k1: 1.2\n  b: 0.6\n');
    write(workspaceFile(), 'bm25:\n  b: 0.1\n');
    const explicit = join(project, 'ci.yml');
    write(explicit, 'bm25:\n  k1: 2.5\n');
    const { config, source, layers } = loadConfig(project, explicit);
    assert.equal(config.bm25.k1, 2.5);
    assert.equal(config.bm25.b, 0.6, 'from the user file; the workspace file is not read');
    assert.equal(source, explicit);
    assert.deepEqual(layers.map((l) => [l.kind, l.read]), [['user', true], ['explicit', true]]);
  });

  it('QUARRY_CONFIG_HOME pointing at the project\'s .quarry folder reads that file once, as the workspace file', () => {
    process.env.QUARRY_CONFIG_HOME = join(project, '.quarry');
    write(workspaceFile(), 'bm25:\n  k1: 1.4\n');
    const { config, layers } = loadConfig(project);
    assert.equal(config.bm25.k1, 1.4);
    assert.deepEqual(layers, [{ kind: 'workspace', file: workspaceFile(), read: true }]);
  });

  it('editor settings still layer over both files (and win)', () => {
    write(userFile(), 'bm25:\n  k1: 1.2\n  b: 0.6\n');
    write(workspaceFile(), 'bm25:\n  k1: 1.3\n');
    const merged = mergeConfig(loadConfig(project).config, { bm25: { k1: 0.9 } }, 'editor settings (quarry.*)');
    assert.equal(merged.bm25.k1, 0.9);
    assert.equal(merged.bm25.b, 0.6);
  });
});
