// Re-adds LanceDB's optional platform packages to package-lock.json when `npm install` dropped them
// (the registry mirror on the build machines does not serve every platform build, and `npm ci` then
// refuses the lock). Entries carry os/cpu so npm skips them on other platforms without fetching.
import { readFileSync, writeFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const lance = lock.packages['node_modules/@lancedb/lancedb'];
const platforms = {
  'darwin-arm64': { cpu: ['arm64'], os: ['darwin'] },
  'linux-x64-gnu': { cpu: ['x64'], os: ['linux'], libc: ['glibc'] },
  'linux-x64-musl': { cpu: ['x64'], os: ['linux'], libc: ['musl'] },
  'linux-arm64-gnu': { cpu: ['arm64'], os: ['linux'], libc: ['glibc'] },
  'linux-arm64-musl': { cpu: ['arm64'], os: ['linux'], libc: ['musl'] },
  'win32-x64-msvc': { cpu: ['x64'], os: ['win32'] },
  'win32-arm64-msvc': { cpu: ['arm64'], os: ['win32'] },
};
let added = 0;
for (const [name, p] of Object.entries(platforms)) {
  const key = `node_modules/@lancedb/lancedb-${name}`;
  if (lock.packages[key]) continue;
  lock.packages[key] = { version: lance.version, ...p, license: 'Apache-2.0', optional: true, engines: { node: '>= 18' } };
  added++;
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'))));
writeFileSync('package-lock.json', JSON.stringify(lock, null, 2) + '\n');
console.log(`lock-platforms: added ${added} entr${added === 1 ? 'y' : 'ies'}`);
