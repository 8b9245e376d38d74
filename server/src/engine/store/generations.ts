/**
 * Index generations (issue 20): a full rebuild writes a new generation beside the current one and switches to it in
 * one atomic step when it is complete, so readers answer from the current generation, in full, until then — and
 * forever after a rebuild that was killed.
 *
 * Layout under `.quarry/`:
 *   current.json                 {"generation": "<name>"}: the generation readers open (written to a temporary file,
 *                                fsynced, renamed over the old one: the switch). Absent: generation 0.
 *   generations/<name>/          one generation: lancedb/ (the chunks, conformances, files and chunk_git tables),
 *                                lexical/ (segments + manifest), state.json, store.json
 *   lancedb/vectors_*.lance      the vector tables: the embedding cache, keyed by content hash, shared by every
 *                                generation (a rebuild reuses every vector it can)
 *   generation 0                 the layout of indexes before generations, and of every index until its first full
 *                                rebuild: lancedb/ (its four tables beside the vector tables), lexical/, state.json and
 *                                store.json directly under `.quarry/`
 *   index.lock, index_checkpoint.json (names the generation a full rebuild is writing), owner.json, skipped.json,
 *   config.yml, memory/, logs/, quarantine/: not part of any generation.
 *
 * Only the index writer (under `index.lock`) creates, switches or removes generations. A generation other than the
 * current one — an abandoned partial rebuild, or the previous generation when its removal right after a switch failed —
 * is removed by the next index run. Readers (other processes, long-running doors) look at current.json (one stat per
 * search) and reopen when it names another generation; a reader whose generation was removed under it finds the
 * switch the same way and answers again from the current one.
 */
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export const POINTER_FILE = 'current.json';
export const GENERATIONS_DIR = 'generations';
/** The name of generation 0 (the layout directly under `.quarry/`). */
export const GENERATION_ZERO = '';
/** What a generation holds besides its LanceDB tables (the same names in every generation, generation 0 included). */
const GENERATION_FILES = ['lexical', 'state.json', 'store.json'];
/** The tables of a generation (the vector tables are shared and are not among them). */
export const GENERATION_TABLES = ['chunks', 'conformances', 'files', 'chunk_git'];

const NAME = /^[0-9]{6,}-[0-9a-f]{6}$/;

export interface Generation {
  /** '' for generation 0. */
  name: string;
  /** The folder holding its lancedb/, lexical/, state.json, store.json (`.quarry/` itself for generation 0). */
  dir: string;
}

export function generationDir(quarryDir: string, name: string): string {
  return name === GENERATION_ZERO ? quarryDir : join(quarryDir, GENERATIONS_DIR, name);
}

/** The folder of the vector tables (shared by every generation). */
export function vectorDir(quarryDir: string): string {
  return join(quarryDir, 'lancedb');
}

export function describeGeneration(name: string): string {
  return name === GENERATION_ZERO ? 'generation 0' : `generation ${name}`;
}

type Pointer = { kind: 'none' } | { kind: 'ok'; name: string } | { kind: 'garbled'; error: string };

export function readPointer(quarryDir: string): Pointer {
  let text: string;
  try {
    text = readFileSync(join(quarryDir, POINTER_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'garbled', error: (e as Error).message };
  }
  try {
    const name = (JSON.parse(text) as { generation?: unknown }).generation;
    if (typeof name === 'string' && NAME.test(name)) return { kind: 'ok', name };
    return { kind: 'garbled', error: 'no generation name' };
  } catch (e) {
    return { kind: 'garbled', error: (e as Error).message };
  }
}

/** A stamp of current.json (inode, size, mtime): a switch renames a new file over it, so the stamp changes. */
export function pointerStamp(quarryDir: string): string {
  try {
    const st = statSync(join(quarryDir, POINTER_FILE));
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return 'none';
  }
}

/** The name current.json gives (generation 0 when it is absent or unreadable: the resolver says more). */
export function pointedName(quarryDir: string): string {
  const p = readPointer(quarryDir);
  return p.kind === 'ok' ? p.name : GENERATION_ZERO;
}

/** Whether generation 0 (the layout directly under `.quarry/`) holds an index or its tables. */
function zeroHasIndex(quarryDir: string): boolean {
  return existsSync(join(quarryDir, 'state.json')) || existsSync(join(quarryDir, 'lancedb', 'chunks.lance'));
}

/** Generation folders (valid names), oldest first. */
export function listGenerations(quarryDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(quarryDir, GENERATIONS_DIR));
  } catch {
    return [];
  }
  return names.filter((n) => NAME.test(n)).sort();
}

/**
 * The generation readers open now. Normally the one current.json names. A pointer that names a missing folder is read
 * again (a switch may have removed the old generation between the read and the look). When current.json is unreadable
 * or names a missing folder — or is missing while generation 0 is empty and a complete generation exists — the newest
 * complete generation (one with a state.json that no interrupted rebuild is still writing) is used, and `problem` says
 * so; the next index run rewrites the pointer.
 */
