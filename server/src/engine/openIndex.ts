/**
 * Opening one generation of the index (store/generations.ts) for the engine: the chunk store, the lexical index and
 * what is wrong with them (damaged tables quarantined, a lexical index rebuilt from the store, a state file that
 * cannot be read), the generation's state file (`state.json`), and the `.quarry/` folder itself. The engine decides
 * when to open, switch and close generations (engine.ts on open, indexer/indexRun.ts for a rebuild's switch,
 * facade/follow.ts for another process's); this module knows how.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ChunkStore, GenerationGoneError, quarantineTables } from './store/chunkStore';
import { generationDir, pointerStamp, resolveGeneration, vectorDir, type Generation } from './store/generations';
import { LexicalIndex, LexicalIndexCorruptError } from './store/lexical/lexicalIndex';
import { acquireIndexLock, IndexLockedError, readLock } from './indexer/lock';
import { asEnvironmentError, environmentCause, StoreDamagedError } from './store/storeErrors';
import { LEXICAL_ANALYZER } from './indexer/lexicalDoc';
import { interruptedRun, readCheckpoint } from './indexer/checkpoint';
import { EngineError } from './engineError';

export interface EngineState {
  lastIndexed: string;
  lastDurationMs: number;
  generation: number;
  /** Hash of the settings that shape the index (discovery, chunking, formats); a change means a rebuild. */
  settingsHash?: string;
  /** HEAD when the git metadata was last refreshed (its next pass recomputes what changed since). */
  gitHead?: string;
  /** The last run's git pass completed: the next incremental run may check only the files it re-indexes. */
  gitClean?: boolean;
  /**
   * Dense coverage after the last dense phase, per model id. `lost`: the model's vector table was found damaged and
   * quarantined since (what to tell the user until the next dense phase embeds again).
   */
  embeddings?: Record<string, { distinct: number; remaining: number; at: string; lost?: string }>;
  /**
   * The lexical index's manifest generation at which it was last known to hold exactly the chunk store's documents
   * (`lexicalAgreementKnown`). Removed before anything writes the two, written again once both are written.
   */
  lexicalAgrees?: number;
  /**
   * When the last index run that writes this generation in place began writing (`beginIndexWrites`). A run killed
   * before its dense phase leaves chunks without vectors that `embeddings` does not count: the next run trusts its
   * re-indexed files alone for vectors only when the last dense phase came after this.
   */
  lexicalSince?: string;
}

/** An opened generation of the index: its tables and lexical index, and what opening it found. */
export interface OpenedIndex {
  generation: Generation;
  store: ChunkStore;
  lexical: LexicalIndex;
  lexicalReset: boolean;
  problems: string[];
  notes: string[];
  /** current.json's stamp when the generation was chosen. */
  stamp: string;
}

/** Creates `.quarry/` and its self-ignoring .gitignore when it can; a read-only or full disk is not an error here. */
export function prepareIndexDir(quarryDir: string): void {
  try {
    mkdirSync(quarryDir, { recursive: true });
    // The index folder ignores itself for git.
    const ignoreFile = join(quarryDir, '.gitignore');
    if (!existsSync(ignoreFile)) writeFileSync(ignoreFile, '# Quarry index (a rebuildable cache)\n*\n');
  } catch {
    // Read-only, full or not ours: opening the store reports what it cannot do (reading an existing index still works).
  }
}

/**
 * Opens the generation of the index that current.json names (store/generations.ts): its chunk store, its lexical index
 * and what is wrong with them. A full rebuild in another process may switch generations and remove the old one while
 * this runs: then the new one is opened instead.
 */
export async function openIndex(quarryDir: string): Promise<OpenedIndex> {
  for (let attempt = 0; ; attempt++) {
    const stamp = pointerStamp(quarryDir);
    const problems: string[] = [];
    const { generation, problem } = resolveGeneration(quarryDir, readCheckpoint(quarryDir)?.generation);
    if (problem) problems.push(problem);
    const moved = () => pointerStamp(quarryDir) !== stamp;
    let store: ChunkStore | undefined;
    try {
      store = await openChunkStore(quarryDir, generation, problems, moved);
      const { lexical, lexicalReset } = await openLexical(quarryDir, generation.dir, store, problems);
      await checkStoreAgainstLexical(quarryDir, generation.dir, store, lexical, problems);
      checkStateFile(generation.dir, problems);
      const interrupted = interruptedRun(quarryDir, generation.name);
      if (interrupted.problem) problems.push(interrupted.problem);
      // switched while opening (the folder may be gone, or recreated empty by the lexical index): open the new one
      if (moved() && attempt < 5) throw new GenerationGoneError(generation.dir);
      return { generation, store, lexical, lexicalReset, problems, notes: interrupted.note ? [interrupted.note] : [], stamp };
    } catch (e) {
      await store?.close().catch(() => undefined);
      if (attempt < 5 && (e instanceof GenerationGoneError || moved())) continue;
      throw e;
    }
  }
}

