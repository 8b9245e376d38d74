/**
 * The pinned Go 1.19 source tree (Debian golang-1.19-src 1.19.8-2) the scale benchmarks index: downloaded once
 * (`apt-get download`, else the Debian mirror's URL), checked against its sha256, extracted once under
 * bench/.cache/scale/golang-1.19-src/. Shared by bench/scale.ts and bench/lexicalTopK.ts (bench/lsRss.ts reads the
 * same folder).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const GO119 = {
  package: 'golang-1.19-src',
  version: '1.19.8-2',
  file: 'golang-1.19-src_1.19.8-2_all.deb',
  url: 'https://deb.debian.org/debian/pool/main/g/golang-1.19/golang-1.19-src_1.19.8-2_all.deb',
  sha256: '2dfa82fe4f08f4e0193c532e561af4c91871f5235608f04f2bb8d57bb288df5a',
  srcDir: 'usr/share/go-1.19/src',
};

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** The tree's src/ folder under `cacheDir` (bench/.cache/scale), fetched, checked and extracted when missing. */
export async function fetchGo119(cacheDir: string): Promise<string> {
  const extracted = join(cacheDir, 'golang-1.19-src');
  const src = join(extracted, GO119.srcDir);
  if (existsSync(join(src, 'go.mod'))) return src;
  mkdirSync(cacheDir, { recursive: true });
  const deb = join(cacheDir, GO119.file);
  if (!existsSync(deb) || sha256File(deb) !== GO119.sha256) {
    rmSync(deb, { force: true });
    const apt = spawnSync('apt-get', ['download', `${GO119.package}=${GO119.version}`], { cwd: cacheDir, stdio: 'inherit' });
    if (apt.status !== 0 || !existsSync(deb)) {
      console.error(`apt-get download unavailable or failed; fetching ${GO119.url}`);
      const res = await fetch(GO119.url);
      if (!res.ok) throw new Error(`download failed: ${res.status} ${res.statusText}`);
      writeFileSync(deb, Buffer.from(await res.arrayBuffer()));
    }
    const got = sha256File(deb);
    if (got !== GO119.sha256) throw new Error(`${GO119.file}: sha256 ${got}, expected ${GO119.sha256}`);
  }
  rmSync(extracted, { recursive: true, force: true });
  mkdirSync(extracted, { recursive: true });
  if (spawnSync('dpkg-deb', ['-x', deb, extracted], { stdio: 'inherit' }).status !== 0) {
    // No dpkg: a .deb is an ar archive holding data.tar.*.
    execFileSync('ar', ['x', deb], { cwd: extracted });
    const data = readdirSync(extracted).find((f) => f.startsWith('data.tar'));
    if (!data) throw new Error('no data.tar in the package');
    execFileSync('tar', ['xf', data], { cwd: extracted });
  }
  return src;
}
