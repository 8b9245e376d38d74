import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { classifyPath, createIgnoreMatcher, discover, type DiscoveryResult } from '../../../server/src/engine/discovery';
import { config, isolateGitEnv, rmrf, tmpDir, writeTree, type GitEnv } from './helpers';

function reasonOf(r: DiscoveryResult, p: string): string | undefined {
  return r.skipped.find((s) => s.path === p)?.reason;
}
function paths(r: DiscoveryResult): string[] {
  return r.files.map((f) => f.path);
}

describe('discovery: discover()', () => {
  let env: GitEnv;
  let root: string;
  before(() => {
    env = isolateGitEnv();
  });
  after(() => env.restore());
  beforeEach(() => {
    root = tmpDir();
  });
  afterEach(() => rmrf(root));

  it('accepts known extensions with language, size and mtime; output sorted; every skip has a reason', async () => {
    writeTree(root, { 'b.ts': 'let b = 1;\n', 'a/z.py': 'x = 1\n', 'a/y.go': 'package a\n', 'README.md': '# hi\n', Makefile: 'all:\n' });
    const r = await discover(root, config());
    assert.deepEqual(paths(r), ['Makefile', 'README.md', 'a/y.go', 'a/z.py', 'b.ts']);
    const b = r.files.find((f) => f.path === 'b.ts')!;
    assert.equal(b.language, 'typescript');
    assert.equal(b.size, 11);
    assert.equal(b.absPath, path.join(root, 'b.ts'));
    assert.ok(b.mtimeMs > 0);
    assert.equal(r.files.find((f) => f.path === 'Makefile')!.language, 'makefile');
    assert.equal(r.totalSeen, 5);
    for (const s of r.skipped) assert.ok(s.reason, JSON.stringify(s));
  });

  it('skips hidden directories, keeps allowed ones (.github) and hidden files with known extensions', async () => {
    writeTree(root, {
      '.hidden/a.ts': '',
      '.venv/lib/x.py': '',
      '.github/workflows/ci.yml': 'on: push\n',
      '.vscode/settings.json': '{}',
      '.eslintrc.js': 'module.exports = {};\n',
      'src/.cache/c.ts': '',
      'src/.tools/t.ts': '',
    });
    const r = await discover(root, config());
    assert.deepEqual(paths(r), ['.eslintrc.js', '.github/workflows/ci.yml', '.vscode/settings.json']);
    assert.equal(reasonOf(r, '.hidden'), 'hidden');
    assert.equal(reasonOf(r, '.venv'), 'hidden');
    assert.equal(reasonOf(r, 'src/.cache'), 'hidden');
    assert.equal(reasonOf(r, '.hidden/a.ts'), undefined, 'a skipped directory is one entry');

    const custom = await discover(root, config({ allowedHiddenDirs: ['.tools', 'src/.cache'] }));
    assert.deepEqual(paths(custom), ['.eslintrc.js', 'src/.cache/c.ts', 'src/.tools/t.ts']);
    assert.equal(reasonOf(custom, '.github'), 'hidden');
  });

  it('always excludes .git, .quarry, node_modules and __pycache__ (even without .gitignore, even if allowed)', async () => {
    writeTree(root, {
      '.git/hooks/h.sh': '',
      '.quarry/index/x.json': '{}',
      'node_modules/pkg/index.js': '',
      'sub/node_modules/p/i.js': '',
      'pkg/__pycache__/m.py': '',
      'src/main.ts': '',
    });
    const r = await discover(root, config({ allowedHiddenDirs: ['.git', '.quarry'], respectGitignore: false }));
    assert.deepEqual(paths(r), ['src/main.ts']);
    for (const d of ['.git', '.quarry', 'node_modules', 'sub/node_modules', 'pkg/__pycache__']) {
      assert.equal(reasonOf(r, d), 'excluded', d);
    }
    assert.equal(r.skipped.length, 5);
  });

  it('honours .gitignore without a git repository, and config.exclude (reason excluded)', async () => {
    writeTree(root, {
      '.gitignore': 'dist/\n*.gen.ts\n',
      'dist/a.ts': '',
      'x.gen.ts': '',
      'keep.ts': '',
      'vendor/v.ts': '',
      'src/big.fixture.ts': '',
      'src/ok.ts': '',
    });
    const r = await discover(root, config({ exclude: ['vendor/', '*.fixture.ts'] }));
    assert.deepEqual(paths(r), ['keep.ts', 'src/ok.ts']);
    assert.equal(reasonOf(r, 'dist'), 'gitignored');
    assert.equal(reasonOf(r, 'x.gen.ts'), 'gitignored');
    assert.equal(reasonOf(r, 'vendor'), 'excluded');
    assert.equal(reasonOf(r, 'src/big.fixture.ts'), 'excluded');

    const off = await discover(root, config({ respectGitignore: false }));
    assert.deepEqual(paths(off), ['dist/a.ts', 'keep.ts', 'src/big.fixture.ts', 'src/ok.ts', 'vendor/v.ts', 'x.gen.ts']);
  });

  it('skips secrets by default and lets them through with excludeSecrets=false', async () => {
    writeTree(root, {
      '.env': 'A=1',
      '.env.local': 'A=1',
      'config/.env.production': 'A=1',
      id_rsa: 'key',
      'id_rsa.pub': 'key',
      'certs/server.pem': 'pem',
      'credentials.json': '{}',
      'config/secrets.yml': 'a: 1',
      'service-account-prod.json': '{}',
      'app.ts': '',
    });
    const r = await discover(root, config());
    assert.deepEqual(paths(r), ['app.ts']);
    for (const p of ['.env', '.env.local', 'config/.env.production', 'id_rsa', 'id_rsa.pub', 'certs/server.pem', 'credentials.json', 'config/secrets.yml', 'service-account-prod.json']) {
      assert.equal(reasonOf(r, p), 'secret', p);
    }
    assert.deepEqual(r.unknownExtensions, {}, 'secrets are not counted as unknown extensions');

    const open = await discover(root, config({ excludeSecrets: false, extraExtensions: { '.pem': 'text', '.local': 'text' } }));
    assert.deepEqual(paths(open), ['.env.local', 'app.ts', 'certs/server.pem', 'config/secrets.yml', 'credentials.json', 'service-account-prod.json']);
    assert.equal(reasonOf(open, '.env'), 'unknown-extension');
    assert.equal(reasonOf(open, 'id_rsa'), 'unknown-extension');
    assert.equal(open.skipped.filter((s) => s.reason === 'secret').length, 0);
  });

  it('counts unknown extensions (lower-cased, "" for none) and accepts extraExtensions', async () => {
    writeTree(root, {
      'a.png': Buffer.from([0x89, 0x50]),
      'b.PNG': '',
      'c/d.png': '',
      LICENSE: 'MIT',
      '.gitignore': '',
      'page.tpl': '{{x}}',
      'script.foo': 'print(1)',
      'ok.ts': '',
    });
    const r = await discover(root, config({ extraExtensions: { '.tpl': 'text', '.foo': 'python' } }));
    assert.deepEqual(paths(r), ['ok.ts', 'page.tpl', 'script.foo']);
    assert.equal(r.files.find((f) => f.path === 'page.tpl')!.language, 'text');
    assert.equal(r.files.find((f) => f.path === 'script.foo')!.language, 'python');
    assert.deepEqual(r.unknownExtensions, { '.png': 3, '': 2 });
    assert.deepEqual(
      r.skipped.filter((s) => s.reason === 'unknown-extension').map((s) => [s.path, s.detail]),
      [['.gitignore', ''], ['LICENSE', ''], ['a.png', '.png'], ['b.PNG', '.png'], ['c/d.png', '.png']],
    );
    assert.equal(r.totalSeen, 8);
  });

  it('skips too-large files (from stat) and minified bundle names', async () => {
    writeTree(root, { 'big.ts': 'x'.repeat(2000), 'small.ts': 'x', 'app.min.js': '', 'vendor.bundle.js': '', 'style.min.css': '', 'app.js': '' });
    const r = await discover(root, config({ maxFileSizeBytes: 1000 }));
    assert.deepEqual(paths(r), ['app.js', 'small.ts']);
    assert.equal(reasonOf(r, 'big.ts'), 'too-large');
    assert.equal(reasonOf(r, 'app.min.js'), 'minified');
    assert.equal(reasonOf(r, 'vendor.bundle.js'), 'minified');
    assert.equal(reasonOf(r, 'style.min.css'), 'minified');
  });

  describe('symlinks', () => {
    let outside: string;
    beforeEach(() => {
      outside = tmpDir('quarry-outside-');
      writeTree(outside, { 'secret.ts': 'outside', 'dir/o.ts': 'outside' });
    });
    afterEach(() => rmrf(outside));

    it('detects a directory link to its parent as a loop and walks the real directory once', async () => {
      writeTree(root, { 'a/f.ts': '', 'a/b/g.ts': '' });
      fs.symlinkSync('..', path.join(root, 'a', 'up'));
      fs.symlinkSync('.', path.join(root, 'a', 'b', 'self'));
      const r = await discover(root, config());
      assert.deepEqual(paths(r), ['a/b/g.ts', 'a/f.ts']);
      assert.equal(reasonOf(r, 'a/up'), 'symlink-loop');
      assert.equal(reasonOf(r, 'a/b/self'), 'symlink-loop');
    });

    it('detects cyclic link chains (ELOOP)', async () => {
      writeTree(root, { 'ok.ts': '' });
      fs.symlinkSync('l2.ts', path.join(root, 'l1.ts'));
      fs.symlinkSync('l1.ts', path.join(root, 'l2.ts'));
      const r = await discover(root, config());
      assert.deepEqual(paths(r), ['ok.ts']);
      assert.equal(reasonOf(r, 'l1.ts'), 'symlink-loop');
      assert.equal(reasonOf(r, 'l2.ts'), 'symlink-loop');
    });

    it('never leaves the workspace: file and directory links outside are skipped', async () => {
      writeTree(root, { 'in.ts': '' });
      fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'out.ts'));
      fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'outdir'));
      fs.symlinkSync('../' + path.basename(outside), path.join(root, 'rel-out'));
      const r = await discover(root, config());
      assert.deepEqual(paths(r), ['in.ts']);
      assert.equal(reasonOf(r, 'out.ts'), 'symlink-outside-workspace');
      assert.equal(reasonOf(r, 'outdir'), 'symlink-outside-workspace');
      assert.equal(reasonOf(r, 'rel-out'), 'symlink-outside-workspace');
    });

    it('reports broken links as unreadable', async () => {
      fs.symlinkSync('missing.ts', path.join(root, 'broken.ts'));
      fs.symlinkSync('nowhere', path.join(root, 'brokendir'));
      const r = await discover(root, config());
      assert.deepEqual(paths(r), []);
      assert.equal(reasonOf(r, 'broken.ts'), 'unreadable');
      assert.equal(reasonOf(r, 'brokendir'), 'unreadable');
      assert.match(r.skipped.find((s) => s.path === 'broken.ts')!.detail!, /broken/);
    });

    it('follows links inside the workspace (file under the link path; directory target not otherwise walked)', async () => {
      writeTree(root, { 'real/a.ts': '', '.store/shared/s.ts': '' });
      fs.symlinkSync('real/a.ts', path.join(root, 'alias.ts'));
      fs.symlinkSync('.store/shared', path.join(root, 'shared'));
      fs.symlinkSync('real', path.join(root, 'dup'));
      fs.symlinkSync('.git', path.join(root, 'gitlink'));
      fs.mkdirSync(path.join(root, '.git'));
      const r = await discover(root, config());
      assert.deepEqual(paths(r), ['alias.ts', 'real/a.ts', 'shared/s.ts']);
      assert.equal(r.files.find((f) => f.path === 'alias.ts')!.absPath, path.join(root, 'alias.ts'));
      assert.equal(reasonOf(r, 'dup'), 'symlink-loop', 'the real directory is already walked');
      assert.equal(reasonOf(r, 'gitlink'), 'excluded');

      const off = await discover(root, config({ followSymlinks: false }));
      assert.deepEqual(paths(off), ['real/a.ts']);
      assert.equal(reasonOf(off, 'alias.ts'), 'excluded');
      assert.equal(reasonOf(off, 'shared'), 'excluded');
    });

    it('walks a workspace whose root path is itself a symlink', async () => {
      writeTree(root, { 'a.ts': '' });
      const link = path.join(outside, 'ws-link');
      fs.symlinkSync(root, link);
      const r = await discover(link, config());
      assert.deepEqual(paths(r), ['a.ts']);
      assert.equal(r.files[0]!.absPath, path.join(link, 'a.ts'));
    });
  });

  it('reports unreadable directories and never crashes', async () => {
    writeTree(root, { 'locked/a.ts': '', 'ok.ts': '' });
    fs.chmodSync(path.join(root, 'locked'), 0o000);
    try {
      let r: Pick<DiscoveryResult, 'skipped'> & { files: Array<{ path: string }> };
      if (process.getuid?.() === 0) {
        // Root reads everything: run discovery in a child that keeps uid 0 but drops the capabilities that bypass
        // file permissions (setpriv, util-linux), so the folder is as unreadable to it as to any user.
        const drop = '-dac_override,-dac_read_search';
        const out = execFileSync('setpriv', [`--bounding-set=${drop}`, `--inh-caps=${drop}`, process.execPath, '--import', 'tsx', path.join(__dirname, '..', '..', 'support', 'discoverJson.ts'), root], {
          encoding: 'utf8', cwd: path.join(__dirname, '..', '..', '..'),
        });
        const parsed = JSON.parse(out) as { files: string[]; skipped: DiscoveryResult['skipped'] };
        r = { files: parsed.files.map((p) => ({ path: p })), skipped: parsed.skipped };
      } else r = await discover(root, config());
      assert.deepEqual(r.files.map((f) => f.path), ['ok.ts']);
      assert.equal(r.skipped.find((x) => x.path === 'locked')?.reason, 'unreadable');
    } finally {
      fs.chmodSync(path.join(root, 'locked'), 0o755);
    }
  });

  it('never opens special files (a FIFO is unreadable)', async () => {
    writeTree(root, { 'ok.ts': '' });
    execFileSync('mkfifo', [path.join(root, 'pipe.ts')]); // coreutils
    const r = await discover(root, config());
    assert.deepEqual(paths(r), ['ok.ts']);
    assert.equal(reasonOf(r, 'pipe.ts'), 'unreadable');
  });

  it('honours an abort signal and reports progress', async () => {
    writeTree(root, { 'a.ts': '', 'b.ts': '', 'c/d.ts': '' });
    const seen: number[] = [];
    await discover(root, config(), { onFile: (n) => seen.push(n) });
    assert.deepEqual(seen, [1, 2, 3]);
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(discover(root, config(), { signal: ac.signal }), { name: 'AbortError' });
  });

  it('walks 12,000 files in well under a few seconds', async function () {
    this.timeout(30_000);
    const files: Record<string, string> = {};
    for (let d = 0; d < 60; d++) {
      for (let f = 0; f < 200; f++) files[`pkg${d}/sub${f % 5}/file${f}.${f % 3 === 0 ? 'py' : 'ts'}`] = 'x';
    }
    files['.gitignore'] = 'pkg1/\n*.tmp\n!keep.tmp\n';
    writeTree(root, files);
    const t0 = performance.now();
    const r = await discover(root, config());
    const ms = performance.now() - t0;
    assert.equal(r.files.length, 12_000 - 200);
    assert.ok(ms < 3000, `took ${ms.toFixed(0)} ms`);
  });

  describe('classifyPath', () => {
    it('agrees with discover for single files, ancestors included', async () => {
      writeTree(root, {
        '.gitignore': 'build/\n*.log.ts\n',
        'src/a.ts': 'x',
        'src/b.log.ts': '',
        'build/out.ts': '',
        '.hidden/h.ts': '',
        'node_modules/p/i.js': '',
        '.env': '',
        'img.png': '',
        'big.ts': 'x'.repeat(50),
      });
      const cfg = config({ maxFileSizeBytes: 10 });
      const f = await classifyPath(root, 'src/a.ts', cfg);
      assert.ok('absPath' in f);
      assert.equal(f.language, 'typescript');
      assert.equal(f.size, 1);
      const m = await createIgnoreMatcher(root, cfg);
      const expect: Record<string, string> = {
        'src/b.log.ts': 'gitignored',
        'build/out.ts': 'gitignored',
        '.hidden/h.ts': 'hidden',
        'node_modules/p/i.js': 'excluded',
        '.env': 'secret',
        'img.png': 'unknown-extension',
        'big.ts': 'too-large',
        'missing.ts': 'unreadable',
        '../escape.ts': 'excluded',
      };
      for (const [p, reason] of Object.entries(expect)) {
        const c = await classifyPath(root, p, cfg, m);
        assert.ok(!('absPath' in c), p);
        assert.equal(c.reason, reason, p);
      }
      const inDir = await classifyPath(root, 'build/out.ts', cfg, m);
      assert.match((inDir as { detail: string }).detail, /^in build\//);
      assert.equal(await m.isIgnored('build', true), true);
      assert.equal(await m.isIgnored('src/a.ts'), false);
      assert.equal(await m.isIgnored('src/new-file.ts'), false);
    });

    it('refuses symlinks that leave the workspace, and picks up .gitignore changes after invalidate()', async () => {
      const outside = tmpDir('quarry-outside-');
      try {
        writeTree(outside, { 'o.ts': '' });
        writeTree(root, { 'a.ts': '' });
        fs.symlinkSync(path.join(outside, 'o.ts'), path.join(root, 'o.ts'));
        fs.symlinkSync(outside, path.join(root, 'od'));
        const cfg = config();
        assert.equal((await classifyPath(root, 'o.ts', cfg) as { reason: string }).reason, 'symlink-outside-workspace');
        assert.equal((await classifyPath(root, 'od/o.ts', cfg) as { reason: string }).reason, 'symlink-outside-workspace');

        const m = await createIgnoreMatcher(root, cfg);
        assert.ok('absPath' in (await classifyPath(root, 'a.ts', cfg, m)));
        fs.writeFileSync(path.join(root, '.gitignore'), 'a.ts\n');
        assert.ok(m.isIgnoreSource('.gitignore'));
        m.invalidate();
        assert.equal((await classifyPath(root, 'a.ts', cfg, m) as { reason: string }).reason, 'gitignored');
      } finally {
        rmrf(outside);
      }
    });
  });
});
