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
 *
 * This file wires the parts together; what they share is an EngineContext (facade/context.ts: the generation read,
 * its problems and notes). The parts: index runs (indexer/indexRun.ts), editors' buffers (indexer/editorBuffers.ts),
 * agent memory (memory/agentMemory.ts), following other processes (facade/follow.ts), repairs (facade/repair.ts,
 * facade/vectors.ts), status and health (facade/report.ts), one search (search/search.ts).
 */
import { CHUNK_TYPE_GROUPS } from './ranking/query';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { QuarryConfig } from './config/schema';
import { loadConfig } from './config/load';
import { matchSymbols, SymbolHit } from './symbols';
import type { HealthReport } from './health';
import { traced } from './log';
import { WriteQueue } from './store/writeQueue';
import type { EmbeddingProvider, Reranker } from './embedding/types';
import type { FindCodeResponseSummary } from './api/results';
import { runSearch, type SearchRequest } from './search/search';
import { languageForPath } from './languages';
import type { Pattern, PatternInput } from './memory/patterns';
import { openIndex, prepareIndexDir } from './openIndex';
import { EngineError } from './engineError';
import { EngineContext } from './facade/context';
import { openProviders } from './facade/providers';
import { IndexFollower } from './facade/follow';
import { afterOpen } from './facade/repair';
import { denseChannel } from './facade/vectors';
import { healthReport, indexStatus, SearchMetrics, type IndexStatus } from './facade/report';
import { toRelative } from './facade/workspacePaths';
import { IndexRuns, type EngineIndexOptions, type EngineIndexSummary } from './indexer/indexRun';
import { overlayBuffer, prepareEditing } from './indexer/editorBuffers';
import { AgentMemory, type AccessRef, type PatternChange } from './memory/agentMemory';

export { EngineError };
export type { EngineIndexOptions, EngineIndexSummary, IndexStatus, PatternChange, AccessRef };

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

export class Engine {
  readonly root: string;
  readonly quarryDir: string;
  readonly config: QuarryConfig;
  /** Index runs, file updates and buffer overlays, one at a time. */
  private readonly writes = new WriteQueue();
  private readonly follower: IndexFollower;
  private readonly runs: IndexRuns;
  private readonly memory: AgentMemory;
  private readonly metrics = new SearchMetrics();

