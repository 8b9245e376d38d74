/**
 * `tsx bench/eval/fetch.ts [--repos a,b] [--check] [--refetch]`: fetches every repository named by a query
 * file's `repo` block into bench/.cache/eval/<name>/tree (exactly as published: nothing blanked or stripped),
 * and writes bench/eval/frozen.json (per-repo tree checksums, the query files' hash, counts).
 * `--check` also verifies every target: the path exists in the tree and its line span lies within the file.
 * Exits non-zero when a check fails or a fetched tree differs from a checksum already frozen.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { aptDownload, npmPack, run } from '../pinned';
import { CATEGORIES, EVAL_CACHE, FROZEN_PATH, halfOf, loadAll, queriesSha256, RepoSpec, treeChecksum, treeDir } from './spec';

/** npm: the published tarball (`npm pack NAME@VERSION`), extracted; the subdir of `package/` is the tree. */
function fetchNpm(repo: RepoSpec, tmp: string): string {
  run('tar', ['-xzf', npmPack(repo.package, repo.version, tmp)], tmp);
  return join(tmp, 'package', repo.subdir);
}

/** Debian: `apt-get download PKG=VERSION`, unpacked with `dpkg -x`; the subdir of the unpacked root is the tree. */
function fetchDebian(repo: RepoSpec, tmp: string): string {
  run('dpkg', ['-x', aptDownload(repo.package, repo.version, tmp), 'x'], tmp);
  return join(tmp, 'x', repo.subdir);
}

export function fetchRepo(repo: RepoSpec, refetch = false): string {
  const dir = treeDir(repo);
  const stamp = join(EVAL_CACHE, repo.name, 'fetched.json');
  if (!refetch && existsSync(stamp)) {
    const s = JSON.parse(readFileSync(stamp, 'utf8')) as RepoSpec;
    if (s.package === repo.package && s.version === repo.version && s.source === repo.source && s.subdir === repo.subdir && existsSync(dir)) return dir;
  }
  const tmp = join(EVAL_CACHE, repo.name, 'tmp');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  process.stderr.write(`eval: fetching ${repo.source} ${repo.package}@${repo.version} (${repo.subdir || '.'})\n`);
  const src = repo.source === 'npm' ? fetchNpm(repo, tmp) : fetchDebian(repo, tmp);
  if (!existsSync(src) || !statSync(src).isDirectory()) throw new Error(`${repo.name}: ${repo.subdir} is not a folder of the package`);
  // A fresh tree; the index (.quarry/) of an earlier fetch goes with it.
  rmSync(dir, { recursive: true, force: true });
  cpSync(src, dir, { recursive: true, dereference: true });
  rmSync(tmp, { recursive: true, force: true });
  writeFileSync(stamp, JSON.stringify(repo, null, 2));
  return dir;
}

function lineCount(text: string): number {
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

function main(): void {
  const argv = process.argv.slice(2);
  const opt = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const only = opt('--repos')?.split(',');
  const check = argv.includes('--check');
  const files = loadAll(only);
  const frozen = existsSync(FROZEN_PATH) ? (JSON.parse(readFileSync(FROZEN_PATH, 'utf8')) as { repos: Record<string, { version: string; files: number; sha256: string }> }) : { repos: {} };
  const repos: Record<string, { version: string; files: number; sha256: string }> = { ...frozen.repos };
  const problems: string[] = [];
  for (const f of files) {
    const dir = fetchRepo(f.repo, argv.includes('--refetch'));
    const sum = treeChecksum(dir);
    const old = frozen.repos[f.repo.name];
    if (old && old.version === f.repo.version && old.sha256 !== sum.sha256) problems.push(`${f.repo.name}: tree checksum ${sum.sha256} differs from the frozen ${old.sha256}`);
    repos[f.repo.name] = { version: f.repo.version, files: sum.files, sha256: sum.sha256 };
    process.stderr.write(`eval: ${f.repo.name} ${f.repo.version}: ${sum.files} files, ${f.queries.length} queries\n`);
    if (check) {
      for (const q of f.queries) {
        for (const t of [...q.relevant, ...q.secondary]) {
          const p = join(dir, t.path);
          if (!existsSync(p) || !statSync(p).isFile()) {
            problems.push(`${q.id}: ${t.path} is not a file of the tree`);
            continue;
          }
          if (t.lines) {
            const n = lineCount(readFileSync(p, 'utf8'));
            if (t.lines[1] > n) problems.push(`${q.id}: ${t.path} lines ${t.lines[0]}-${t.lines[1]} beyond its ${n} lines`);
          }
        }
      }
    }
  }
  // The manifest covers every query file (even when only some repositories were fetched this time).
  const all = loadAll();
  const byCategory: Record<string, number> = Object.fromEntries(CATEGORIES.map((c) => [c, 0]));
  const byHalf: Record<string, number> = { tune: 0, report: 0 };
  let queryCount = 0;
  for (const f of all) {
    for (const q of f.queries) {
      byCategory[q.category]++;
      byHalf[halfOf(q.id)]++;
      queryCount++;
    }
  }
  const names = new Set(all.map((f) => f.repo.name));
  const kept = Object.fromEntries(Object.entries(repos).filter(([n]) => names.has(n)).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(FROZEN_PATH, JSON.stringify({ repos: kept, queriesSha256: queriesSha256(), queryCount, byCategory, byHalf }, null, 2) + '\n');
  process.stderr.write(`eval: ${queryCount} queries (${CATEGORIES.map((c) => `${c} ${byCategory[c]}`).join(', ')}); wrote ${FROZEN_PATH}\n`);
  if (problems.length) {
    for (const p of problems) process.stderr.write(`eval: PROBLEM ${p}\n`);
    process.exit(1);
  }
  if (check) process.stderr.write('eval: every target exists and every span is within its file\n');
}

if (require.main === module) main();
