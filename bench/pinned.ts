/**
 * Pinned published packages, downloaded as their archives: `npm pack NAME@VERSION` (the tarball npm serves) and
 * `apt-get download PKG=VERSION` (the .deb). Shared by the frozen evaluation (bench/eval/fetch.ts) and the tests on
 * real repositories (test/support/realRepos.ts); each caller unpacks and verifies what it needs.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function run(cmd: string, args: string[], cwd?: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

/** Downloads `pkg@version` from npm into `dir`; the tarball's path. Throws when npm serves another version. */
export function npmPack(pkg: string, version: string, dir: string): string {
  const out = JSON.parse(run('npm', ['pack', `${pkg}@${version}`, '--json', '--silent'], dir)) as Array<{ filename: string; version: string }>;
  if (out[0]!.version !== version) throw new Error(`npm gave ${pkg}@${out[0]!.version}, not ${version}`);
  return join(dir, out[0]!.filename);
}

/** Downloads the Debian package `pkg=version` into `dir` (fetching package lists first on a fresh machine); the .deb's path. */
export function aptDownload(pkg: string, version: string, dir: string): string {
  const spec = `${pkg}=${version}`;
  try {
    run('apt-get', ['download', spec], dir);
  } catch {
    // no package lists yet (a fresh CI image): fetch them, then try again
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['download', spec], dir);
  }
  const deb = readdirSync(dir).find((f) => f.endsWith('.deb'));
  if (!deb) throw new Error(`apt-get download ${spec} produced no .deb`);
  return join(dir, deb);
}
