/**
 * Native libraries shipped compressed in the .vsix (issue 19), unpacked on first start before anything loads them.
 *
 * A .vsix is a deflate zip, and deflate shrinks LanceDB's native library (168 MB stripped) only to 69 MB; brotli at
 * quality 9 with a 16 MB window takes it to 47 MB. scripts/package-vsix.mjs therefore leaves the library out and adds
 * `<library>.br` (stored, not recompressed) with `dist/packed-natives.json`, which names each library, its packed
 * copy, its size and the sha256 of the library recorded at package time. Before the first `require` of LanceDB, every
 * entry point (dist/cli.js, and so `quarry lsp`/`quarry mcp`; dist/lsp.js, dist/mcp-stdio.js, dist/mcp-http.js run on
 * their own) imports ./unpackNatives, which calls {@link ensurePackedNatives}:
 *
 * - The library already in its place with the recorded size: nothing to do (every start after the first; one stat).
 * - Else the packed copy is decompressed in memory and checked against the recorded size and sha256, written to a
 *   temp file beside the destination and renamed onto it. A rename is atomic, so two processes starting at once (the
 *   language server and `quarry mcp`) each write their own temp file and neither ever sees half a library; the second
 *   rename replaces a file with identical bytes (a process that already mapped the first keeps its copy).
 * - The destination is the library's normal place in the package, so `require('@lancedb/lancedb')` finds it as it
 *   always does. When the extension folder cannot be written (a read-only or system-wide install), the library goes
 *   to a fallback folder instead: $QUARRY_NATIVE_DIR, else the user's cache folder (~/.cache/quarry/native,
 *   ~/Library/Caches/quarry/native, %LOCALAPPDATA%\quarry\native), else <os temp>/quarry-native-<uid> (a folder of
 *   this user's alone), each under a sub-folder named by the sha256. LanceDB's loader (napi-rs, @lancedb/lancedb/
 *   dist/native.js) loads the file named by NAPI_RS_NATIVE_LIBRARY_PATH instead of its own package when that variable
 *   is set, so the manifest's `env` names it and it is set to the fallback copy (child processes inherit it).
 * - A packed copy that does not decompress or whose result has another checksum, or no writable folder at all, is a
 *   {@link PackedNativeError} naming the file, the cause and the fix.
 *
 * In a development checkout there is no manifest beside the bundle: nothing happens.
 */
import { brotliDecompressSync } from 'node:zlib';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

/** The manifest's name, in the package's dist/ folder beside the bundles. */
export const PACKED_MANIFEST = 'packed-natives.json';

export interface PackedFile {
  /** The library's normal place, relative to the package root (e.g. node_modules/@lancedb/lancedb-linux-x64-gnu/lancedb.linux-x64-gnu.node). */
  path: string;
  /** Its brotli-compressed copy, relative to the package root. */
  packed: string;
  codec: 'brotli';
  /** Bytes of the library. */
  size: number;
  /** sha256 (hex) of the library, recorded at package time. */
  sha256: string;
  /** The environment variable that points the library's loader at a copy elsewhere (NAPI_RS_NATIVE_LIBRARY_PATH). */
  env?: string;
}

export interface PackedManifest {
  version: 1;
  files: PackedFile[];
}

export interface UnpackResult {
  file: PackedFile;
  /** Where the library is now. */
  location: string;
  /** unpacked: this call wrote it; present: it was already there (an earlier start, or a process beside this one). */
  action: 'unpacked' | 'present';
  /** true when it is in a fallback folder (and `file.env` was set to it). */
  fallback: boolean;
  ms: number;
}

