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
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync, statSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { QuarryConfig } from './config/schema';
import { loadConfig } from './config/load';
import { ChunkStore, quarantineTables, STORE_SCHEMA_VERSION } from './store/chunkStore';
import { LexicalIndex, LexicalIndexCorruptError } from './store/lexical/lexicalIndex';
import { IndexOptions, IndexSummary, runIndex } from './indexer/indexer';
import { refreshGitMetadata, type GitRefreshSummary } from './indexer/gitMetadata';
import { acquireIndexLock, IndexLockedError, readLock, LockInfo } from './indexer/lock';
import { asEnvironmentError, environmentCause, StoreDamagedError } from './store/storeErrors';
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
import { CheckpointWriter, interruptedRunProblem, readCheckpoint, resumeDecision } from './indexer/checkpoint';
import { chunkView } from './embedding/viewFor';
import type { FindCodeResponseSummary } from './api/results';
import { runSearch, type SearchRequest } from './search/search';
import { languageForPath } from './languages';
import { PatternLog, PATTERNS_PATH, type Pattern, type PatternInput } from './memory/patterns';
import { AccessLog } from './memory/activation';
import { activationFacts, resolveAccessRefs } from './memory/access';
import type { ActivationFacts } from './ranking/candidate';

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
}

interface EngineState {
  lastIndexed: string;
  lastDurationMs: number;
  generation: number;
  /** Hash of the settings that shape the index (discovery, chunking, formats); a change means a rebuild. */
  settingsHash?: string;
  /** HEAD when the git metadata was last refreshed (its next pass recomputes what changed since). */
  gitHead?: string;
  /** The last run's git pass completed: the next incremental run may check only the files it re-indexes. */
  gitClean?: boolean;
  /** Dense coverage after the last dense phase, per model id. */
  embeddings?: Record<string, { distinct: number; remaining: number; at: string }>;
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

export class EngineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineError';
  }
}

