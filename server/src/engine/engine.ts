/**
 * The engine facade: the one API every door (CLI, LSP, MCP, HTTP) calls.
 *
 *   const engine = await Engine.open(root);
 *   await engine.index();               // incremental; { full: true } rebuilds
 *   const res = await engine.search('parse config', { limit: 10 });
 *   await engine.close();
 *
 * The on-disk index lives in `<root>/.quarry/` (it ignores itself for git) and is a cache: damaged or
 * outdated parts are detected on open and rebuilt by the next `index()`.
 */
import { existsSync, readFileSync, statSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { QuarryConfig } from './config/schema';
import { loadConfig } from './config/load';
import { ChunkStore, quarantineVectorTable, STORE_SCHEMA_VERSION } from './store/chunkStore';
import { VectorTableDamagedError } from './store/vectorStore';
import { generationDir, nextGenerationName, pointerStamp, removeGeneration, resolveGeneration, sweepGenerations, vectorDir, writePointer, type Generation } from './store/generations';
import { LexicalIndex } from './store/lexical/lexicalIndex';
import { IndexOptions, IndexSummary, runIndex } from './indexer/indexer';
import { refreshGitMetadata, type GitRefreshSummary } from './indexer/gitMetadata';
import { acquireIndexLock, IndexLockedError, markLockRebuild, readLock, LockInfo } from './indexer/lock';
import { environmentCause } from './store/storeErrors';
import { lockHeldByThisProcess } from './indexer/owner';
import { LEXICAL_ANALYZER, lexicalDocForChunk } from './indexer/lexicalDoc';
import type { DenseChannel } from './retrieval/hybrid';
import { matchSymbols, SymbolEntry, SymbolHit } from './symbols';
import { buildHealthReport, HealthReport, IndexingState } from './health';
import { RollingLatency } from './metrics';
import { traced } from './log';
import { tally } from './counts';
import { WriteQueue } from './store/writeQueue';
import { chunkFile } from './chunking';
import { CHUNKER_VERSION } from './chunking/version';
import { languageDefinition } from './chunking/languages/registry';
import { createHash } from 'node:crypto';
import type { EmbeddingProvider, Reranker } from './embedding/types';
import { createEmbeddingProvider, createReranker } from './embedding/registry';
import { backfillEmbeddings, EmbedProgress, EmbedSummary } from './indexer/embedder';
import { CheckpointWriter, readCheckpoint, resumeDecision } from './indexer/checkpoint';
import { chunkView } from './embedding/viewFor';
import type { FindCodeResponseSummary } from './api/results';
import { runSearch, type SearchRequest } from './search/search';
import { languageForPath } from './languages';
import { PatternLog, PATTERNS_PATH, type Pattern, type PatternInput } from './memory/patterns';
import { AccessLog } from './memory/activation';
import { activationFacts, resolveAccessRefs } from './memory/access';
import type { ActivationFacts } from './ranking/candidate';
import { closeLater, openIndex, openPendingGeneration, prepareIndexDir, readStateIn, writeStateIn, type EngineState, type OpenedIndex } from './openIndex';

export interface EngineOpenOptions {
  /** Use this configuration instead of loading `.quarry/config.yml`. */
  config?: QuarryConfig;
  /**
   * The embedding provider of the dense channel; null for BM25 only; undefined = from the configuration
   * (`embedding.provider`, `auto` by default — see embedding/registry.ts).
   */
  embedding?: EmbeddingProvider | null;
  /** The reranker; null for none; undefined = from the configuration (`rerank.provider`). */
  reranker?: Reranker | null;
  /**
   * A long-running door (the language server, the MCP server, `quarry serve`): from the first search or the warm-up
   * on, the store keeps in-memory read snapshots of its chunk and git tables (store/tableSnapshot.ts) — warm
   * searches read no chunk rows from LanceDB but their content. One-shot commands leave it off (loading costs a scan).
   */
  longRunning?: boolean;
}

export interface EngineIndexOptions extends IndexOptions {
  /** Skip the dense phase (embeddings) in this run. */
  lexicalOnly?: boolean;
  /** Leave the git metadata as it is in this run (no git pass; the next run catches up through HEAD). */
  skipGit?: boolean;
  onEmbedProgress?: (p: EmbedProgress) => void;
}

export interface EngineIndexSummary extends IndexSummary {
  embedding?: EmbedSummary;
  /** Set when this run rebuilt everything on its own (and why). */
  rebuiltBecause?: string;
  /** Set when this run continued an interrupted one (FR-034). */
  resumed?: string;
  /** The git metadata pass (seed 003 FR-5.3/5.4). */
  git?: GitRefreshSummary;
}

export interface IndexStatus {
  root: string;
  indexDir: string;
  exists: boolean;
  files: number;
  chunks: number;
  conformances: number;
  chunksByKind: Record<string, number>;
  chunksByLanguage: Record<string, number>;
  lastIndexed: string | null;
  lastDurationMs: number | null;
  indexSizeBytes: number;
  indexing: LockInfo | null;
  /** Problems found when opening the index (it will be rebuilt by the next index run). */
  problems: string[];
  /**
   * Things worth knowing that leave the answers whole (a full rebuild that was interrupted: the index answers from the
   * previous complete build).
   */
  notes: string[];
}

/** What a pattern change did: the pattern as it now is, and whether the index already has it. */
export interface PatternChange {
  pattern: Pattern;
  indexed: boolean;
  note?: string;
}

/** A used result: its chunk id, or a path (workspace-relative or absolute) and a 1-based line. */
export interface AccessRef {
  chunkId?: string;
  path?: string;
  line?: number;
}

import { EngineError } from './engineError';
import { releaseIndexingMemos, RELEASE_AFTER_CHUNKS } from './indexingMemos';

export { EngineError };

export class Engine {
  private problems: string[] = [];
  private notes: string[] = [];
  /** Problems of the providers built from configuration (kept when the index is reopened). */
  private providerProblems: string[] = [];
  /** current.json's stamp when this engine last looked (see followGeneration). */
  private seenPointer = '';
  private embedding: EmbeddingProvider | null = null;
  private reranker: Reranker | null = null;
  /** Providers the engine built from configuration (and so closes); injected ones belong to the caller. */
  private owned: Array<{ close(): Promise<void> }> = [];
  /** Index runs, file updates and buffer overlays, one at a time. */
  private readonly writes = new WriteQueue();
  private symbolTable?: Promise<SymbolEntry[]>;
  private readonly openedAt = Date.now();
  private readonly queryLatency = new RollingLatency(100);
  private readonly resultsReturned = new RollingLatency(100);
  private readonly vectorStoreLatency = new RollingLatency(100);
  private readonly embeddingLatency = new RollingLatency(100);
  private readonly intentCounts: Record<string, number> = {};
  private readonly indexTotals = { chunks: 0, errors: 0, lastDurationSeconds: null as number | null };
  private indexing: IndexingState = { state: 'idle', filesDiscovered: 0, filesToProcess: 0, filesProcessed: 0, chunksCreated: 0, errors: 0, currentFile: null, startedAt: null };

  private constructor(
    readonly root: string,
    readonly quarryDir: string,
    readonly config: QuarryConfig,
    private store: ChunkStore,
    private lexical: LexicalIndex,
    /** The generation of the index this engine reads (store/generations.ts). */
    private generation: Generation,
  ) {}

  static async open(rootPath: string, options: EngineOpenOptions = {}): Promise<Engine> {
    const root = resolve(rootPath);
    let st;
    try {
      st = statSync(root);
    } catch {
      throw new EngineError(`Project directory ${root} does not exist. Pass an existing folder with --project.`);
    }
    if (!st.isDirectory()) throw new EngineError(`Project path ${root} is not a directory. Pass a folder with --project.`);
    const config = options.config ?? loadConfig(root).config;
    const quarryDir = join(root, '.quarry');
    // Nothing here may fail on a read-only or full disk when an index is already there: reading needs no writes.
    prepareIndexDir(quarryDir);
    const opened = await openIndex(quarryDir);
    const engine = new Engine(root, quarryDir, config, opened.store, opened.lexical, opened.generation);
    engine.seenPointer = opened.stamp;
    engine.notes = opened.notes;
    engine.longRunning = options.longRunning === true;
    const providerProblems: string[] = [];
    if (options.embedding !== undefined) engine.embedding = options.embedding;
    else if ((engine.embedding = await fromConfig('embedding provider', providerProblems, () => createEmbeddingProvider(config.embedding, { workspaceDir: root })))) engine.owned.push(engine.embedding);
    if (options.reranker !== undefined) engine.reranker = options.reranker;
    else if ((engine.reranker = await fromConfig('reranker', providerProblems, () => createReranker(config.rerank, { workspaceDir: root })))) engine.owned.push(engine.reranker);
    engine.providerProblems = providerProblems;
    engine.problems = [...opened.problems, ...providerProblems];
    await engine.afterOpen(opened);
    return engine;
  }

  /** After a generation was opened: the lexical index rebuilt when it was reset, the vector table verified. */
  private async afterOpen(opened: OpenedIndex): Promise<void> {
    if (opened.lexicalReset) await this.tryRepairLexical();
    await this.verifyVectors();
  }

  /** True when an index has been built here at least once. */
  get hasIndex(): boolean {
    return existsSync(join(this.generation.dir, 'state.json'));
  }

  /**
   * Indexes the workspace (incremental unless `full`). Takes the workspace lock: a second indexer gets
   * IndexLockedError. Also repairs a lexical index that disagrees with the chunk store.
   */
  async index(options: EngineIndexOptions = {}): Promise<EngineIndexSummary> {
    return this.writes.run(() =>
      traced('indexer', options.paths ? 'update_files' : 'index_run', { root: this.root, full: !!options.full, paths: options.paths?.length }, () => this.indexNow(options)),
    );
  }

  private async indexNow(options: EngineIndexOptions): Promise<EngineIndexSummary> {
    this.symbolTable = undefined;
    const release = acquireIndexLock(this.quarryDir, { rebuild: !!options.full && !options.paths });
    this.indexing = { state: 'indexing', filesDiscovered: 0, filesToProcess: 0, filesProcessed: 0, chunksCreated: 0, errors: 0, currentFile: null, startedAt: Date.now() };
    const userProgress = options.onProgress;
    options = {
      ...options,
      onProgress: (p) => {
        Object.assign(this.indexing, { filesDiscovered: p.filesDiscovered, filesToProcess: p.filesToProcess, filesProcessed: p.filesProcessed, chunksCreated: p.chunksCreated, currentFile: p.currentFile ?? null });
        userProgress?.(p);
      },
    };
    try {
      const summary = await this.indexLocked(options);
      this.indexing = { ...this.indexing, state: 'idle', errors: summary.errors.length, currentFile: null };
      this.indexTotals.chunks += summary.chunksCreated;
      this.indexTotals.errors += summary.errors.length;
      if (!options.paths) this.indexTotals.lastDurationSeconds = Math.round(summary.durationMs / 100) / 10;
      // what a large run taught the tokenizer and the code model per word is not what searches need (indexingMemos.ts)
      if (summary.chunksCreated + (summary.embedding?.embedded ?? 0) >= RELEASE_AFTER_CHUNKS) releaseIndexingMemos();
      return summary;
    } catch (e) {
      this.indexing = { ...this.indexing, state: 'error', lastError: (e as Error).message, currentFile: null };
      throw e;
    } finally {
      release();
    }
  }

  /**
   * One index run under the workspace lock: lexical phase, state, then the dense and git phases. A full rebuild (asked
   * for, or forced by changed settings or a stale checkpoint) writes a new generation beside the current one, which
   * keeps answering — here and in every other process — until the new one is complete; then one atomic step (the
   * pointer current.json) switches to it and the old one is removed (store/generations.ts). A rebuild that was
   * interrupted is resumed in its own generation by the next run; any other generation left behind is removed.
   */
  private async indexLocked(options: EngineIndexOptions): Promise<EngineIndexSummary> {
    // another process may have switched generations since this one opened the index: write to the current one
    await this.syncGeneration();
    const settingsHash = this.settingsHash();
    const before = this.readState();
    let rebuiltBecause: string | undefined;
    let resumed: string | undefined;
    if (before?.settingsHash && before.settingsHash !== settingsHash && !options.full && !options.paths) {
      // Discovery or chunking settings changed: every file would chunk differently, so rebuild (the index is a cache).
      options = { ...options, full: true };
      rebuiltBecause = 'the discovery or chunking settings changed since the last run';
    }
    let checkpoint: CheckpointWriter | undefined;
    /** The generation a full rebuild writes (undefined: the run updates the current generation in place). */
    let pending: OpenedIndex | undefined;
    if (!options.paths) {
      let saved = readCheckpoint(this.quarryDir);
      // a rebuild whose generation is current switched; only its checkpoint's removal was missed
      if (saved?.generation !== undefined && saved.generation === this.generation.name) saved = undefined;
      const decision = resumeDecision(saved, settingsHash);
      if (decision.action === 'reindex' && !options.full) {
        options = { ...options, full: true };
        rebuiltBecause = decision.reason;
      } else if (decision.action === 'resume' && !options.full) {
        resumed = decision.reason;
      }
      const resumeGeneration =
        decision.action === 'resume' && !options.full && saved?.generation && existsSync(generationDir(this.quarryDir, saved.generation)) ? saved.generation : undefined;
      // abandoned partial generations (and an old one whose removal failed) go; a rebuild to resume stays
      sweepGenerations(this.quarryDir, resumeGeneration ? [this.generation.name, resumeGeneration] : [this.generation.name]);
      if (options.full || resumeGeneration) {
        const name = resumeGeneration ?? nextGenerationName(this.quarryDir, this.generation.name);
        if (resumeGeneration) resumed = `resuming an interrupted full rebuild (generation ${name}; the previous build answers until it completes)`;
        // the checkpoint names the generation before its folder exists: a kill leaves nothing unnamed
        checkpoint = new CheckpointWriter(this.quarryDir, this.root, settingsHash, undefined, name);
        markLockRebuild(this.quarryDir);
        try {
          pending = await openPendingGeneration(this.quarryDir, name);
        } catch (e) {
          // nothing was written to it yet (a full disk, most likely): leave nothing behind
          removeGeneration(this.quarryDir, name);
          checkpoint.complete();
          throw e;
        }
        options = { ...options, full: true };
      } else {
        checkpoint = new CheckpointWriter(this.quarryDir, this.root, settingsHash);
      }
      options = { ...options, checkpoint };
    }
    try {
      const summary = await this.runPhases(options, pending, settingsHash, checkpoint);
      if (rebuiltBecause) summary.rebuiltBecause = rebuiltBecause;
      if (resumed) summary.resumed = resumed;
      if (!options.signal?.aborted) {
        if (pending) this.switchTo(pending);
        checkpoint?.complete();
        this.problems = [];
        this.notes = [];
      }
      return summary;
    } catch (e) {
      // a rebuild that ran out of disk space gives the space back at once: its partial generation goes (the current one
      // answers as before; the error names the cause)
      const cause = environmentCause(e);
      if (pending && this.generation !== pending.generation && (cause === 'ENOSPC' || cause === 'EDQUOT')) {
        await pending.store.close().catch(() => undefined);
        removeGeneration(this.quarryDir, pending.generation.name);
        checkpoint?.complete();
      }
      throw e;
    } finally {
      // an interrupted or failed rebuild leaves its generation for the next run (which resumes or removes it)
      if (pending && this.generation !== pending.generation) await pending.store.close().catch(() => undefined);
    }
  }

  /** The lexical, dense and git phases of a run, into the current generation or into `pending` (a full rebuild). */
  private async runPhases(options: EngineIndexOptions, pending: OpenedIndex | undefined, settingsHash: string, checkpoint: CheckpointWriter | undefined): Promise<EngineIndexSummary> {
    const store = pending?.store ?? this.store;
    const lexical = pending?.lexical ?? this.lexical;
    const dir = pending?.generation.dir ?? this.generation.dir;
    if (!pending) await this.repairLexical();
    const replaced = new Set<string>();
    const summary: EngineIndexSummary = await runIndex(
      { root: this.root, config: this.config, store, lexical },
      // a new generation starts empty (a resumed one goes on from what it committed): nothing to clear
      { ...options, full: pending ? false : options.full, onReplaced: (paths) => paths.forEach((p) => replaced.add(p)) },
    );
    const previous = readStateIn(dir);
    const state: EngineState = { ...previous, lastIndexed: new Date().toISOString(), lastDurationMs: summary.durationMs, generation: 0, settingsHash };
    // Until the git pass below completes, the next run must not trust the rows (a killed run leaves this false).
    state.gitClean = false;
    // An interrupted run keeps its checkpoint (the next start resumes); a complete one removes it — at the very end,
    // after the dense and git phases: a run killed in them left answers that are not the clean index's either.
    if (options.signal?.aborted) checkpoint?.write();
    writeStateIn(dir, state);
    // Dense phase: the lexical index is already committed and searchable.
    if (this.embedding && !options.lexicalOnly && !options.signal?.aborted) {
      const provider = this.embedding;
      summary.embedding = await this.embed(store, provider, options, summary.warnings);
      const e = summary.embedding;
      if (e.warning) summary.warnings.push(e.warning);
      state.embeddings = {
        ...state.embeddings,
        [provider.id]: { distinct: e.cached + e.missing, remaining: e.missing - e.embedded, at: new Date().toISOString() },
      };
      writeStateIn(dir, state);
    }
    // Git history per chunk (seed 003 FR-5.3/5.4, §6.4): computed last, after the lexical index and the vectors are
    // committed (they are what search needs first), never during search; a failing git never fails the run. A full
    // rebuild cleared the rows, so the previous HEAD no longer says what is up to date.
    if (!options.signal?.aborted && !options.skipGit) {
      try {
        const git = await refreshGitMetadata(store, this.root, {
          paths: [...replaced], previousHead: options.full ? undefined : previous?.gitHead, signal: options.signal, config: this.config.git,
          quick: !options.full && previous?.gitClean === true,
        });
        summary.git = git;
        state.gitHead = git.head;
        state.gitClean = !git.aborted && !git.disabled;
        summary.warnings.push(...git.warnings);
      } catch (e) {
        summary.warnings.push(`Git metadata was not updated: ${(e as Error).message}`);
      }
    }
    writeStateIn(dir, state);
    return summary;
  }

  /**
   * The dense phase. A vector table found damaged on open (the model's table is shared by every generation) is
   * quarantined — this run holds the index lock — and every chunk is embedded again.
   */
  private async embed(store: ChunkStore, provider: EmbeddingProvider, options: EngineIndexOptions, warnings: string[]): Promise<EmbedSummary> {
    const run = () => backfillEmbeddings(store, provider, (c) => chunkView(c, provider), { signal: options.signal, onProgress: options.onEmbedProgress });
    try {
      return await run();
    } catch (e) {
      if (!(e instanceof VectorTableDamagedError)) throw e;
      const moved = quarantineVectorTable(this.quarryDir, vectorDir(this.quarryDir), e.tableName);
      for (const s of new Set([store, this.store])) s.forgetVectors(provider.id, provider.dims);
      warnings.push(`${e.message}; it was moved to ${moved} and the code was embedded again.`);
      return run();
    }
  }

  /**
   * The switch to a complete new generation: current.json names it (one atomic rename); this engine reads it from now
   * on and the previous generation is removed (a reader in another process that still had it open finds the switch
   * on its next search, or when a read of the removed files fails, and reopens).
   */
  private switchTo(next: OpenedIndex): void {
    writePointer(this.quarryDir, next.generation.name);
    const old = { store: this.store, name: this.generation.name };
    this.adopt(next);
    this.seenPointer = pointerStamp(this.quarryDir);
    closeLater(old.store);
    removeGeneration(this.quarryDir, old.name);
  }

  /** Reads `opened` from now on (the store of the previous generation is closed by the caller). */
  private adopt(opened: OpenedIndex): void {
    this.store = opened.store;
    // a new generation's store keeps its own snapshots (the old store's go with it)
    if (this.snapshots) this.snapshots = this.store.keepReadSnapshots().catch(() => undefined);
    this.lexical = opened.lexical;
    this.generation = opened.generation;
    this.seenPointer = opened.stamp;
    this.symbolTable = undefined;
    this.manifestStamp = '';
    this.problems = [...opened.problems, ...this.providerProblems];
    this.notes = opened.notes;
  }

  /**
   * Under the index lock, before writing: another process may have switched to a new generation since this engine
   * opened its own (write to the current one), and a pointer found missing or unreadable is rewritten.
   */
  private async syncGeneration(): Promise<void> {
    const { generation, problem } = resolveGeneration(this.quarryDir, readCheckpoint(this.quarryDir)?.generation);
    if (generation.name !== this.generation.name) {
      const old = this.store;
      const opened = await openIndex(this.quarryDir);
      this.adopt(opened);
      closeLater(old);
      await this.afterOpen(opened);
    }
    if (problem) writePointer(this.quarryDir, this.generation.name);
  }

  /**
   * Re-indexes just these workspace-relative paths (changed, created or deleted on disk): file-watch events and
   * saves. Much cheaper than a run over the workspace; the dense phase embeds what changed.
   */
  async updateFiles(paths: string[], options: EngineIndexOptions = {}): Promise<EngineIndexSummary> {
    const rel = [...new Set(paths.map((p) => toRelative(this.root, p)))].filter((p): p is string => p !== undefined);
    return this.index({ ...options, paths: rel });
  }

  /**
   * Makes an editor's unsaved buffer searchable: its text replaces the file's chunks until the buffer is saved or
   * closed (`null`), when the file on disk counts again. The file record is marked stale so that the next run
   * re-reads the disk version.
   */
  async setBuffer(path: string, text: string | null): Promise<void> {
    const rel = toRelative(this.root, path);
    if (rel === undefined) return;
    if (text === null) {
      await this.updateFiles([rel]);
      return;
    }
    const lang = languageForPath(rel, this.config.discovery.extraExtensions);
    if (!lang) return;
    await this.writes.run(async () => {
      this.symbolTable = undefined;
      const release = acquireIndexLock(this.quarryDir);
      try {
        const chunks = await chunkFile({ path: rel, language: lang.id, content: text }, this.config.chunking);
        // the chunk tables, the file record and the lexical index are independent writes: side by side, so that a
        // search waiting for this buffer (the language server's flush) waits for the slowest, not their sum
        this.lexical.removePaths([rel]);
        this.lexical.add(chunks.map(lexicalDocForChunk));
        await Promise.all([
          this.store.replacePaths([rel], chunks, [
            { path: rel, size: -1, mtimeMs: 0, hash: `buffer:${createHash('sha256').update(text).digest('hex')}`, language: lang.id, chunkCount: chunks.length, indexedAt: Date.now() },
          ]),
          this.lexical.commit(),
        ]);
        // a buffer may change what its language derives (a Go buffer adds or drops methods): the rows follow (best effort)
        const derived = languageDefinition(lang.id)?.derivedConformances;
        if (derived) await derived.refresh(this.store).catch(() => undefined);
      } finally {
        release();
      }
    });
  }

  /** Languages whose chunking `prepareEditing` has already loaded in this process. */
  private static readonly editingPrepared = new Set<string>();

  /**
   * Loads what the first `setBuffer` of this file's language would otherwise pay for — its tree-sitter grammar and
   * the BPE tables that size chunks (about 0.7 s on 2 cores, most of a first edit's time) — by chunking the text as
   * opened, without writing anything. Once per language and process; the language server calls it when an editor
   * opens a file it owns, so that the first keystrokes are searchable as fast as the next ones. Returns what it
   * loaded, or undefined when there was nothing to load (not a known language, or prepared before).
   */
  async prepareEditing(path: string, text: string): Promise<{ language: string; ms: number } | undefined> {
    const rel = toRelative(this.root, path);
    const lang = rel === undefined ? undefined : languageForPath(rel, this.config.discovery.extraExtensions);
    if (!lang || Engine.editingPrepared.has(lang.id)) return undefined;
    Engine.editingPrepared.add(lang.id);
    const t0 = performance.now();
    await chunkFile({ path: rel!, language: lang.id, content: text }, this.config.chunking);
    return { language: lang.id, ms: Math.round(performance.now() - t0) };
  }

  // ── Memory: reasoning patterns (seed 003 FR-4) and activation (accesses) ──────────────────────────────────

  private patternLogCache?: PatternLog;
  private accessLogCache?: AccessLog;
  private get patternLog(): PatternLog {
    return (this.patternLogCache ??= new PatternLog(this.root));
  }
  private get accessLog(): AccessLog {
    return (this.accessLogCache ??= new AccessLog(this.root));
  }

  /** The recorded reasoning patterns (searchable or not), oldest first. */
  patterns(): Pattern[] {
    return this.patternLog.list();
  }

  /**
   * Records a reasoning pattern (or revises the one with the same id) and makes it searchable at once when its
   * success score is at least 0.5. The pattern is saved even when indexing it now is not possible (another process
   * holds the index lock, or `index: false`): the next index run reads the log.
   */
  async recordPattern(input: PatternInput, options: { index?: boolean } = {}): Promise<PatternChange> {
    const pattern = this.patternLog.record(input);
    return { pattern, ...(await this.indexPatterns(options.index !== false)) };
  }

  /** A reuse of a pattern (`succeeded` moves its success score); re-indexes the pattern log. */
  async reportPatternUse(id: string, succeeded?: boolean, options: { index?: boolean } = {}): Promise<PatternChange> {
    const pattern = this.patternLog.reportUse(id, succeeded);
    return { pattern, ...(await this.indexPatterns(options.index !== false)) };
  }

  /** Removes a pattern; false when there is none with that id. */
  async forgetPattern(id: string, options: { index?: boolean } = {}): Promise<boolean> {
    if (!this.patternLog.forget(id)) return false;
    await this.indexPatterns(options.index !== false);
    return true;
  }

  private async indexPatterns(index: boolean): Promise<{ indexed: boolean; note?: string }> {
    if (!index) return { indexed: false, note: 'saved; the process that owns this index picks it up on its next update' };
    // No index yet: indexing the log alone would make an index of just the patterns (and `search` would then skip
    // building the real one); the first full run reads it with everything else.
    if (!this.hasIndex) {
      if (this.indexing.state === 'indexing') {
        // this process is building the first index: index the log right after it (the write queue keeps the order)
        void this.updateFiles([PATTERNS_PATH]).catch(() => undefined);
        return { indexed: false, note: 'saved; indexed as soon as the first index run of this workspace finishes' };
      }
      return { indexed: false, note: 'saved; the workspace has no index yet, so the first `quarry index` (or search) indexes it with the code' };
    }
    try {
      await this.updateFiles([PATTERNS_PATH]);
      return { indexed: true };
    } catch (e) {
      if (e instanceof IndexLockedError) return { indexed: false, note: `saved; not searchable yet because another process is indexing (${e.message}) — the next index run picks it up` };
      throw e;
    }
  }

  /**
   * Records that results were used (opened from the editor, read by an agent): the chunks' activation rises.
   * References are chunk ids, or a workspace path and a 1-based line (the innermost chunk containing it).
   */
  async recordAccess(refs: AccessRef[], source: string): Promise<{ recorded: string[]; unknown: string[] }> {
    const resolved = refs.map((r) => ({
      chunkId: r.chunkId,
      rel: r.path === undefined ? undefined : toRelative(this.root, r.path),
      line: r.line,
      label: `${r.path ?? '?'}:${r.line ?? '?'}`,
    }));
    const { ids, unknown } = await resolveAccessRefs(this.store, resolved);
    if (ids.length) this.accessLog.record(ids, source);
    return { recorded: ids, unknown };
  }

  /** Activation evidence of chunks (memory/access.ts). */
  private activationFacts(ids: readonly string[]): Promise<Map<string, ActivationFacts>> {
    return activationFacts(this.store, this.accessLog, ids);
  }

  /** Stat of the lexical manifest when followCommits last looked. */
  private manifestStamp = '';

  /**
   * Readers see new writes: when another process (the workspace's index owner, see indexer/owner.ts) committed to
   * the lexical index since this one loaded it, reopen it and forget the symbol table (LanceDB readers see committed
   * writes by themselves); when a full rebuild switched to a new generation, open that one. Two stats when nothing
   * changed; never while this process is writing.
   */
  private async followCommits(): Promise<void> {
    await this.followGeneration();
    const manifest = join(this.generation.dir, 'lexical', 'manifest.json');
    let stamp: string;
    try {
      const st = statSync(manifest);
      stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      return;
    }
    if (stamp === this.manifestStamp || lockHeldByThisProcess(this.quarryDir)) return;
    try {
      const generation = (JSON.parse(readFileSync(manifest, 'utf8')) as { generation?: unknown }).generation;
      if (generation !== this.lexical.committedGeneration) {
        this.lexical = LexicalIndex.open(join(this.generation.dir, 'lexical'), LEXICAL_ANALYZER);
        this.symbolTable = undefined;
      }
      this.manifestStamp = stamp;
    } catch {
      /* mid-rewrite, or written by another tokenizer: keep the loaded index, look again next time */
    }
  }

  private reopening?: Promise<boolean>;

  /**
   * When current.json names another generation than the one this engine reads (a full rebuild in another process
   * switched), open that one and read it from now on; true when it did. One stat when nothing changed; never while
   * this process is writing (its own rebuild switches by itself).
   */
  private async followGeneration(): Promise<boolean> {
    if (pointerStamp(this.quarryDir) === this.seenPointer || lockHeldByThisProcess(this.quarryDir)) return false;
    return (this.reopening ??= this.reopenGeneration().finally(() => (this.reopening = undefined)));
  }

  private async reopenGeneration(): Promise<boolean> {
    const stamp = pointerStamp(this.quarryDir);
    const { generation } = resolveGeneration(this.quarryDir, readCheckpoint(this.quarryDir)?.generation);
    if (generation.name === this.generation.name) {
      this.seenPointer = stamp;
      return false;
    }
    const old = this.store;
    const opened = await openIndex(this.quarryDir);
    this.adopt(opened);
    closeLater(old);
    await this.afterOpen(opened);
    return true;
  }

  /** Workspace symbols matching a query: exact > prefix > camel-hump > fuzzy (LSP workspace/symbol). */
  async symbols(query: string, limit = 100): Promise<SymbolHit[]> {
    await this.followCommits();
    this.symbolTable ??= this.store.symbolEntries();
    return matchSymbols(await this.symbolTable, query, limit);
  }

  /** Hash of what decides the index's content: discovery and chunking settings and the formats' versions. */
  private settingsHash(): string {
    const shape = { discovery: this.config.discovery, chunking: this.config.chunking, chunker: CHUNKER_VERSION, store: STORE_SCHEMA_VERSION, lexical: LEXICAL_ANALYZER };
    return 'sha256:' + createHash('sha256').update(JSON.stringify(shape)).digest('hex');
  }

  private readState(): EngineState | undefined {
    return readStateIn(this.generation.dir);
  }

  /** The dense channel for searches, when a provider is set and vectors exist for its model. */
  private async denseChannel(warnings: string[]): Promise<DenseChannel | undefined> {
    const provider = this.embedding;
    if (!provider || this.config.retrieval.fusion === 'lexical') return undefined;
    const cov = this.readState()?.embeddings?.[provider.id];
    if (!cov) {
      warnings.push(`Semantic search is not available yet: nothing is embedded with ${provider.id}. Run \`quarry index\` to embed the code.`);
      return undefined;
    }
    // the model's vector table was found damaged (this engine's problems, and so the answer's warnings, say so)
    if (cov.lost) {
      if (!warnings.includes(cov.lost)) warnings.push(cov.lost);
      return undefined;
    }
    let vectors;
    try {
      vectors = await this.store.vectors(provider.id, provider.dims);
    } catch (e) {
      if (!(e instanceof VectorTableDamagedError)) throw e;
      warnings.push(this.vectorsDamaged(e));
      return undefined;
    }
    return { provider, vectors, coverage: cov.distinct ? 1 - cov.remaining / cov.distinct : 1 };
  }

  /**
   * Verifies the vector table of the configured model when the index says it holds vectors (on open, as the chunk
   * tables are): a damaged one is quarantined and reported (search is keyword-only until `quarry index` re-embeds).
   */
  private async verifyVectors(): Promise<void> {
    const provider = this.embedding;
    if (!provider || this.config.retrieval.fusion === 'lexical') return;
    const cov = this.readState()?.embeddings?.[provider.id];
    if (!cov) return;
    if (cov.lost) {
      if (!this.problems.includes(cov.lost)) this.problems.push(cov.lost);
      return;
    }
    try {
      await this.store.vectors(provider.id, provider.dims);
    } catch (e) {
      // the environment (disk, permissions) is reported by the search that needs the table, as before
      if (e instanceof VectorTableDamagedError) this.vectorsDamaged(e);
    }
  }

  /**
   * A vector table proven damaged: moved to the quarantine under the index lock (unless someone is writing the index:
   * its dense phase finds the damage too) and recorded in state.json, so that every process says so until the next
   * dense phase embeds again. Returns the problem, which this engine reports from now on.
   */
  private vectorsDamaged(e: VectorTableDamagedError): string {
    const off = 'semantic search is off (keyword search only) until `quarry index` embeds the code again';
    let problem: string;
    let release: (() => void) | undefined;
    try {
      release = lockHeldByThisProcess(this.quarryDir) ? undefined : acquireIndexLock(this.quarryDir);
    } catch {
      release = undefined;
    }
    if (!release) {
      problem = `${e.message}: ${off} (it is left in place while the index is being written)`;
    } else {
      try {
        const moved = quarantineVectorTable(this.quarryDir, vectorDir(this.quarryDir), e.tableName);
        problem = `${e.message}; it was moved to ${moved}: ${off}`;
        const state = this.readState();
        const cov = state?.embeddings?.[e.modelId];
        if (state && cov) {
          state.embeddings![e.modelId] = { ...cov, lost: problem };
          writeStateIn(this.generation.dir, state);
        }
      } catch (qe) {
        problem = `${e.message}: ${off} (it could not be moved to the quarantine: ${(qe as Error).message})`;
      } finally {
        release();
      }
    }
    if (!this.problems.includes(problem)) this.problems.push(problem);
    return problem;
  }

  /**
   * After the lexical index was reset on open (damaged, or built by another tokenizer), rebuilds it from the
   * chunk store at once so searches keep working — unless another process is indexing (it will repair it).
   */
  private async tryRepairLexical(): Promise<void> {
    let release: (() => void) | undefined;
    try {
      release = acquireIndexLock(this.quarryDir);
    } catch (e) {
      // another process is indexing (it repairs it), or the disk is read-only or full: the problem stays reported
      if (e instanceof IndexLockedError || environmentCause(e)) return;
      throw e;
    }
    try {
      // a rebuild switched generations since this engine opened its own: the next search follows it
      if (resolveGeneration(this.quarryDir).generation.name !== this.generation.name) return;
      if (await this.repairLexical()) this.problems = this.problems.map((p) => p.replace(/will be rebuilt from the chunk store$/, 'was rebuilt from the chunk store'));
    } catch (e) {
      if (!environmentCause(e)) throw e;
      this.problems.push(`the lexical index could not be rebuilt now (${(e as Error).message}); \`quarry index\` rebuilds it`);
    } finally {
      release();
    }
  }

  /** Rebuilds the lexical index from the chunk store when their document sets differ. */
  private async repairLexical(): Promise<boolean> {
    const ids = await this.store.allChunkIds();
    const lexIds = this.lexical.allIds();
    if (ids.length === lexIds.length) {
      const set = new Set(ids);
      if (lexIds.every((id) => set.has(id))) return false;
    }
    this.lexical.clear();
    for await (const batch of this.store.allChunks()) this.lexical.add(batch.map(lexicalDocForChunk));
    await this.lexical.commit();
    return true;
  }

  async search(query: string, opts: SearchRequest = {}): Promise<FindCodeResponseSummary> {
    const run = () => traced('searcher', 'hybrid_search', { query, limit: opts.limit }, () => this.searchNow(query, opts), true);
    const generation = this.generation;
    try {
      const res = await run();
      // a switch during the search: its reads of the old generation may have failed inside a channel (the dense one
      // degrades to a warning), so answer again from the new one
      if ((await this.followGeneration().catch(() => false)) || this.generation !== generation) return run();
      return res;
    } catch (e) {
      // a full rebuild switched generations while this search read the old one (removed since): answer from the new one
      if ((await this.followGeneration().catch(() => false)) || this.generation !== generation) return run();
      if (!(await this.reopenLostIndex(e))) throw e;
      return run();
    }
  }

  /**
   * The index folder was removed or damaged under this (long-running) process — the MCP server, the language server:
   * the store it holds now fails with raw Lance errors. Reopen the index as a new process would (a damaged store is
   * quarantined), answer from what is there with a warning, and rebuild it in the background (issue 20). False when
   * the error is something else (the environment: disk, permissions; or no sign of a lost index).
   */
  private async reopenLostIndex(e: unknown): Promise<boolean> {
    if (environmentCause(e) || e instanceof IndexLockedError) return false;
    const gone = !existsSync(join(this.generation.dir, 'lancedb'));
    if (!gone && !/lance/i.test(String((e as Error)?.message ?? e))) return false;
    prepareIndexDir(this.quarryDir);
    const old = this.store;
    const opened = await openIndex(this.quarryDir);
    this.adopt(opened);
    await old.close().catch(() => undefined);
    this.problems = [
      `the index at ${this.quarryDir} was ${gone ? 'removed' : 'damaged'} while this process was running: it was reopened and is being rebuilt — answers are incomplete until that finishes (or run \`quarry index\`)`,
      ...this.problems,
    ];
    void this.index().catch(() => undefined);
    return true;
  }

  private longRunning = false;
  private snapshots?: Promise<void>;

  /**
   * Long-running engines (`EngineOpenOptions.longRunning`): loads the store's read snapshots (once; later searches
   * use them while they are of the tables' live versions). A no-op for one-shot engines.
   */
  keepReadSnapshots(): Promise<void> {
    if (!this.longRunning) return Promise.resolve();
    return (this.snapshots ??= this.store.keepReadSnapshots().catch(() => undefined));
  }

  private async searchNow(query: string, opts: SearchRequest): Promise<FindCodeResponseSummary> {
    await this.followCommits();
    if (this.longRunning && !this.snapshots) void this.keepReadSnapshots();
    const res = await runSearch(
      {
        quarryDir: this.quarryDir, config: this.config, store: this.store, lexical: this.lexical, reranker: this.reranker,
        problems: this.problems, hasIndex: this.hasIndex,
        dense: (warnings) => this.denseChannel(warnings),
        activationFacts: (ids) => this.activationFacts(ids),
        timings: { vectorStore: (ms) => this.vectorStoreLatency.add(ms), embedding: (ms) => this.embeddingLatency.add(ms) },
      },
      query,
      opts,
    );
    this.queryLatency.add(res.execution_time_ms);
    this.resultsReturned.add(res.total_results);
    tally(this.intentCounts, res.query_intent ?? 'NONE');
    return res;
  }

  /** Seed 002 FR-010-Enhanced health: indexing progress, services, statistics. */
  async health(): Promise<HealthReport> {
    let storeUp = true;
    let storeLatency: number | null = null;
    let counts = { chunks: 0, files: 0, conformances: 0 };
    const t0 = performance.now();
    try {
      counts = await this.store.counts();
      storeLatency = Math.round(performance.now() - t0);
    } catch {
      storeUp = false;
    }
    return buildHealthReport({
      storeUp,
      storeLatencyMs: storeLatency,
      counts,
      languages: storeUp ? Object.keys((await this.store.breakdown()).byLanguage).sort() : [],
      embedding: this.embedding ? { id: this.embedding.id, health: this.embedding.health() } : null,
      reranker: this.reranker ? { id: this.reranker.id, health: this.reranker.health() } : null,
      indexing: this.indexing,
      lastIndexed: this.readState()?.lastIndexed ?? null,
      problems: this.problems,
      openedAt: this.openedAt,
      indexSizeBytes: dirSize(this.quarryDir),
      queryLatency: this.queryLatency,
      resultsReturned: this.resultsReturned,
      embeddingLatency: this.embeddingLatency,
      vectorStoreLatency: this.vectorStoreLatency,
      intentCounts: this.intentCounts,
      indexTotals: this.indexTotals,
    });
  }

  async status(): Promise<IndexStatus> {
    await this.followCommits();
    const counts = await this.store.counts();
    const { byKind, byLanguage } = await this.store.breakdown();
    const state = this.readState();
    return {
      root: this.root,
      indexDir: this.quarryDir,
      exists: state !== undefined,
      files: counts.files,
      chunks: counts.chunks,
      conformances: counts.conformances,
      chunksByKind: byKind,
      chunksByLanguage: byLanguage,
      lastIndexed: state?.lastIndexed ?? null,
      lastDurationMs: state?.lastDurationMs ?? null,
      indexSizeBytes: dirSize(this.quarryDir),
      indexing: readLock(this.quarryDir) ?? null,
      problems: [...this.problems],
      notes: [...this.notes],
    };
  }

  /** Closes the store and the providers the engine created (injected providers stay open for their owner). */
  async close(): Promise<void> {
    await this.store.close();
    for (const p of this.owned) await p.close();
  }
}

/** Builds a provider from the configuration; a failure becomes a reported problem and BM25-only search. */
async function fromConfig<T>(what: string, problems: string[], make: () => Promise<T | null>): Promise<T | null> {
  try {
    return await make();
  } catch (e) {
    problems.push(`${what} unavailable (${(e as Error).message}); searching with BM25 only`);
    return null;
  }
}

/** Workspace-relative forward-slash path of an absolute or relative path inside the root; undefined outside. */
function toRelative(root: string, p: string): string | undefined {
  const abs = resolve(root, p);
  const rel = relative(root, abs).split(sep).join('/');
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : undefined;
}


function dirSize(dir: string): number {
  let total = 0;
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        try {
          total += statSync(p).size;
        } catch {
          /* vanished */
        }
      }
    }
  };
  walk(dir);
  return total;
}
