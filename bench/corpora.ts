/**
 * Benchmark corpora: real code, fetched from the package registries this machine reaches (npm, Debian) or
 * copied from the machine's own Python, pinned by version and recorded with a checksum of the extracted
 * tree. Cached under bench/.cache/ (ignored by git); nothing from a corpus is committed.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const BENCH_DIR = __dirname;
export const CACHE_DIR = join(BENCH_DIR, '.cache');
const REPO_ROOT = join(BENCH_DIR, '..');

export interface CorpusInfo {
  name: string;
  /** What it is and where it came from. */
  source: string;
  version: string;
  licence: string;
  dir: string;
  files: number;
  bytes: number;
  /** sha256 over the sorted (path, content hash) list of the extracted tree. */
  checksum: string;
}

interface CorpusSpec {
  name: string;
  licence: string;
  /** Quick mode uses only these. */
  quick: boolean;
  fetch(target: string): { source: string; version: string };
}

function run(cmd: string, args: string[], cwd?: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

/** An npm package's published tarball, extracted; `subdir` keeps only part of it. */
function npmPackage(pkg: string, version: string, subdir: string): CorpusSpec['fetch'] {
  return (target) => {
    const tmp = join(CACHE_DIR, 'tmp-npm');
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    const out = JSON.parse(run('npm', ['pack', `${pkg}@${version}`, '--json', '--silent'], tmp)) as Array<{ filename: string; integrity: string }>;
    run('tar', ['-xzf', out[0].filename], tmp);
    cpSync(join(tmp, 'package', subdir), target, { recursive: true });
    rmSync(tmp, { recursive: true, force: true });
    return { source: `npm ${pkg}@${version} (${subdir}/), tarball ${out[0].integrity}`, version };
  };
}

/** A Debian source package's files (downloaded with apt-get download, unpacked with dpkg -x). */
function debianPackage(pkg: string, subdir: string): CorpusSpec['fetch'] {
  return (target) => {
    const tmp = join(CACHE_DIR, 'tmp-deb');
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    try {
      run('apt-get', ['download', pkg], tmp);
    } catch {
      run('apt-get', ['update', '-qq']);
      run('apt-get', ['download', pkg], tmp);
    }
    const deb = readdirSync(tmp).find((f) => f.endsWith('.deb'))!;
    run('dpkg', ['-x', deb, 'x'], tmp);
    cpSync(join(tmp, 'x', subdir), target, { recursive: true, dereference: true });
    rmSync(tmp, { recursive: true, force: true });
    return { source: `Debian package ${deb}`, version: deb.replace(/\.deb$/, '') };
  };
}

export const CORPORA: CorpusSpec[] = [
  {
    name: 'quarry',
    licence: 'MIT (this repository)',
    quick: true,
    fetch(target) {
      // Not the fixtures, and not the benchmark's own question files and reports: they hold the very query texts.
      const benchText = (f: string) => f.startsWith('bench/questions/') || f.startsWith('bench/results/') || f === 'BENCHMARKS.md';
      const files = run('git', ['ls-files'], REPO_ROOT).split('\n').filter((f) => f && !f.startsWith('test/fixtures/') && !benchText(f));
      for (const f of files) {
        const dst = join(target, f);
        mkdirSync(join(dst, '..'), { recursive: true });
        cpSync(join(REPO_ROOT, f), dst);
      }
      const head = run('git', ['rev-parse', '--short', 'HEAD'], REPO_ROOT).trim();
      return { source: 'this repository (git ls-files; test fixtures, bench questions and reports excluded)', version: head };
    },
  },
  {
    name: 'python-stdlib',
    licence: 'PSF-2.0',
    quick: true,
    fetch(target) {
      const stdlib = run('python3', ['-c', "import sysconfig; print(sysconfig.get_paths()['stdlib'])"]).trim();
      const version = run('python3', ['-c', 'import platform; print(platform.python_version())']).trim();
      // The library itself: no site-packages (machine-specific), no test suite, no bundled installers.
      const skip = new Set(['site-packages', 'test', 'idlelib', 'ensurepip', 'lib2to3', 'tkinter', 'turtledemo', '__pycache__', 'config-3.11-x86_64-linux-gnu']);
      for (const entry of readdirSync(stdlib)) {
        if (skip.has(entry) || entry.startsWith('config-')) continue;
        cpSync(join(stdlib, entry), join(target, entry), { recursive: true, filter: (src) => !src.includes('__pycache__') && !/[/\\]tests?[/\\]/.test(relative(stdlib, src) + '/') });
      }
      return { source: `CPython ${version} standard library from this machine's python3 (${stdlib}), without tests and site-packages`, version };
    },
  },
  {
    name: 'rxjs',
    licence: 'Apache-2.0',
    quick: true,
    fetch: npmPackage('rxjs', '7.8.1', 'src'),
  },
  {
    name: 'lodash',
    licence: 'MIT',
    quick: false,
    fetch: npmPackage('lodash-es', '4.17.21', '.'),
  },
  {
    name: 'rust-stdlib',
    licence: 'MIT OR Apache-2.0',
    quick: false,
    fetch: debianPackage('rust-src', 'usr/lib/rustlib/src/rust/library'),
  },
  {
    name: 'go-stdlib',
    licence: 'BSD-3-Clause',
    quick: false,
    fetch: debianPackage('golang-1.19-src', 'usr/share/go-1.19/src'),
  },
];

/** sha256 over the sorted (path, content sha256) list of a tree; `.quarry/` folders (an index) are not part of it. */
export function treeChecksum(dir: string): { files: number; bytes: number; checksum: string } {
  const entries: string[] = [];
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.name === '.quarry') continue;
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const data = readFileSync(p);
        bytes += data.length;
        entries.push(`${relative(dir, p)}\0${createHash('sha256').update(data).digest('hex')}`);
      }
    }
  };
  walk(dir);
  entries.sort();
  return { files: entries.length, bytes, checksum: createHash('sha256').update(entries.join('\n')).digest('hex') };
}

