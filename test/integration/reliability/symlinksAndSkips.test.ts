/**
 * Issue 20: secrets reached through symbolic links stay out of the index (the secret patterns apply to a link's target
 * as well as its name), and every skipped file is named with its reason; odd file names do not break the table.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir, removeDir, writeFiles } from '../../support/workspace';
import { cli, searchJson, writeSmallProject } from '../../support/reliability';
import { discover, classifyPath } from '../../../server/src/engine/discovery';
import { QuarryConfigSchema } from '../../../server/src/engine/config/schema';

const SECRET = 'hunter2supersecretvalue';

describe('reliability: secrets through symlinks, skipped files named (issue 20)', function () {
  this.timeout(180_000);
  let root: string;
  let outside: string;
  before(() => {
    root = tempDir('quarry-links-');
    outside = tempDir('quarry-outside-');
    writeSmallProject(root, 2);
    writeFiles(root, {
      '.env': `API_KEY=${SECRET}\n`,
      id_rsa: `-----BEGIN OPENSSH PRIVATE KEY-----\n${SECRET}\n`,
      'config/credentials.json': `{"token": "${SECRET}"}\n`,
    });
    writeFileSync(join(outside, 'notes.ts'), `export const leaked = "${SECRET}";\n`);
    symlinkSync('../.env', join(root, 'src', 'settings.ts'));
    symlinkSync('../id_rsa', join(root, 'src', 'notes.txt'));
    symlinkSync('../config/credentials.json', join(root, 'src', 'creds.ts'));
    symlinkSync(join(outside, 'notes.ts'), join(root, 'src', 'outside.ts'));
    symlinkSync('config0.ts', join(root, 'src', 'alias.ts')); // an ordinary link inside: still indexed
  });
  after(() => {
    removeDir(root);
    removeDir(outside);
  });

  it('discover: a link whose target matches a secret pattern is skipped as secret, naming the target', async () => {
    const config = QuarryConfigSchema.parse({}).discovery;
    const found = await discover(root, config);
    const skipped = new Map(found.skipped.map((s) => [s.path, s]));
    for (const [link, target] of [['src/settings.ts', '.env'], ['src/notes.txt', 'id_rsa'], ['src/creds.ts', 'config/credentials.json']]) {
      assert.equal(skipped.get(link)?.reason, 'secret', link);
      assert.match(skipped.get(link)!.detail!, new RegExp(`symbolic link to ${target.replace('.', '\\.')}`));
    }
    assert.equal(skipped.get('src/outside.ts')?.reason, 'symlink-outside-workspace');
    assert.ok(found.files.some((f) => f.path === 'src/alias.ts'), 'an ordinary link inside the workspace is indexed');
    const one = await classifyPath(root, 'src/settings.ts', config);
    assert.equal('reason' in one && one.reason, 'secret');
  });

  it('index + search: the secret is not in the index, and the skipped links are listed in `index --json`', () => {
    const r = cli(['index', '-p', root, '--json', '-q']);
    assert.equal(r.status, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    const reasons = Object.fromEntries(summary.skipped.map((s: { path: string; reason: string }) => [s.path, s.reason]));
    assert.equal(reasons['src/settings.ts'], 'secret');
    assert.equal(reasons['src/notes.txt'], 'secret');
    assert.equal(reasons['src/outside.ts'], 'symlink-outside-workspace');
    const s = searchJson(root, SECRET);
    assert.equal(s.total, 0, `secret found in ${s.paths.join(', ')}`);
  });

  it('binary, invalid UTF-8, too large, FIFO and loop skips are named with their reasons; odd names stay on one table row', () => {
    const p = tempDir('quarry-skips-');
    try {
      writeSmallProject(p, 1);
      writeFileSync(join(p, 'src', 'blob.ts'), Buffer.from([0, 1, 2, 3, 0, 0, 255, 254, 0, 7, 8, 9, 0, 0, 0, 0]));
      writeFileSync(join(p, 'src', 'latin1.ts'), Buffer.from('export const s = "caf\xe9";\n', 'latin1'));
      writeFileSync(join(p, 'src', 'huge.js'), 'var a=1;'.repeat(200_000)); // 1.6 MB > the 1 MiB default
      spawnSync('mkfifo', [join(p, 'src', 'pipe.ts')]);
      mkdirSync(join(p, 'src', 'deep'));
      symlinkSync('..', join(p, 'src', 'deep', 'up'));
      writeFileSync(join(p, 'src', 'new\nline.ts'), 'export function newlineName() { return 1; }\n');
      writeFileSync(join(p, 'src', 'tab\tname.ts'), 'export function tabbedName() { return 2; }\n');
      const r = cli(['index', '-p', p, '--json', '-q']);
      assert.equal(r.status, 0, r.stderr);
      const summary = JSON.parse(r.stdout);
      const byPath = Object.fromEntries(summary.skipped.map((s: { path: string; reason: string; detail?: string }) => [s.path, s]));
      assert.equal(byPath['src/blob.ts']?.reason, 'binary');
      assert.equal(byPath['src/latin1.ts']?.reason, 'binary');
      assert.match(byPath['src/latin1.ts'].detail, /invalid UTF-8/);
      assert.equal(byPath['src/huge.js']?.reason, 'too-large');
      assert.equal(byPath['src/pipe.ts']?.reason, 'unreadable');
      assert.equal(byPath['src/deep/up']?.reason, 'symlink-loop');
      assert.ok(summary.warnings.some((w: string) => /files were not indexed: .*src\/blob\.ts \(binary/.test(w)), summary.warnings.join('\n'));
      // `status --json` names them too (path, reason, detail), as the last whole-workspace run found them
      const st = cli(['status', '-p', p, '--json']);
      assert.equal(st.status, 0, st.stderr);
      const status = JSON.parse(st.stdout);
      assert.deepEqual(status.skipped.files, summary.skipped);
      assert.deepEqual(status.skipped.byReason, summary.skippedByReason);
      assert.equal(status.skipped.notListed, 0);
      // the text status names them too (path and reason, the notable reasons first), on one line each
      const text = cli(['status', '-p', p]);
      assert.equal(text.status, 0, text.stderr);
      const listed = text.stdout.split('\n').slice(text.stdout.split('\n').findIndex((l) => /^Skipped files \(/.test(l)) + 1);
      for (const [path, reason] of [['src/pipe.ts', 'unreadable'], ['src/huge.js', 'too-large'], ['src/blob.ts', 'binary'], ['src/deep/up', 'symlink-loop']]) {
        assert.ok(listed.some((l) => l.startsWith(`  ${path}  ${reason}`)), `${path} (${reason}) in:\n${text.stdout}`);
      }
      for (const [q, shown] of [['newlineName', 'src/new\\nline.ts'], ['tabbedName', 'src/tab\\tname.ts']]) {
        const t = cli(['search', q, '-p', p, '--legacy']);
        assert.equal(t.status, 0, t.stderr);
        const row = t.stdout.split('\n').find((l) => l.includes(q));
        assert.ok(row, t.stdout);
        assert.ok(row!.startsWith(shown), `row: ${JSON.stringify(row)}`);
      }
    } finally {
      removeDir(p);
    }
  });
});