  private constructor(
    /** What the parts share: the generation this engine reads, its problems and notes. */
    private readonly ctx: EngineContext,
    /** Providers the engine built from configuration (and so closes); injected ones belong to the caller. */
    private readonly owned: Array<{ close(): Promise<void> }>,
    private readonly openedAt: number,
  ) {
    this.root = ctx.root;
    this.quarryDir = ctx.quarryDir;
    this.config = ctx.config;
    this.follower = new IndexFollower(ctx);
    this.runs = new IndexRuns(ctx, this.follower);
    this.memory = new AgentMemory(ctx, (paths) => this.updateFiles(paths));
  }

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
    const openedAt = Date.now();
    const providers = await openProviders(config, root, options);
    const ctx = new EngineContext(
      { root, quarryDir, config, embedding: providers.embedding, reranker: providers.reranker, providerProblems: providers.problems, longRunning: options.longRunning === true },
      opened,
    );
    const engine = new Engine(ctx, providers.owned, openedAt);
    await afterOpen(ctx, opened);
    return engine;
  }

  /** The providers (bench/scale.ts reads these two to time them). */
  private get embedding(): EmbeddingProvider | null {
    return this.ctx.embedding;
  }
  private get reranker(): Reranker | null {
    return this.ctx.reranker;
  }

  /** True when an index has been built here at least once. */
  get hasIndex(): boolean {
    return this.ctx.hasIndex;
  }

  /**
   * Indexes the workspace (incremental unless `full`). Takes the workspace lock: a second indexer gets
   * IndexLockedError. Also repairs a lexical index that disagrees with the chunk store.
   */
  async index(options: EngineIndexOptions = {}): Promise<EngineIndexSummary> {
    return this.writes.run(() =>
      traced('indexer', options.paths ? 'update_files' : 'index_run', { root: this.root, full: !!options.full, paths: options.paths?.length }, () => this.runs.run(options)),
    );
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
    await this.writes.run(() => overlayBuffer(this.ctx, rel, lang.id, text));
  }

  /**
   * Loads what the first `setBuffer` of this file's language would otherwise pay for (its grammar, the BPE tables),
   * once per language and process; the language server calls it when an editor opens a file it owns, so that the
   * first keystrokes are searchable as fast as the next ones. Returns what it loaded, or undefined when there was
   * nothing to load (indexer/editorBuffers.ts).
   */
  async prepareEditing(path: string, text: string): Promise<{ language: string; ms: number } | undefined> {
    return prepareEditing(this.root, this.config, path, text);
  }

  // ── Memory: reasoning patterns (seed 003 FR-4) and activation (accesses), memory/agentMemory.ts ──────────────

  /** The recorded reasoning patterns (searchable or not), oldest first. */
  patterns(): Pattern[] {
    return this.memory.patterns();
  }

  /**
   * Records a reasoning pattern (or revises the one with the same id) and makes it searchable at once when its
   * success score is at least 0.5. The pattern is saved even when indexing it now is not possible (another process
   * holds the index lock, or `index: false`): the next index run reads the log.
   */
  async recordPattern(input: PatternInput, options: { index?: boolean } = {}): Promise<PatternChange> {
    return this.memory.recordPattern(input, options);
  }

  /** A reuse of a pattern (`succeeded` moves its success score); re-indexes the pattern log. */
  async reportPatternUse(id: string, succeeded?: boolean, options: { index?: boolean } = {}): Promise<PatternChange> {
    return this.memory.reportPatternUse(id, succeeded, options);
  }

  /** Removes a pattern; false when there is none with that id. */
  async forgetPattern(id: string, options: { index?: boolean } = {}): Promise<boolean> {
    return this.memory.forgetPattern(id, options);
  }

  /** Records that results were used (chunk ids, or a path and a 1-based line): the chunks' activation rises. */
  async recordAccess(refs: AccessRef[], source: string): Promise<{ recorded: string[]; unknown: string[] }> {
    return this.memory.recordAccess(refs, source);
  }

  // ── Reading: search, symbols, status ─────────────────────────────────────────────────────────────────────

  async search(query: string, opts: SearchRequest = {}): Promise<FindCodeResponseSummary> {
    const run = () => traced('searcher', 'hybrid_search', { query, limit: opts.limit }, () => this.searchNow(query, opts), true);
    const generation = this.ctx.generation;
    try {
      const res = await run();
      // a switch during the search: its reads of the old generation may have failed inside a channel (the dense one
      // degrades to a warning), so answer again from the new one
      if ((await this.follower.followGeneration().catch(() => false)) || this.ctx.generation !== generation) return run();
      return res;
    } catch (e) {
      // a full rebuild switched generations while this search read the old one (removed since): answer from the new one
      if ((await this.follower.followGeneration().catch(() => false)) || this.ctx.generation !== generation) return run();
      if (!(await this.follower.reopenLostIndex(e, () => this.index()))) throw e;
      return run();
    }
  }

  /**
   * Long-running engines (`EngineOpenOptions.longRunning`): loads the store's read snapshots (once; later searches
   * use them while they are of the tables' live versions). A no-op for one-shot engines.
   */
  keepReadSnapshots(): Promise<void> {
    if (!this.ctx.longRunning) return Promise.resolve();
    return (this.ctx.snapshots ??= this.ctx.store.keepReadSnapshots().catch(() => undefined));
  }

  private async searchNow(query: string, opts: SearchRequest): Promise<FindCodeResponseSummary> {
    const ctx = this.ctx;
    await this.follower.followCommits();
    if (ctx.longRunning && !ctx.snapshots) void this.keepReadSnapshots();
    const res = await runSearch(
      {
        root: ctx.root, quarryDir: ctx.quarryDir, config: ctx.config, store: ctx.store, lexical: ctx.lexical, reranker: ctx.reranker,
        problems: ctx.problems, hasIndex: ctx.hasIndex,
        dense: (warnings) => denseChannel(ctx, warnings),
        activationFacts: (ids) => this.memory.activationFacts(ids),
        timings: this.metrics.timings,
        indexing: () => ctx.indexing,
        similarNames: async (name) => [...new Set((await this.symbols(name, 10)).map((h) => h.name))],
      },
      query,
      opts,
    );
    this.metrics.add(res);
    return res;
  }

  /** Workspace symbols matching a query: exact > prefix > camel-hump > fuzzy (LSP workspace/symbol). */
  async symbols(query: string, limit = 100): Promise<SymbolHit[]> {
    await this.follower.followCommits();
    this.ctx.symbolTable ??= this.ctx.store.symbolEntries();
    return matchSymbols(await this.ctx.symbolTable, query, limit);
  }

  /** Seed 002 FR-010-Enhanced health: indexing progress, services, statistics. */
  async health(): Promise<HealthReport> {
    return healthReport(this.ctx, { metrics: this.metrics, openedAt: this.openedAt, indexTotals: this.runs.totals });
  }

  async status(): Promise<IndexStatus> {
    await this.follower.followCommits();
    return indexStatus(this.ctx);
  }

  /**
   * Chunks in the index per coarse type, seed 003 FR-11's counts in `quarry index`'s summary: knowledge = Markdown
   * sections and text (conversation logs included), reasoning = the agents' recorded patterns, code = everything else.
   * Counted by the store without reading a row: 5 ms at 96k chunks where `status()` reads every chunk's kind (100 ms;
   * issue 21).
   */
  async chunkTypeTotals(): Promise<{ code: number; reasoning: number; knowledge: number }> {
    await this.follower.followCommits();
    const store = this.ctx.store;
    const [{ chunks }, knowledge, reasoning] = await Promise.all([store.counts(), store.countChunksOfKinds(CHUNK_TYPE_GROUPS.knowledge), store.countChunksOfKinds(CHUNK_TYPE_GROUPS.reasoning)]);
    return { code: chunks - knowledge - reasoning, reasoning, knowledge };
  }

  /** Closes the store and the providers the engine created (injected providers stay open for their owner). */
  async close(): Promise<void> {
    await this.ctx.store.close();
    this.ctx.lexical.close();
    for (const p of this.owned) await p.close();
  }
}
