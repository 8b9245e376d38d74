#!/usr/bin/env node
/**
 * Fetches the training sources reproducibly from the package registries this machine reaches:
 * Debian binary packages that ship source code (python3-*, golang-*-dev, librust-*-dev) and npm packages.
 *
 *   node training/fetch-sources.mjs            # uses sources.lock.json when present, else selects and writes it
 *   node training/fetch-sources.mjs --relock   # selects anew from sources.json's rules
 *
 * Every package is recorded with its version, the sha256 of what was downloaded and its licence; only
 * permissive licences are kept (Debian: every non-packaging stanza of the DEP-5 copyright file; npm: the
 * package.json `license`). Sources land in training/.cache/src/<package>/ (only source files are kept).
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { join, dirname, extname } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const CACHE = join(HERE, '.cache');
const SRC = join(CACHE, 'src');
const DEBS = join(CACHE, 'debs');
const LOCK = join(HERE, 'sources.lock.json');
const cfg = JSON.parse(readFileSync(join(HERE, 'sources.json'), 'utf8'));
const permissive = new Set(cfg.permissiveLicences.map((l) => l.toLowerCase()));
const SOURCE_EXT = new Set(['.py', '.go', '.rs', '.js', '.mjs', '.cjs', '.ts', '.tsx', '.jsx']);

const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
const shAsync = (cmd, args, opts = {}) => promisify(execFile)(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const log = (m) => process.stderr.write(`fetch: ${m}\n`);

/** "MIT or Apache-2.0", "BSD-3-clause and Expat" → permissive? ("or": any alternative; "and"/",": all). */
export function isPermissive(expr) {
  const norm = (s) => s.trim().toLowerCase().replace(/^the\s+/, '').replace(/\s+license$/, '').replace(/\+$/, '');
  return expr.split(/\s+or\s+|\s*\|\|\s*/i).some((alt) => alt.replace(/[()]/g, ' ').split(/\s+and\s+|,/i).every((p) => permissive.has(norm(p))));
}

/** Licences of a DEP-5 copyright file, skipping stanzas that cover only debian/ packaging. */
function debianLicences(text) {
  if (!/^Format:/m.test(text)) return null;
  const out = [];
  for (const stanza of text.split(/\n\s*\n/)) {
    const files = stanza.match(/^Files:\s*([\s\S]*?)(?=^\S+:)/m)?.[1]?.trim();
    const lic = stanza.match(/^License:\s*(.+)$/m)?.[1]?.trim();
    if (!files || !lic) continue;
    if (files.split(/\s+/).every((f) => f.startsWith('debian/'))) continue;
    out.push(lic);
  }
  return out.length ? out : null;
}

function keepSourcesOnly(dir) {
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isSymbolicLink()) rmSync(p, { force: true });
      else if (e.isDirectory()) walk(p);
      else if (!SOURCE_EXT.has(extname(e.name)) || e.name.endsWith('.d.ts') || e.name.endsWith('.min.js')) rmSync(p, { force: true });
    }
  };
  walk(dir);
}

function selectDebian() {
  const avail = sh('apt-cache', ['dumpavail']);
  const latest = new Map();
  for (const rec of avail.split('\n\n')) {
    const f = Object.fromEntries([...rec.matchAll(/^([A-Za-z-]+): (.*)$/gm)].map((m) => [m[1], m[2]]));
    const pkg = f.Package;
    if (!pkg) continue;
    for (const g of cfg.debian.groups) {
      if (!pkg.startsWith(g.prefix) || !pkg.endsWith(g.suffix) || !g.architecture.includes(f.Architecture)) continue;
      if (g.exclude.some((re) => new RegExp(re).test(pkg))) continue;
      const size = Number(f.Size ?? 0);
      if (size < g.minSize || size > g.maxSize) continue;
      latest.set(pkg, { package: pkg, version: f.Version, group: g.name });
    }
  }
  return [...latest.values()].sort((a, b) => a.package.localeCompare(b.package));
}

