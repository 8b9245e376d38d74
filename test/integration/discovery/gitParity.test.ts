/**
 * "Exactly as git does": discover()'s accepted files must equal `git ls-files --others
 * --exclude-standard` (restricted to files Quarry indexes) on real temporary repositories, a
 * handcrafted tricky one and randomly generated ones (seeded), with every ignore source git has.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { classifyPath, clearGlobalExcludesCache, createIgnoreMatcher, discover } from '../../../server/src/engine/discovery';
import { languageForPath } from '../../../server/src/engine/languages';
import { config, git, gitUntracked, isolateGitEnv, prng, rmrf, tmpDir, writeTree, type GitEnv } from '../../unit/discovery/helpers';
import { requireSystemTool } from '../../support/systemTool';

const cfg = config({ excludeSecrets: false });

function indexable(p: string): boolean {
  return languageForPath(p, cfg.extraExtensions) !== undefined;
}

async function quarryFiles(root: string): Promise<string[]> {
  const r = await discover(root, cfg);
  return r.files.map((f) => f.path).sort();
}

function allFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.name === '.git') continue;
    if (d.isDirectory()) out.push(...allFiles(root, p));
    else out.push(p);
  }
  return out;
}

function diff(a: string[], b: string[]): { onlyA: string[]; onlyB: string[] } {
  const sa = new Set(a);
  const sb = new Set(b);
  return { onlyA: a.filter((x) => !sb.has(x)), onlyB: b.filter((x) => !sa.has(x)) };
}

async function assertParity(root: string, label: string): Promise<string[]> {
  const expected = gitUntracked(root).filter(indexable);
  const actual = await quarryFiles(root);
  const d = diff(expected, actual);
  assert.deepEqual(d, { onlyA: [], onlyB: [] }, `${label} (${root}): onlyA = only git keeps, onlyB = only Quarry keeps`);
  // classifyPath must agree with discover for every file on disk (ignored ones included).
  const matcher = await createIgnoreMatcher(root, cfg);
  const keep = new Set(actual);
  for (const p of allFiles(root)) {
    const c = await classifyPath(root, p, cfg, matcher);
    assert.equal('absPath' in c, keep.has(p), `${label}: classifyPath(${p}) = ${JSON.stringify(c)}`);
  }
  return actual;
}

describe('discovery: git parity', function () {
  let env: GitEnv;
  const dirs: string[] = [];
  before(() => {
    requireSystemTool('git', 'git');
    env = isolateGitEnv();
  });
  after(() => {
    env?.restore();
    if (!process.env.QUARRY_KEEP_TMP) for (const d of dirs) rmrf(d);
  });

  function repo(): string {
    const d = tmpDir('quarry-git-');
    dirs.push(d);
    git(d, 'init', '-q');
    return d;
  }

  it('matches git on a handcrafted tricky repository', async () => {
    const root = repo();
    const globalIgnore = path.join(env.home, 'global-ignore');
    fs.writeFileSync(globalIgnore, '*.global.ts\n');
    fs.appendFileSync(process.env.GIT_CONFIG_GLOBAL!, `[core]\n\texcludesFile = ${globalIgnore}\n`);
    writeTree(root, {
      '.gitignore': [
        '# a comment',
        '/build',
        'Makefile/',
        '**/gen/**',
        '!gen/keep.ts',
        'dist',
        '!dist/keep.ts',
        '*.tmp.ts',
        '!important.tmp.ts',
        'docs/**/draft*.md',
        'foo/*',
        '!foo/bar/',
        'foo/bar/*',
        '!foo/bar/baz.ts',
        '\\#hash.ts',
        'cache/**',
        '!cache/keep.ts',
        'Upper.ts',
        '',
      ].join('\n'),
      'a.ts': '',
      'upper.ts': '',
      'sub/Upper.ts': '',
      'build/out.ts': '',
      'sub/build/out.ts': '',
      'x/Makefile': '',
      'y/Makefile/a.ts': '',
      'gen/a.ts': '',
      'gen/keep.ts': '',
      'lib/gen/x.ts': '',
      'lib/gen/deeper/y.ts': '',
      'dist/a.ts': '',
      'dist/keep.ts': '',
      'lib/dist/z.ts': '',
      'x.tmp.ts': '',
      'important.tmp.ts': '',
      'docs/draft1.md': '',
      'docs/a/b/draft2.md': '',
      'docs/readme.md': '',
      'foo/a.ts': '',
      'foo/bar/baz.ts': '',
      'foo/bar/qux.ts': '',
      'foo/other/c.ts': '',
      '#hash.ts': '',
      'cache/a.ts': '',
      'cache/keep.ts': '',
      'cache/sub/keep.ts': '',
      'src/.gitignore': '!*.tmp.ts\n/local.ts\nnested/\n',
      'src/y.tmp.ts': '',
      'src/local.ts': '',
      'src/sub/local.ts': '',
      'src/nested/n.ts': '',
      'src/deep/.gitignore': '!nested/\n*.py\n',
      'src/deep/nested/n.ts': '',
      'src/deep/x.py': '',
      'x.py': '',
      'tests/.gitignore': '*.ts\n!*.spec.ts\n',
      'tests/a.ts': '',
      'tests/a.spec.ts': '',
      'tests/inner/b.spec.ts': '',
      'tests/inner/b.ts': '',
      'excluded-by-info.ts': '',
      'secret-dir/a.ts': '',
      'm.global.ts': '',
      'deep/m.global.ts': '',
    });
    fs.appendFileSync(path.join(root, '.git', 'info', 'exclude'), 'excluded-by-info.ts\nsecret-dir/\n');

    const kept = await assertParity(root, 'handcrafted');
    // Pin the expectation too, so the oracle itself is checked.
    assert.deepEqual(kept, [
      'a.ts', 'cache/keep.ts', 'docs/readme.md', 'foo/bar/baz.ts', 'gen/keep.ts', 'important.tmp.ts',
      'src/deep/nested/n.ts', 'src/sub/local.ts', 'src/y.tmp.ts', 'sub/build/out.ts', 'tests/a.spec.ts',
      'tests/inner/b.spec.ts', 'upper.ts', 'x.py', 'x/Makefile',
    ].sort());
    const r = await discover(root, cfg);
    const reason = (p: string) => r.skipped.find((s) => s.path === p);
    assert.equal(reason('build')?.reason, 'gitignored');
    assert.match(reason('build')!.detail!, /^\.gitignore: \/build$/);
    assert.equal(reason('dist')?.reason, 'gitignored', 'an excluded directory is one entry');
    assert.equal(reason('dist/keep.ts'), undefined, 'contents of a skipped directory are not listed');
    assert.equal(reason('excluded-by-info.ts')?.detail, '.git/info/exclude: excluded-by-info.ts');
    assert.equal(reason('m.global.ts')?.detail, 'core.excludesFile: *.global.ts');
    assert.equal(reason('src/local.ts')?.detail, 'src/.gitignore: /local.ts');
  });

  it('uses the default $XDG_CONFIG_HOME/git/ignore when core.excludesFile is unset, and repo-local core.excludesFile', async () => {
    fs.writeFileSync(process.env.GIT_CONFIG_GLOBAL!, '[user]\n\tname = t\n\temail = t@example.com\n');
    const xdgIgnore = path.join(process.env.XDG_CONFIG_HOME!, 'git', 'ignore');
    fs.mkdirSync(path.dirname(xdgIgnore), { recursive: true });
    fs.writeFileSync(xdgIgnore, 'xdg-*.ts\n');
    const root = repo();
    writeTree(root, { 'xdg-a.ts': '', 'local-a.ts': '', 'plain.ts': '' });
    clearGlobalExcludesCache();
    assert.deepEqual(await assertParity(root, 'xdg'), ['local-a.ts', 'plain.ts']);

    const localIgnore = path.join(root, 'local-ignore');
    fs.writeFileSync(localIgnore, 'local-*.ts\n');
    git(root, 'config', 'core.excludesFile', localIgnore);
    clearGlobalExcludesCache();
    // core.excludesFile replaces the XDG default, exactly as in git.
    assert.deepEqual(await assertParity(root, 'repo-local'), ['plain.ts', 'xdg-a.ts']);
    fs.rmSync(xdgIgnore);
  });

  it('applies the .gitignore files above a workspace root that is a subdirectory of a repository', async () => {
    const top = repo();
    writeTree(top, {
      '.gitignore': 'packages/app/gen/\n*.skip.ts\n/packages/app/anch.ts\n',
      'packages/.gitignore': 'app/local/\n',
      'packages/app/a.ts': '',
      'packages/app/b.skip.ts': '',
      'packages/app/anch.ts': '',
      'packages/app/gen/g.ts': '',
      'packages/app/local/l.ts': '',
      'packages/app/ok/o.ts': '',
    });
    fs.appendFileSync(path.join(top, '.git', 'info', 'exclude'), 'ok/\n');
    const root = path.join(top, 'packages', 'app');
    const kept = await assertParity(root, 'subdir');
    assert.deepEqual(kept, ['a.ts']); // info/exclude's 'ok/' matches packages/app/ok at any depth
  });

  it('treats a nested repository with its own ignore sources, as git does inside it', async () => {
    const outer = repo();
    writeTree(outer, { '.gitignore': '*.gen.ts\n', 'o.gen.ts': '', 'o.ts': '' });
    const inner = path.join(outer, 'inner');
    fs.mkdirSync(inner);
    git(inner, 'init', '-q');
    writeTree(inner, { '.gitignore': 'skip/\n', 'i.gen.ts': '', 'skip/s.ts': '', 'i.ts': '' });
    fs.appendFileSync(path.join(inner, '.git', 'info', 'exclude'), 'info.ts\n');
    writeTree(inner, { 'info.ts': '' });
    const files = await quarryFiles(outer);
    const innerExpected = gitUntracked(inner).filter(indexable).map((p) => `inner/${p}`);
    assert.deepEqual(files, ['o.ts', ...innerExpected].sort());
    assert.deepEqual(innerExpected, ['inner/i.gen.ts', 'inner/i.ts']);
  });

  describe('randomly generated repositories', () => {
    const DIRS = ['a', 'b', 'src', 'lib', 'build', 'gen', 'out', 'logs', 'deep', 'x'];
    const BASES = ['main', 'util', 'index', 'test', 'foo', 'keep', 'tmp', 'Main'];
    const EXTS = ['.ts', '.js', '.md', '.py', '.spec.ts', '.log.ts'];

    function gen(seed: number): { files: string[]; ignores: Record<string, string>; info: string; global: string } {
      const rnd = prng(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
      const files = new Set<string>();
      const dirs = new Set<string>(['']);
      while (files.size < 300) {
        const depth = Math.floor(rnd() * 5);
        const segs: string[] = [];
        for (let i = 0; i < depth; i++) segs.push(pick(DIRS));
        for (let i = 1; i <= segs.length; i++) dirs.add(segs.slice(0, i).join('/'));
        files.add([...segs, pick(BASES) + pick(EXTS)].join('/'));
      }
      const pattern = (): string => {
        const d = pick(DIRS);
        const f = pick(BASES) + pick(EXTS);
        const e = pick(EXTS);
        const forms = [
          d, `${d}/`, `/${d}`, `/${d}/`, f, `/${f}`, `${d}/${f}`, `${d}/${pick(DIRS)}/`, `**/${d}`, `**/${d}/`,
          `**/${f}`, `${d}/**`, `${d}/**/${f}`, `${d}/**/*${e}`, `*${e}`, `${pick(BASES)}.*`, `*${pick(BASES).slice(1, 3)}*`,
          `${d}/*`, `${d}/*/`, `${pick(BASES).slice(0, 2)}?${pick(BASES).slice(3)}${e}`, `[a-m]*${e}`, `[!a-m]*/`,
          `${d}/**/`, `*/${d}/`, `*/${f}`, `${d}/*/**/`, `**/${d}/**`, `**/${d}/**/`, `${d}/**/${pick(DIRS)}/`,
          `[^a-m]*${e}`, `${d}[0-9]/`, `*.${pick(['ts', 'js', 'md'])}`, `${pick(BASES)}*`, `\\#${f}`,
        ];
        const p = pick(forms);
        return rnd() < 0.35 ? `!${p}` : p;
      };
      const lines = (n: number) => Array.from({ length: n }, pattern).join('\n') + '\n';
      const ignores: Record<string, string> = { '.gitignore': lines(6 + Math.floor(rnd() * 6)) };
      const dirList = [...dirs].filter(Boolean).sort();
      for (let i = 0; i < 10; i++) ignores[`${pick(dirList)}/.gitignore`] = lines(2 + Math.floor(rnd() * 6));
      return { files: [...files].sort(), ignores, info: lines(3), global: lines(3) };
    }

    for (const seed of Array.from({ length: Number(process.env.QUARRY_PARITY_SEEDS ?? 16) }, (_, i) => i + 1)) {
      it(`matches git on random repository #${seed}`, async () => {
        const g = gen(seed);
        const root = repo();
        const globalIgnore = path.join(env.home, `global-${seed}`);
        fs.writeFileSync(globalIgnore, g.global);
        git(root, 'config', 'core.excludesFile', globalIgnore);
        writeTree(root, Object.fromEntries(g.files.map((f) => [f, `// ${f}\n`])));
        writeTree(root, g.ignores);
        fs.appendFileSync(path.join(root, '.git', 'info', 'exclude'), g.info);
        const kept = await assertParity(root, `seed ${seed}`);
        // The generator must exercise both sides: some files kept, some ignored.
        assert.ok(kept.length > 0 && kept.length < g.files.length, `seed ${seed}: kept ${kept.length}/${g.files.length}`);
      });
    }
  });
});
