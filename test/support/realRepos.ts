/**
 * Small real repositories pinned in test/fixtures/real-repos.json (issue 18): fetched once from npm (`npm pack`) or
 * Debian (`apt-get download` + `dpkg -x`), the archive's sha256 verified against the manifest, and cached unpacked
 * under test/.cache/real-repos/<name>-<version>/tree (ignored by git). A cached tree is reused only when its stamp
 * names the same package, version and archive digest.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './workspace';
import { aptDownload, npmPack, run } from '../../bench/pinned';

export interface RealRepo {
  name: string;
  language: string;
  source: 'npm' | 'debian';
  package: string;
  version: string;
  /** The folder of the unpacked archive that is the tree (`package/src` for an npm tarball). */
  subdir: string;
  /** sha256 of the fetched archive (the .tgz or .deb). */
  sha256: string;
}

export const REAL_REPOS_MANIFEST = join(REPO_ROOT, 'test', 'fixtures', 'real-repos.json');
export const REAL_REPOS_CACHE = join(REPO_ROOT, 'test', '.cache', 'real-repos');

export function loadRealRepos(): RealRepo[] {
  return (JSON.parse(readFileSync(REAL_REPOS_MANIFEST, 'utf8')) as { repos: RealRepo[] }).repos;
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The unpacked tree of `repo` (fetched and verified on first use); throws when the archive's digest differs. */
export function fetchRealRepo(repo: RealRepo): string {
  const base = join(REAL_REPOS_CACHE, `${repo.name}-${repo.version}`);
  const tree = join(base, 'tree');
  const stamp = join(base, 'fetched.json');
  if (existsSync(stamp) && existsSync(tree)) {
    const s = JSON.parse(readFileSync(stamp, 'utf8')) as RealRepo;
    if (s.package === repo.package && s.version === repo.version && s.sha256 === repo.sha256 && s.subdir === repo.subdir) return tree;
  }
  const tmp = join(base, 'tmp');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const archive = repo.source === 'npm' ? npmPack(repo.package, repo.version, tmp) : aptDownload(repo.package, repo.version, tmp);
  const digest = sha256(archive);
  if (digest !== repo.sha256) throw new Error(`${repo.package}@${repo.version}: archive sha256 ${digest}, the manifest pins ${repo.sha256}`);
  mkdirSync(join(tmp, 'x'));
  if (repo.source === 'npm') run('tar', ['-xzf', archive, '-C', join(tmp, 'x')]);
  else run('dpkg', ['-x', archive, join(tmp, 'x')]);
  const src = join(tmp, 'x', repo.subdir);
  if (!existsSync(src) || !statSync(src).isDirectory()) throw new Error(`${repo.name}: ${repo.subdir} is not a folder of the archive`);
  rmSync(tree, { recursive: true, force: true });
  cpSync(src, tree, { recursive: true, dereference: true });
  rmSync(tmp, { recursive: true, force: true });
  writeFileSync(stamp, JSON.stringify(repo, null, 2));
  return tree;
}