export class Engine {
  private problems: string[] = [];
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
    const problems: string[] = [];
    const store = await openChunkStore(quarryDir, problems);
    const { lexical, lexicalReset } = await openLexical(quarryDir, store, problems);
    await checkStoreAgainstLexical(quarryDir, store, lexical, problems);
    checkStateFile(quarryDir, problems);
    const interrupted = interruptedRunProblem(quarryDir);
    if (interrupted) problems.push(interrupted);
    const engine = new Engine(root, quarryDir, config, store, lexical);
    engine.problems = problems;
    if (options.embedding !== undefined) engine.embedding = options.embedding;
    else if ((engine.embedding = await fromConfig('embedding provider', problems, () => createEmbeddingProvider(config.embedding, { workspaceDir: root })))) engine.owned.push(engine.embedding);
    if (options.reranker !== undefined) engine.reranker = options.reranker;
    else if ((engine.reranker = await fromConfig('reranker', problems, () => createReranker(config.rerank, { workspaceDir: root })))) engine.owned.push(engine.reranker);
    if (lexicalReset) await engine.tryRepairLexical();
    return engine;
  }

  /** True when an index has been built here at least once. */
  get hasIndex(): boolean {
    return existsSync(join(this.quarryDir, 'state.json'));
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
    const release = acquireIndexLock(this.quarryDir);
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
      return summary;
    } catch (e) {
      this.indexing = { ...this.indexing, state: 'error', lastError: (e as Error).message, currentFile: null };
      throw e;
    } finally {
      release();
    }
  }

  /** One index run under the workspace lock: lexical phase, state, then the dense phase. */
  private async indexLocked(options: EngineIndexOptions): Promise<EngineIndexSummary> {
    await this.repairLexical();
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
    if (!options.paths) {
      const decision = resumeDecision(readCheckpoint(this.quarryDir), settingsHash);
      if (decision.action === 'reindex' && !options.full) {
        options = { ...options, full: true };
        rebuiltBecause = decision.reason;
      } else if (decision.action === 'resume' && !options.full) {
        resumed = decision.reason;
      }
      checkpoint = new CheckpointWriter(this.quarryDir, this.root, settingsHash);
      options = { ...options, checkpoint };
    }
    const replaced = new Set<string>();
    const summary: EngineIndexSummary = await runIndex(
      { root: this.root, config: this.config, store: this.store, lexical: this.lexical },
      { ...options, onReplaced: (paths) => paths.forEach((p) => replaced.add(p)) },
    );
    const previous = this.readState();
    const state: EngineState = { ...previous, lastIndexed: new Date().toISOString(), lastDurationMs: summary.durationMs, generation: 0, settingsHash };
    // Until the git pass below completes, the next run must not trust the rows (a killed run leaves this false).
    state.gitClean = false;
    if (rebuiltBecause) summary.rebuiltBecause = rebuiltBecause;
    if (resumed) summary.resumed = resumed;
    // An interrupted run keeps its checkpoint (the next start resumes); a complete one removes it — at the very end,
    // after the dense and git phases: a run killed in them left answers that are not the clean index's either.
    if (options.signal?.aborted) checkpoint?.write();
    writeFileSync(join(this.quarryDir, 'state.json'), JSON.stringify(state, null, 2));
    // Dense phase: the lexical index is already committed and searchable.
    if (this.embedding && !options.lexicalOnly && !options.signal?.aborted) {
      const provider = this.embedding;
      summary.embedding = await backfillEmbeddings(this.store, provider, (c) => chunkView(c, provider), {
        signal: options.signal,
        onProgress: options.onEmbedProgress,
      });
      const e = summary.embedding;
      if (e.warning) summary.warnings.push(e.warning);
      state.embeddings = {
        ...state.embeddings,
        [provider.id]: { distinct: e.cached + e.missing, remaining: e.missing - e.embedded, at: new Date().toISOString() },
      };
      writeFileSync(join(this.quarryDir, 'state.json'), JSON.stringify(state, null, 2));
    }
    // Git history per chunk (seed 003 FR-5.3/5.4, §6.4): computed last, after the lexical index and the vectors are
    // committed (they are what search needs first), never during search; a failing git never fails the run. A full
    // rebuild cleared the rows, so the previous HEAD no longer says what is up to date.
    if (!options.signal?.aborted && !options.skipGit) {
      try {
        const git = await refreshGitMetadata(this.store, this.root, {
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
    writeFileSync(join(this.quarryDir, 'state.json'), JSON.stringify(state, null, 2));
    if (!options.signal?.aborted) checkpoint?.complete();
    this.problems = [];
    return summary;
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
        await this.store.replacePaths([rel], chunks);
        this.lexical.removePaths([rel]);
        this.lexical.add(chunks.map(lexicalDocForChunk));
        await this.lexical.commit();
        await this.store.putFiles([
          { path: rel, size: -1, mtimeMs: 0, hash: `buffer:${createHash('sha256').update(text).digest('hex')}`, language: lang.id, chunkCount: chunks.length, indexedAt: Date.now() },
        ]);
        // a buffer may change what its language derives (a Go buffer adds or drops methods): the rows follow (best effort)
        const derived = languageDefinition(lang.id)?.derivedConformances;
        if (derived) await derived.refresh(this.store).catch(() => undefined);
      } finally {
        release();
      }
    });
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
   * writes by themselves). One stat when nothing changed; never while this process is writing.
   */
  private followCommits(): void {
    const manifest = join(this.quarryDir, 'lexical', 'manifest.json');
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
        this.lexical = LexicalIndex.open(join(this.quarryDir, 'lexical'), LEXICAL_ANALYZER);
        this.symbolTable = undefined;
      }
      this.manifestStamp = stamp;
    } catch {
      /* mid-rewrite, or written by another tokenizer: keep the loaded index, look again next time */
    }
  }

  /** Workspace symbols matching a query: exact > prefix > camel-hump > fuzzy (LSP workspace/symbol). */
  async symbols(query: string, limit = 100): Promise<SymbolHit[]> {
    this.followCommits();
    this.symbolTable ??= this.store.symbolEntries();
    return matchSymbols(await this.symbolTable, query, limit);
  }

  /** Hash of what decides the index's content: discovery and chunking settings and the formats' versions. */
  private settingsHash(): string {
    const shape = { discovery: this.config.discovery, chunking: this.config.chunking, chunker: CHUNKER_VERSION, store: STORE_SCHEMA_VERSION, lexical: LEXICAL_ANALYZER };
    return 'sha256:' + createHash('sha256').update(JSON.stringify(shape)).digest('hex');
  }

  private readState(): EngineState | undefined {
    try {
      return JSON.parse(readFileSync(join(this.quarryDir, 'state.json'), 'utf8')) as EngineState;
    } catch {
      return undefined;
    }
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
    const vectors = await this.store.vectors(provider.id, provider.dims);
    return { provider, vectors, coverage: cov.distinct ? 1 - cov.remaining / cov.distinct : 1 };
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
    try {
      return await run();
    } catch (e) {
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
    const gone = !existsSync(join(this.quarryDir, 'lancedb'));
    if (!gone && !/lance/i.test(String((e as Error)?.message ?? e))) return false;
    const problems: string[] = [];
    prepareIndexDir(this.quarryDir);
    const old = this.store;
    this.store = await openChunkStore(this.quarryDir, problems);
    this.lexical = (await openLexical(this.quarryDir, this.store, problems)).lexical;
    this.symbolTable = undefined;
    this.manifestStamp = '';
    await old.close().catch(() => undefined);
    this.problems = [
      `the index at ${this.quarryDir} was ${gone ? 'removed' : 'damaged'} while this process was running: it was reopened and is being rebuilt — answers are incomplete until that finishes (or run \`quarry index\`)`,
      ...problems,
    ];
    void this.index().catch(() => undefined);
    return true;
  }

  private async searchNow(query: string, opts: SearchRequest): Promise<FindCodeResponseSummary> {
    this.followCommits();
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
    this.followCommits();
    const counts = await this.store.counts();
    const { byKind, byLanguage } = await this.store.breakdown();
    let state: EngineState | undefined;
    try {
      state = JSON.parse(readFileSync(join(this.quarryDir, 'state.json'), 'utf8')) as EngineState;
    } catch {
      state = undefined;
    }
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
    };
  }

  /** Closes the store and the providers the engine created (injected providers stay open for their owner). */
  async close(): Promise<void> {
    await this.store.close();
    for (const p of this.owned) await p.close();
  }
}