/** Creates (or, resuming an interrupted rebuild, opens) the generation `name` that a full rebuild writes. */
export async function openPendingGeneration(quarryDir: string, name: string): Promise<OpenedIndex> {
  const dir = generationDir(quarryDir, name);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw asEnvironmentError(e, 'creating a new generation of the index', dir);
  }
  const generation = { name, dir };
  const problems: string[] = [];
  const store = await openChunkStore(quarryDir, generation, problems, () => false);
  try {
    const { lexical } = await openLexical(quarryDir, dir, store, problems);
    return { generation, store, lexical, lexicalReset: false, problems, notes: [], stamp: '' };
  } catch (e) {
    await store.close().catch(() => undefined);
    throw e;
  }
}

/** Closes a store that searches in flight may still read (after a switch to another generation), a little later. */
export function closeLater(store: ChunkStore): void {
  setTimeout(() => void store.close().catch(() => undefined), 30_000).unref();
}

export function readStateIn(dir: string): EngineState | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as EngineState;
  } catch {
    return undefined;
  }
}

/** Writes state.json whole or not at all (a temporary file renamed over it: a process killed mid-write leaves the old one). */
export function writeStateIn(dir: string, state: EngineState): void {
  const path = join(dir, 'state.json');
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2));
  renameSync(tmp, path);
}

/**
 * Whether the lexical index and the chunk store of the generation in `dir` are known to hold the same documents: they
 * are written side by side, and only a writer that stopped between the two (a killed process, a failed write) leaves
 * them apart. Before writing, a writer forgets the agreement (`forgetLexicalAgreement`); once both writes are done it
 * records it (`recordLexicalAgreement`). An index run compares every document id of both (`repairLexical`) only when
 * the agreement is not known: at 96k chunks that comparison was 30 ms of every editor save (issue 21), and it grows with
 * the index. (A writer of an older version keeps the stamp it found; one that stopped between its two writes before its
 * first lexical commit is not noticed.)
 */
export function lexicalAgreementKnown(dir: string, lexical: { committedGeneration: number }): boolean {
  return readStateIn(dir)?.lexicalAgrees === lexical.committedGeneration;
}

/** Before writes to the lexical index and the chunk store: the agreement is no longer known. */
export function forgetLexicalAgreement(dir: string): void {
  const state = readStateIn(dir);
  if (state?.lexicalAgrees === undefined) return;
  delete state.lexicalAgrees;
  writeStateIn(dir, state);
}

/**
 * Before an index run writes the generation in place: forgets the lexical agreement and records when the run began
 * writing (`lexicalSince`). Returns the state as it was (undefined: none yet).
 */
export function beginIndexWrites(dir: string): EngineState | undefined {
  const state = readStateIn(dir);
  if (!state) return undefined;
  const next: EngineState = { ...state, lexicalSince: new Date().toISOString() };
  delete next.lexicalAgrees;
  writeStateIn(dir, next);
  return state;
}

/** After both were written (or compared): they agree at the lexical index's current generation. */
export function recordLexicalAgreement(dir: string, lexical: { committedGeneration: number }): void {
  const state = readStateIn(dir);
  if (!state) return; // no state yet: the run that writes it records the agreement
  writeStateIn(dir, { ...state, lexicalAgrees: lexical.committedGeneration });
}

/**
 * Opens a generation's chunk store. Environmental failures (disk full, permissions, read-only, a live lock holder) are
 * thrown as IndexUnavailableError and nothing is touched. Only a store proven damaged (a table that cannot be opened
 * for another reason) is reset — and only under the index lock, never beneath a live indexer, and only while the
 * generation is still the current one (`moved`: a switch removed it, which is no damage).
 */