/** Fetches (once) and returns the corpora for the mode. */
export function prepareCorpora(quick: boolean, only?: string[]): CorpusInfo[] {
  mkdirSync(CACHE_DIR, { recursive: true });
  const out: CorpusInfo[] = [];
  for (const spec of CORPORA) {
    if (only ? !only.includes(spec.name) : quick && !spec.quick) continue;
    const dir = join(CACHE_DIR, 'corpora', spec.name, 'src');
    const metaPath = join(CACHE_DIR, 'corpora', spec.name, 'corpus.json');
    if (spec.name === 'quarry' || !existsSync(metaPath)) {
      // Refetch the sources; the stripped copy's index (and its embedding cache) survives for unchanged content.
      rmSync(dir, { recursive: true, force: true });
      rmSync(join(CACHE_DIR, 'corpora', spec.name, 'stripped', '.stripped-ok'), { force: true });
      mkdirSync(dir, { recursive: true });
      process.stderr.write(`bench: fetching corpus ${spec.name}\n`);
      try {
        const { source, version } = spec.fetch(dir);
        const sum = treeChecksum(dir);
        const info: CorpusInfo = { name: spec.name, source, version, licence: spec.licence, dir, ...sum };
        writeFileSync(metaPath, JSON.stringify(info, null, 2));
      } catch (e) {
        process.stderr.write(`bench: corpus ${spec.name} unavailable (${(e as Error).message.split('\n')[0]}); skipped\n`);
        rmSync(join(CACHE_DIR, 'corpora', spec.name), { recursive: true, force: true });
        continue;
      }
    }
    const info = JSON.parse(readFileSync(metaPath, 'utf8')) as CorpusInfo;
    if (!existsSync(info.dir) || !statSync(info.dir).isDirectory()) continue;
    out.push(info);
  }
  return out;
}