/** Creates `.quarry/` and its self-ignoring .gitignore when it can; a read-only or full disk is not an error here. */
function prepareIndexDir(quarryDir: string): void {
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
 * Opens the chunk store. Environmental failures (disk full, permissions, read-only, a live lock holder) are thrown as
 * IndexUnavailableError and nothing is touched. Only a store proven damaged (a table that cannot be opened for another
 * reason) is reset — and only under the index lock, never beneath a live indexer.
 */
async function openChunkStore(quarryDir: string, problems: string[]): Promise<ChunkStore> {
  let damage: StoreDamagedError;
  try {
    const opened = await ChunkStore.open(quarryDir);
    problems.push(...opened.problems);
    if (opened.recreated) problems.push('index format changed; the chunk store was reset and will be rebuilt');
    return opened.store;
  } catch (e) {
    if (!(e instanceof StoreDamagedError)) throw asEnvironmentError(e, 'opening the index', join(quarryDir, 'lancedb'));
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
    // Quarantined, not deleted (the vector tables stay for the rebuild).
    const moved = quarantineTables(quarryDir);
    // The rest of the index described the old store: without state.json the next search or index run rebuilds it.
    rmSync(join(quarryDir, 'state.json'), { force: true });
    const opened = await ChunkStore.open(quarryDir);
    problems.push(`chunk store damaged (${damage.message}); its tables were moved to ${moved} and reset — run \`quarry index\` to rebuild it`);
    return opened.store;
  } catch (e) {
    throw asEnvironmentError(e, 'resetting the damaged chunk store', join(quarryDir, 'lancedb'));
  } finally {
    release();
  }
}

/**
 * Opens the lexical index. A damaged one (checksums, another tokenizer) is reset; a missing one while the chunk store
 * has rows is reported — both are rebuilt from the chunk store when this process may write (`lexicalReset`).
 */
async function openLexical(quarryDir: string, store: ChunkStore, problems: string[]): Promise<{ lexical: LexicalIndex; lexicalReset: boolean }> {
  const dir = join(quarryDir, 'lexical');
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
async function checkStoreAgainstLexical(quarryDir: string, store: ChunkStore, lexical: LexicalIndex, problems: string[]): Promise<void> {
  if (lexical.documentCount === 0 || readLock(quarryDir)) return;
  const chunks = await store.counts().then((c) => c.chunks, () => -1);
  if (chunks !== 0) return;
  problems.push(
    `the chunk store (${join(quarryDir, 'lancedb')}) is empty while the lexical index holds ${lexical.documentCount} documents, so searches cannot show them — run \`quarry index\` to rebuild the index`,
  );
}

/** A state.json that cannot be read is reported (an index run rewrites it). */
function checkStateFile(quarryDir: string, problems: string[]): void {
  const path = join(quarryDir, 'state.json');
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