export async function openChunkStore(quarryDir: string, generation: Generation, problems: string[], moved: () => boolean): Promise<ChunkStore> {
  const dir = generation.dir;
  let damage: StoreDamagedError;
  try {
    // generation 0 is created on first use; any other exists before it is current (a missing one was removed)
    const opened = await ChunkStore.open(dir, { vectorDir: vectorDir(quarryDir), create: generation.name === '' });
    problems.push(...opened.problems);
    if (opened.recreated) problems.push('index format changed; the chunk store was reset and will be rebuilt');
    return opened.store;
  } catch (e) {
    if (e instanceof GenerationGoneError) throw e;
    if (!(e instanceof StoreDamagedError)) throw asEnvironmentError(e, 'opening the index', join(dir, 'lancedb'));
    if (moved()) throw new GenerationGoneError(dir);
    damage = e;
  }
  let release: () => void;
  try {
    release = acquireIndexLock(quarryDir);
  } catch (e) {
    if (e instanceof IndexLockedError) {
      throw new EngineError(`${damage.message}. It was not reset because process ${e.holder.pid} on ${e.holder.host} is writing the index now: run the command again when it has finished.`);
    }
    throw asEnvironmentError(e, 'locking the index to reset its damaged chunk store', quarryDir);
  }
  try {
    if (moved()) throw new GenerationGoneError(dir);
    // Quarantined, not deleted (the vector tables stay for the rebuild).
    const to = quarantineTables(quarryDir, dir);
    // The rest of the index described the old store: without state.json the next search or index run rebuilds it.
    rmSync(join(dir, 'state.json'), { force: true });
    const opened = await ChunkStore.open(dir, { vectorDir: vectorDir(quarryDir) });
    problems.push(`chunk store damaged (${damage.message}); its tables were moved to ${to} and reset — run \`quarry index\` to rebuild it`);
    return opened.store;
  } catch (e) {
    if (e instanceof GenerationGoneError) throw e;
    throw asEnvironmentError(e, 'resetting the damaged chunk store', join(dir, 'lancedb'));
  } finally {
    release();
  }
}

/**
 * Opens the lexical index. A damaged one (checksums, another tokenizer) is reset; a missing one while the chunk store
 * has rows is reported — both are rebuilt from the chunk store when this process may write (`lexicalReset`).
 */
export async function openLexical(quarryDir: string, generationDir: string, store: ChunkStore, problems: string[]): Promise<{ lexical: LexicalIndex; lexicalReset: boolean }> {
  const dir = join(generationDir, 'lexical');
  const manifestMissing = !existsSync(join(dir, 'manifest.json'));
  try {
    const lexical = LexicalIndex.open(dir, LEXICAL_ANALYZER);
    if (manifestMissing && !readLock(quarryDir)) {
      // (while another process is indexing, its first commit may simply not have happened yet)
      const chunks = await store.counts().then((c) => c.chunks, () => 0);
      if (chunks > 0) {
        problems.push(`the lexical index (${join(dir, 'manifest.json')}) is missing while the chunk store holds ${chunks} chunks: keyword search has nothing to search; the lexical index will be rebuilt from the chunk store`);
        return { lexical, lexicalReset: true };
      }
    }
    return { lexical, lexicalReset: false };
  } catch (e) {
    if (!(e instanceof LexicalIndexCorruptError)) throw asEnvironmentError(e, 'opening the lexical index', dir);
    problems.push(`${e.message}; the lexical index will be rebuilt from the chunk store`);
    try {
      rmSync(dir, { recursive: true, force: true });
      return { lexical: LexicalIndex.open(dir, LEXICAL_ANALYZER), lexicalReset: true };
    } catch (re) {
      if (!environmentCause(re)) throw re;
      // Read-only: keep the damaged files; search with an empty keyword index (the problem is reported).
      return { lexical: LexicalIndex.open(join(dir, '.unavailable'), LEXICAL_ANALYZER), lexicalReset: false };
    }
  }
}

/**
 * A chunk store that is empty (deleted, or reset) while the lexical index still holds documents would answer every
 * search with nothing: report it (`quarry index` rebuilds both). Not while another process is writing the index: a
 * full rebuild empties the store before the lexical index catches up.
 */
export async function checkStoreAgainstLexical(quarryDir: string, generationDir: string, store: ChunkStore, lexical: LexicalIndex, problems: string[]): Promise<void> {
  if (lexical.documentCount === 0 || readLock(quarryDir)) return;
  const chunks = await store.counts().then((c) => c.chunks, () => -1);
  if (chunks !== 0) return;
  problems.push(
    `the chunk store (${join(generationDir, 'lancedb')}) is empty while the lexical index holds ${lexical.documentCount} documents, so searches cannot show them — run \`quarry index\` to rebuild the index`,
  );
}

/** A state.json that cannot be read is reported (an index run rewrites it). */
export function checkStateFile(generationDir: string, problems: string[]): void {
  const path = join(generationDir, 'state.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return;
  }
  try {
    const state = JSON.parse(text) as unknown;
    if (!state || typeof state !== 'object' || typeof (state as { lastIndexed?: unknown }).lastIndexed !== 'string') throw new Error('not an index state');
  } catch (e) {
    problems.push(`${path} is unreadable (${(e as Error).message}); the index may be incomplete — \`quarry index\` rewrites it`);
  }
}