export interface UnpackOptions {
  /** Fallback folders in order of preference; default {@link defaultFallbackDirs}. */
  fallbackDirs?: string[];
  /** The environment to read and to set `file.env` in; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export class PackedNativeError extends Error {
  override name = 'PackedNativeError';
}

/** The fallback folders for a read-only package: $QUARRY_NATIVE_DIR, the user's cache folder, then a private temp folder. */
export function defaultFallbackDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs: string[] = [];
  if (env.QUARRY_NATIVE_DIR) dirs.push(env.QUARRY_NATIVE_DIR);
  const home = (() => {
    try {
      return homedir();
    } catch {
      return '';
    }
  })();
  if (process.platform === 'win32' && env.LOCALAPPDATA) dirs.push(join(env.LOCALAPPDATA, 'quarry', 'native'));
  else if (process.platform === 'darwin' && home) dirs.push(join(home, 'Library', 'Caches', 'quarry', 'native'));
  else if (env.XDG_CACHE_HOME) dirs.push(join(env.XDG_CACHE_HOME, 'quarry', 'native'));
  else if (home) dirs.push(join(home, '.cache', 'quarry', 'native'));
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  dirs.push(join(tmpdir(), `quarry-native-${uid ?? 'user'}`));
  return dirs;
}

/** Reads the manifest at `manifestPath`; undefined when there is none (a development checkout). */
export function readPackedManifest(manifestPath: string): PackedManifest | undefined {
  let text: string;
  try {
    text = readFileSync(manifestPath, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const m = JSON.parse(text) as PackedManifest;
  if (m.version !== 1 || !Array.isArray(m.files)) throw new PackedNativeError(`${manifestPath} is not a version 1 packed-natives manifest: reinstall Quarry.`);
  return m;
}

const sizeOf = (p: string): number | undefined => {
  try {
    const s = statSync(p);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
};

/** A fallback folder's sub-folder for this library version; the private temp folder is refused unless it is this user's alone. */
function fallbackFolder(dir: string, file: PackedFile, create: boolean): string | undefined {
  const sub = join(dir, file.sha256.slice(0, 16));
  const isTemp = dirname(dir) === tmpdir() && basename(dir).startsWith('quarry-native-');
  if (create) mkdirSync(sub, { recursive: true, mode: 0o700 });
  if (isTemp && typeof process.getuid === 'function') {
    try {
      const s = statSync(dir);
      if (s.uid !== process.getuid() || (s.mode & 0o022) !== 0) return undefined;
    } catch {
      return create ? undefined : sub;
    }
  }
  return sub;
}

const WRITE_ERRORS = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOTDIR', 'EEXIST', 'EISDIR', 'EBUSY', 'ENOENT']);

/** Writes `data` to `dest` through a temp file and a rename; a destination that appeared meanwhile with the right size wins. */
function writeAtomically(dest: string, data: Buffer, size: number): 'unpacked' | 'present' {
  const tmp = `${dest}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(tmp, data, { mode: 0o755 });
    try {
      renameSync(tmp, dest);
    } catch (err) {
      // Windows will not replace a library another process has loaded: the one that is there is as good.
      if (sizeOf(dest) === size) return 'present';
      throw err;
    }
    return 'unpacked';
  } finally {
    rmSync(tmp, { force: true });
  }
}

/** Decompresses a packed copy and proves it is the library recorded at package time. */
function decode(root: string, file: PackedFile): Buffer {
  const packed = join(root, file.packed);
  let raw: Buffer;
  try {
    raw = readFileSync(packed);
  } catch (err) {
    throw new PackedNativeError(
      `Quarry's package is incomplete: ${join(root, file.path)} is not there and its packed copy ${packed} cannot be read (${(err as Error).message}). ` +
        'Fix: reinstall the Quarry extension (or its .vsix).',
    );
  }
  if (file.codec !== 'brotli') throw new PackedNativeError(`${packed}: unknown codec "${file.codec}" in ${PACKED_MANIFEST}; reinstall Quarry.`);
  let data: Buffer;
  try {
    // One output buffer of the recorded size: the default 64 KB chunks are joined at the end, which holds the library
    // twice (a first start peaked at 430 MB RSS instead of 270 MB). More output than recorded is an error.
    data = brotliDecompressSync(raw, { chunkSize: Math.min(file.size + 65536, 2 ** 31 - 1), maxOutputLength: file.size + 1 });
  } catch (err) {
    throw new PackedNativeError(`${packed} is damaged: it does not decompress (${(err as Error).message}). Fix: reinstall the Quarry extension (or its .vsix).`);
  }
  const sha = createHash('sha256').update(data).digest('hex');
  if (data.length !== file.size || sha !== file.sha256) {
    throw new PackedNativeError(
      `${packed} is damaged: it unpacks to ${data.length} bytes with sha256 ${sha}, not the ${file.size} bytes with sha256 ${file.sha256} recorded when the package was built. ` +
        'Fix: reinstall the Quarry extension (or its .vsix); nothing was written.',
    );
  }
  return data;
}

/**
 * Makes every library the manifest names loadable: in its normal place under `root`, or in a fallback folder with
 * `file.env` pointing at it. Synchronous, so it runs to completion before the caller's next `require`.
 */
export function unpackPackedNatives(root: string, manifest: PackedManifest, options: UnpackOptions = {}): UnpackResult[] {
  const env = options.env ?? process.env;
  const results: UnpackResult[] = [];
  for (const file of manifest.files) {
    const t0 = performance.now();
    const done = (location: string, action: UnpackResult['action'], fallback: boolean): void => {
      if (fallback && file.env) env[file.env] = location;
      results.push({ file, location, action, fallback, ms: performance.now() - t0 });
    };
    const dest = join(root, file.path);
    if (sizeOf(dest) === file.size) {
      done(dest, 'present', false);
      continue;
    }
    const fallbacks = (options.fallbackDirs ?? defaultFallbackDirs(env)).filter(Boolean);
    const cached = file.env ? fallbacks.map((d) => fallbackFolder(d, file, false)).find((sub) => sub && sizeOf(join(sub, basename(file.path))) === file.size) : undefined;
    if (cached) {
      done(join(cached, basename(file.path)), 'present', true);
      continue;
    }
    const data = decode(root, file);
    const tried: string[] = [];
    const attempt = (target: string): UnpackResult['action'] | undefined => {
      try {
        return writeAtomically(target, data, file.size);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? '';
        if (!WRITE_ERRORS.has(code)) throw err;
        tried.push(`${dirname(target)} (${code})`);
        return undefined;
      }
    };
    const inPlace = attempt(dest);
    if (inPlace) {
      done(dest, inPlace, false);
      continue;
    }
    let placed = false;
    if (file.env) {
      for (const dir of fallbacks) {
        let sub: string | undefined;
        try {
          sub = fallbackFolder(dir, file, true);
        } catch (err) {
          tried.push(`${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
          continue;
        }
        if (!sub) {
          tried.push(`${dir} (not this user's own folder)`);
          continue;
        }
        const target = join(sub, basename(file.path));
        const action = attempt(target);
        if (action) {
          try {
            chmodSync(target, 0o755);
          } catch {
            // a file another process renamed there; its mode is this one's
          }
          done(target, action, true);
          placed = true;
          break;
        }
      }
    }
    if (!placed) {
      throw new PackedNativeError(
        `cannot unpack ${file.packed} (${(file.size / 1e6).toFixed(0)} MB, shipped compressed) on first start: no folder could be written: ${tried.join('; ')}. ` +
          `Fix: start Quarry once as a user who can write ${root} (e.g. \`node ${join(root, 'dist', 'cli.js')} --version\`), ` +
          (file.env ? 'or set QUARRY_NATIVE_DIR to a writable folder.' : 'or make that folder writable (this library has no loader override, so only its own folder works).'),
      );
    }
  }
  return results;
}

/**
 * The startup hook: the manifest beside the running bundle (`<package>/dist/packed-natives.json`, `dir` = the
 * bundle's folder) names what to unpack; without one (a development checkout, tests run from source) nothing happens.
 */
export function ensurePackedNatives(dir: string, options: UnpackOptions = {}): UnpackResult[] {
  const manifest = readPackedManifest(join(dir, PACKED_MANIFEST));
  if (!manifest) return [];
  return unpackPackedNatives(dirname(dir), manifest, options);
}