async function fetchDebian(entries) {
  mkdirSync(DEBS, { recursive: true });
  const missing = entries.filter((e) => !existsSync(join(SRC, e.package, '.ok')));
  const have = new Set(readdirSync(DEBS).map((f) => f.split('_')[0]));
  const toDownload = missing.filter((e) => !have.has(e.package));
  const batches = [];
  for (let i = 0; i < toDownload.length; i += 50) batches.push(toDownload.slice(i, i + 50));
  let done = 0;
  const download = async (batch) => {
    try {
      await shAsync('apt-get', ['download', ...batch.map((e) => `${e.package}=${e.version}`)], { cwd: DEBS });
    } catch {
      // One unavailable version fails the batch: fetch one by one and skip the failures.
      for (const e of batch) {
        try {
          await shAsync('apt-get', ['download', `${e.package}=${e.version}`], { cwd: DEBS });
        } catch (err) {
          e.error = String(err.stderr || err.message).split('\n').find(Boolean);
        }
      }
    }
    done += batch.length;
    log(`debian downloads ${done}/${toDownload.length}`);
  };
  // Apt fetches one file at a time; a few batches at once keep the connection busy.
  const queue = batches.slice();
  await Promise.all(Array.from({ length: 6 }, async () => {
    while (queue.length) await download(queue.shift());
  }));
  const debs = new Map(readdirSync(DEBS).map((f) => [f.split('_')[0], f]));
  for (const e of missing) {
    if (e.error) continue;
    const deb = debs.get(e.package);
    if (!deb) {
      e.error = 'not downloaded';
      continue;
    }
    const debPath = join(DEBS, deb);
    const digest = sha256(debPath);
    if (e.sha256 && e.sha256 !== digest) throw new Error(`${deb}: sha256 ${digest} differs from the lock's ${e.sha256}`);
    e.sha256 = digest;
    const out = join(SRC, e.package);
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    sh('dpkg-deb', ['-x', debPath, out]);
    const copyright = join(out, 'usr/share/doc', e.package, 'copyright');
    const lic = existsSync(copyright) ? debianLicences(readFileSync(copyright, 'utf8')) : null;
    e.licence = lic ? [...new Set(lic)].join('; ') : 'unknown (no machine-readable copyright file)';
    e.kept = !!lic && lic.every(isPermissive);
    if (e.kept) {
      keepSourcesOnly(out);
      writeFileSync(join(out, '.ok'), JSON.stringify(e));
    } else rmSync(out, { recursive: true, force: true });
    rmSync(debPath, { force: true });
  }
  for (const e of entries) if (existsSync(join(SRC, e.package, '.ok'))) Object.assign(e, JSON.parse(readFileSync(join(SRC, e.package, '.ok'), 'utf8')));
}

function fetchNpm(entries) {
  const tmp = join(CACHE, 'npm-tmp');
  for (const e of entries) {
    const dirName = `npm-${e.name.replace('/', '__')}`;
    const out = join(SRC, dirName);
    if (existsSync(join(out, '.ok'))) {
      Object.assign(e, JSON.parse(readFileSync(join(out, '.ok'), 'utf8')));
      continue;
    }
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    try {
      const [packed] = JSON.parse(sh('npm', ['pack', `${e.name}@${e.version}`, '--json', '--silent'], { cwd: tmp }));
      if (e.integrity && e.integrity !== packed.integrity) throw new Error(`integrity ${packed.integrity} differs from the lock's ${e.integrity}`);
      e.integrity = packed.integrity;
      sh('tar', ['-xzf', packed.filename], { cwd: tmp });
      const pj = JSON.parse(readFileSync(join(tmp, 'package', 'package.json'), 'utf8'));
      const lic = typeof pj.license === 'string' ? pj.license : pj.license?.type ?? (Array.isArray(pj.licenses) ? pj.licenses.map((l) => l.type ?? l).join(' OR ') : 'unknown');
      e.licence = lic;
      e.kept = isPermissive(lic);
      if (e.kept) {
        rmSync(out, { recursive: true, force: true });
        keepSourcesOnly(join(tmp, 'package'));
        mkdirSync(dirname(out), { recursive: true });
        renameSync(join(tmp, 'package'), out);
        writeFileSync(join(out, '.ok'), JSON.stringify(e));
      }
    } catch (err) {
      e.error = String(err.stderr || err.message).split('\n').find(Boolean);
      log(`npm ${e.name}@${e.version}: ${e.error}`);
    }
  }
  rmSync(tmp, { recursive: true, force: true });
}

async function main() {
  const relock = process.argv.includes('--relock');
  mkdirSync(SRC, { recursive: true });
  let lock;
  if (!relock && existsSync(LOCK)) lock = JSON.parse(readFileSync(LOCK, 'utf8'));
  else {
    lock = {
      $comment: 'Written by fetch-sources.mjs: the exact packages, versions, digests and licences of the training sources. Only entries with kept=true are used.',
      debian: selectDebian(),
      npm: cfg.npm.map((spec) => {
        const at = spec.lastIndexOf('@');
        return { name: spec.slice(0, at), version: spec.slice(at + 1) };
      }),
    };
  }
  await fetchDebian(lock.debian);
  fetchNpm(lock.npm);
  writeFileSync(LOCK, JSON.stringify(lock, null, 1) + '\n');
  const kept = [...lock.debian, ...lock.npm].filter((e) => e.kept);
  const bytes = kept.reduce((s, e) => s + (existsSync(join(SRC, e.package ?? `npm-${e.name.replace('/', '__')}`)) ? 1 : 0), 0);
  log(`kept ${kept.length} packages (${bytes} present), excluded ${lock.debian.length + lock.npm.length - kept.length} (licence or download error); lock: ${LOCK}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((e) => {
    process.stderr.write(`fetch: ${e.stack ?? e}\n`);
    process.exit(1);
  });
}