export function resolveGeneration(quarryDir: string, pending?: string): { generation: Generation; problem?: string } {
  let pointer = readPointer(quarryDir);
  for (let attempt = 0; attempt < 3 && pointer.kind === 'ok'; attempt++) {
    const dir = generationDir(quarryDir, pointer.name);
    if (existsSync(dir)) return { generation: { name: pointer.name, dir } };
    const again = readPointer(quarryDir);
    if (again.kind === 'ok' && again.name === pointer.name) break;
    pointer = again;
  }
  const path = join(quarryDir, POINTER_FILE);
  if (pointer.kind === 'none' && zeroHasIndex(quarryDir)) return { generation: { name: GENERATION_ZERO, dir: quarryDir } };
  const complete = listGenerations(quarryDir).filter((n) => n !== pending && existsSync(join(generationDir(quarryDir, n), 'state.json')));
  const newest = complete[complete.length - 1];
  if (pointer.kind === 'none') {
    if (!newest) return { generation: { name: GENERATION_ZERO, dir: quarryDir } };
    return {
      generation: { name: newest, dir: generationDir(quarryDir, newest) },
      problem: `${path} is missing; the index answers from its newest complete generation (${newest}) — \`quarry index\` rewrites it`,
    };
  }
  const why = pointer.kind === 'garbled' ? `is unreadable (${pointer.error})` : `names generation ${pointer.name}, which is missing`;
  if (!newest) {
    return {
      generation: { name: GENERATION_ZERO, dir: quarryDir },
      problem: `${path} ${why} and no complete generation is left: the index is empty — run \`quarry index\` to rebuild it`,
    };
  }
  return {
    generation: { name: newest, dir: generationDir(quarryDir, newest) },
    problem: `${path} ${why}; the index answers from its newest complete generation (${newest}) — \`quarry index\` rewrites it`,
  };
}

/** A fresh generation name, after every existing one (never reused, so readers can tell generations apart by name). */
export function nextGenerationName(quarryDir: string, current: string): string {
  let seq = 0;
  for (const n of [current, ...listGenerations(quarryDir)]) if (n) seq = Math.max(seq, Number.parseInt(n.split('-')[0]!, 10));
  return `${String(seq + 1).padStart(6, '0')}-${randomBytes(3).toString('hex')}`;
}

/**
 * The switch: current.json names `name` from now on (generation 0: current.json removed). Written to a temporary
 * file, fsynced and renamed over the old pointer (atomic on POSIX and NTFS), then the folder is fsynced (best effort).
 */
export function writePointer(quarryDir: string, name: string): void {
  const path = join(quarryDir, POINTER_FILE);
  if (name === GENERATION_ZERO) {
    rmSync(path, { force: true });
    return;
  }
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, JSON.stringify({ generation: name, switchedAt: new Date().toISOString() }) + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  try {
    const fd = openSync(quarryDir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* not every platform can fsync a folder */
  }
}

/**
 * Removes a generation that is no longer current (best effort: a file held open elsewhere, on Windows, keeps it until
 * the next run). Generation 0 loses its tables, lexical index and state files; the vector tables stay.
 */
export function removeGeneration(quarryDir: string, name: string): void {
  const rm = (p: string) => {
    try {
      rmSync(p, { recursive: true, force: true });
    } catch {
      /* swept by the next index run */
    }
  };
  if (name !== GENERATION_ZERO) {
    rm(generationDir(quarryDir, name));
    return;
  }
  for (const t of GENERATION_TABLES) rm(join(quarryDir, 'lancedb', `${t}.lance`));
  for (const f of GENERATION_FILES) rm(join(quarryDir, f));
}

/**
 * Removes every generation but `keep` (the current one and the one being built): abandoned partial rebuilds, and a
 * previous generation whose removal after its switch did not happen (killed, or files held open). Under the index lock.
 */
export function sweepGenerations(quarryDir: string, keep: readonly string[]): string[] {
  const removed: string[] = [];
  for (const n of listGenerations(quarryDir)) {
    if (keep.includes(n)) continue;
    removeGeneration(quarryDir, n);
    removed.push(n);
  }
  // generation 0's files, once a later generation is current (a switch killed before it removed them)
  if (!keep.includes(GENERATION_ZERO) && readPointer(quarryDir).kind === 'ok' && zeroHasIndex(quarryDir)) {
    removeGeneration(quarryDir, GENERATION_ZERO);
    removed.push(GENERATION_ZERO);
  }
  // stale temporary pointers of killed switches
  try {
    for (const f of readdirSync(quarryDir)) if (f.startsWith(`${POINTER_FILE}.tmp-`)) rmSync(join(quarryDir, f), { force: true });
  } catch {
    /* nothing to sweep */
  }
  return removed;
}
