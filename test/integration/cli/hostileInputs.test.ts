import assert from 'node:assert/strict';
import { symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempDir, writeFiles, removeDir } from '../../support/workspace';

describe('quarry index on hostile inputs: each is reported, none crashes the run', function () {
  this.timeout(180_000);
  let root: string;
  let outside: string;
  before(() => {
    root = tempDir();
    outside = tempDir('quarry-outside-');
    writeFiles(root, {
      'src/good.py': 'def healthy_function():\n    return 42\n',
      'src/broken.ts': 'export function unclosed( {\n  const x = [1, 2,\n  class {{{\n',
      '.env': 'API_KEY=secret\n',
      'keys/server.pem': '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n',
      '.gitignore': 'ignored/\n',
      'ignored/skip.ts': 'export const hidden = 1;\n',
      '.hidden/inner.ts': 'export const inner = 1;\n',
      '.github/workflows/build.yml': 'name: build\non: push\n',
    });
    writeFiles(outside, { 'secret.ts': 'export const outsideTheWorkspace = true;\n' });
    // binary content with a known extension
    writeFileSync(join(root, 'src/blob.ts'), Buffer.from([0, 1, 2, 3, 0, 255, 254, 0, 10, 0]));
    // invalid UTF-8
    writeFileSync(join(root, 'src/latin1.py'), Buffer.from('def caf\xe9():\n    return "\xe9"\n', 'latin1'));
    // huge (over the 1 MiB default)
    writeFileSync(join(root, 'src/huge.ts'), 'export const x = 1;\n'.repeat(70_000));
    // minified bundle
    writeFileSync(join(root, 'src/app.js'), 'var a=' + '1+'.repeat(5000) + '1;\n');
    writeFileSync(join(root, 'src/vendor.min.js'), 'var b=1;\n');
    // symlink loop and a link leaving the workspace
    mkdirSync(join(root, 'loop'));
    symlinkSync('..', join(root, 'loop', 'parent'));
    symlinkSync(outside, join(root, 'escape'));
  });
  after(() => {
    removeDir(root);
    removeDir(outside);
  });

  it('indexes the good files and lists every skip reason', () => {
    const r = runCli(['index', '-p', root, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    for (const reason of ['binary', 'too-large', 'minified', 'secret', 'gitignored', 'hidden', 'symlink-loop', 'symlink-outside-workspace']) {
      assert.ok((s.skippedByReason[reason] ?? 0) >= 1, `no ${reason} in ${JSON.stringify(s.skippedByReason)}`);
    }
    assert.equal(s.errors.length, 0);
    assert.equal(s.filesByLanguage.python, 1, 'good.py indexed, latin1.py skipped');
    assert.equal(s.filesByLanguage.yaml, 1, '.github is a tooling folder and is walked');
    const found = JSON.parse(runCli(['search', 'healthy_function', '-p', root, '-o', 'json']).stdout);
    assert.equal(found.matches[0].file.path, 'src/good.py');
    const broken = JSON.parse(runCli(['search', 'unclosed', '-p', root, '-o', 'json']).stdout);
    assert.equal(broken.matches[0].file.path, 'src/broken.ts', 'malformed code is still indexed');
    for (const q of ['outsideTheWorkspace', 'hidden', 'API_KEY', 'inner']) {
      const res = JSON.parse(runCli(['search', q, '-p', root, '-o', 'json']).stdout);
      assert.ok(res.matches.every((m: { file: { path: string } }) => !/escape|ignored|\.env|\.hidden/.test(m.file.path)), q);
    }
  });
});
