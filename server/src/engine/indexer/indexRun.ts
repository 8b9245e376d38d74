/**
 * The engine's index runs (Engine.index and updateFiles, one at a time through its write queue): the index lock, the
 * progress health reports, the checkpoint (resume or rebuild), the generation a full rebuild writes and the switch to
 * it, and the phases — lexical (indexer.ts), dense (embedder.ts), git (gitMetadata.ts) — with the state file.
 */
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { ChunkStore, quarantineVectorTable, STORE_SCHEMA_VERSION } from '../store/chunkStore';
import { VectorTableDamagedError } from '../store/vectorStore';
import type { LexicalIndex } from '../store/lexical/lexicalIndex';
import { generationDir, nextGenerationName, pointerStamp, removeGeneration, sweepGenerations, vectorDir, writePointer } from '../store/generations';
import { environmentCause } from '../store/storeErrors';
import { IndexOptions, IndexSummary, runIndex } from './indexer';
import { prefetchHistory, refreshGitMetadata, type GitRefreshSummary, type HistoryPrefetch } from './gitMetadata';
import { acquireIndexLock, markLockRebuild } from './lock';
import { LEXICAL_ANALYZER } from './lexicalDoc';
import { backfillEmbeddings, EmbedProgress, EmbedSummary } from './embedder';
import { EarlyEmbedder } from './earlyEmbedder';
import { CheckpointWriter, readCheckpoint, resumeDecision } from './checkpoint';
import { CHUNKER_VERSION } from '../chunking/version';
import type { EmbeddingProvider } from '../embedding/types';
import { chunkView } from '../embedding/viewFor';
import { beginIndexWrites, closeLater, lexicalAgreementKnown, openPendingGeneration, readStateIn, writeStateIn, type EngineState, type OpenedIndex } from '../openIndex';
import { releaseIndexingMemos, RELEASE_AFTER_CHUNKS } from '../indexingMemos';
import type { EngineContext } from '../facade/context';
import type { IndexFollower } from '../facade/follow';
import { repairLexical } from '../facade/repair';

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

export class IndexRuns {
  /** What this engine's runs did since it was opened (health). */
  readonly totals = { chunks: 0, errors: 0, lastDurationSeconds: null as number | null };

  constructor(
    private readonly ctx: EngineContext,
    private readonly follower: IndexFollower,
  ) {}

  /**
   * One run (incremental unless `full`; `paths`: just those files). Takes the workspace lock: a second indexer gets
   * IndexLockedError. Also repairs a lexical index that disagrees with the chunk store.
   */
  async run(options: EngineIndexOptions): Promise<EngineIndexSummary> {
    const ctx = this.ctx;
    ctx.symbolTable = undefined;
    const release = acquireIndexLock(ctx.quarryDir, { rebuild: !!options.full && !options.paths });
    ctx.indexing = { state: 'indexing', phase: 'discovering', filesDiscovered: 0, filesToProcess: 0, filesProcessed: 0, chunksCreated: 0, errors: 0, currentFile: null, startedAt: Date.now() };
    const userProgress = options.onProgress;
    options = {
      ...options,
      onProgress: (p) => {
        Object.assign(ctx.indexing, { phase: p.phase, filesDiscovered: p.filesDiscovered, filesToProcess: p.filesToProcess, filesProcessed: p.filesProcessed, chunksCreated: p.chunksCreated, currentFile: p.currentFile ?? null });
        userProgress?.(p);
      },
    };
    try {
      const summary = await this.locked(options);
      ctx.indexing = { ...ctx.indexing, state: 'idle', errors: summary.errors.length, currentFile: null };
      this.totals.chunks += summary.chunksCreated;
      this.totals.errors += summary.errors.length;
      if (!options.paths) this.totals.lastDurationSeconds = Math.round(summary.durationMs / 100) / 10;
      // what a large run taught the tokenizer and the code model per word is not what searches need (indexingMemos.ts)
      // (a one-shot run of as many new chunks did so after its lexical phase, with its segments: indexer.ts releaseLexical)
      const releasedAlready = !ctx.longRunning && summary.chunksCreated >= RELEASE_AFTER_CHUNKS;
      if (!releasedAlready && summary.chunksCreated + (summary.embedding?.embedded ?? 0) >= RELEASE_AFTER_CHUNKS) releaseIndexingMemos(true);
      return summary;
    } catch (e) {
      ctx.indexing = { ...ctx.indexing, state: 'error', lastError: (e as Error).message, currentFile: null };
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
  private async locked(options: EngineIndexOptions): Promise<EngineIndexSummary> {
    const ctx = this.ctx;
    // another process may have switched generations since this one opened the index: write to the current one
    await this.follower.syncGeneration();
    const settingsHash = this.settingsHash();
    const before = ctx.readState();
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
      let saved = readCheckpoint(ctx.quarryDir);
      // a rebuild whose generation is current switched; only its checkpoint's removal was missed
      if (saved?.generation !== undefined && saved.generation === ctx.generation.name) saved = undefined;
      const decision = resumeDecision(saved, settingsHash);
      if (decision.action === 'reindex' && !options.full) {
        options = { ...options, full: true };
        rebuiltBecause = decision.reason;
      } else if (decision.action === 'resume' && !options.full) {
        resumed = decision.reason;
      }
      const resumeGeneration =
        decision.action === 'resume' && !options.full && saved?.generation && existsSync(generationDir(ctx.quarryDir, saved.generation)) ? saved.generation : undefined;
      // abandoned partial generations (and an old one whose removal failed) go; a rebuild to resume stays
      sweepGenerations(ctx.quarryDir, resumeGeneration ? [ctx.generation.name, resumeGeneration] : [ctx.generation.name]);
      if (options.full || resumeGeneration) {
        const name = resumeGeneration ?? nextGenerationName(ctx.quarryDir, ctx.generation.name);
        if (resumeGeneration) resumed = `resuming an interrupted full rebuild (generation ${name}; the previous build answers until it completes)`;
        // the checkpoint names the generation before its folder exists: a kill leaves nothing unnamed
        checkpoint = new CheckpointWriter(ctx.quarryDir, ctx.root, settingsHash, undefined, name);
        markLockRebuild(ctx.quarryDir);
        try {
          pending = await openPendingGeneration(ctx.quarryDir, name);
        } catch (e) {
          // nothing was written to it yet (a full disk, most likely): leave nothing behind
          removeGeneration(ctx.quarryDir, name);
          checkpoint.complete();
          throw e;
        }
        options = { ...options, full: true };
      } else {
        checkpoint = new CheckpointWriter(ctx.quarryDir, ctx.root, settingsHash);
      }
      options = { ...options, checkpoint };
    }
    try {
      const summary = await this.phases(options, pending, settingsHash, checkpoint);
      if (rebuiltBecause) summary.rebuiltBecause = rebuiltBecause;
      if (resumed) summary.resumed = resumed;
      if (!options.signal?.aborted) {
        if (pending) this.switchTo(pending);
        checkpoint?.complete();
        ctx.problems = [];
        ctx.notes = [];
      }
      return summary;
    } catch (e) {
      // a rebuild that ran out of disk space gives the space back at once: its partial generation goes (the current one
      // answers as before; the error names the cause)
      const cause = environmentCause(e);
      if (pending && ctx.generation !== pending.generation && (cause === 'ENOSPC' || cause === 'EDQUOT')) {
        await pending.store.close().catch(() => undefined);
        removeGeneration(ctx.quarryDir, pending.generation.name);
        checkpoint?.complete();
      }
      throw e;
    } finally {
      // an interrupted or failed rebuild leaves its generation for the next run (which resumes or removes it)
      if (pending && ctx.generation !== pending.generation) await pending.store.close().catch(() => undefined);
    }
  }

  /** The lexical, dense and git phases of a run, into the current generation or into `pending` (a full rebuild). */
  private async phases(options: EngineIndexOptions, pending: OpenedIndex | undefined, settingsHash: string, checkpoint: CheckpointWriter | undefined): Promise<EngineIndexSummary> {
    const ctx = this.ctx;
    const store = pending?.store ?? ctx.store;
    const lexical = pending?.lexical ?? ctx.lexical;
    const dir = pending?.generation.dir ?? ctx.generation.dir;
    // the lexical index and the chunk store agree unless a writer stopped between their writes: compared only then
    // (openIndex.ts lexicalAgreementKnown); this run writes both, so the agreement is recorded again when it is done
    let startState: EngineState | undefined;
    if (!pending) {
      if (!lexicalAgreementKnown(dir, ctx.lexical)) await repairLexical(ctx.store, ctx.lexical);
      startState = beginIndexWrites(dir);
    }
    const replaced = new Set<string>();
    // A one-shot run whose git pass will attribute every file (no HEAD recorded: a first index, a full rebuild) starts
    // the history replay now, beside the lexical phase (gitMetadata.ts prefetchHistory). Long-running processes replay
    // it after their phases, as before: held through the lexical phase, the replay raised the language server's
    // high-water mark on a 1,000-file first index from 242 to 256 MB (issue 19's target is 250).
    const previousHead = options.full ? undefined : readStateIn(dir)?.gitHead;
    const prefetched =
      !ctx.longRunning && !options.skipGit && !options.paths && ctx.config.git.metadata && previousHead === undefined ? prefetchHistory(ctx.root) : undefined;
    try {
      return await this.runPhases(options, pending, settingsHash, checkpoint, { store, lexical, dir, replaced, previousHead, prefetched, startState });
    } finally {
      prefetched?.cancel();
    }
  }

  private async runPhases(
    options: EngineIndexOptions,
    pending: OpenedIndex | undefined,
    settingsHash: string,
    checkpoint: CheckpointWriter | undefined,
    run: { store: ChunkStore; lexical: LexicalIndex; dir: string; replaced: Set<string>; previousHead: string | undefined; prefetched: HistoryPrefetch | undefined; startState: EngineState | undefined },
  ): Promise<EngineIndexSummary> {
    const ctx = this.ctx;
    const { store, lexical, dir, replaced } = run;
    // A one-shot run embeds committed chunks while it waits for the chunking worker, with a provider fast enough to
    // embed on this thread (earlyEmbedder.ts); the dense phase below embeds the rest.
    const provider = ctx.embedding;
    const early =
      provider?.embedsWhileIndexing && !ctx.longRunning && !options.lexicalOnly && !options.paths
        ? new EarlyEmbedder(store, provider, (c) => chunkView(c, provider), options.signal)
        : undefined;
    let summary: EngineIndexSummary;
    let embeddedEarly = 0;
    try {
      summary = await runIndex(
        { root: ctx.root, config: ctx.config, store, lexical },
        // a new generation starts empty (a resumed one goes on from what it committed): nothing to clear
        // a long-running process keeps its chunking worker's memory low (peak memory matters more there than the
        // second a replaced worker costs); a one-shot `quarry index` ends with the run, and searches nothing after its
        // lexical phase: the segments leave memory before the Go pass, the dense phase and its vector index build
        // (issue 21: the Go tree's peak was 720-750 MB with them held)
        { ...options, full: pending ? false : options.full, quickPass: !pending, renewWorkers: options.renewWorkers ?? ctx.longRunning, releaseLexical: !ctx.longRunning, onReplaced: (paths) => paths.forEach((p) => replaced.add(p)), onChunks: early && ((chunks) => early.offer(chunks)) },
      );
    } finally {
      // stops the early embedder (also when the run failed) and writes what it computed
      embeddedEarly = (await early?.finish()) ?? 0;
    }
    // the keyword phase is done: what follows (vectors, git history) leaves the keyword index as it is
    ctx.indexing.phase = 'embedding';
    const previous = readStateIn(dir);
    const state: EngineState = { ...previous, lastIndexed: new Date().toISOString(), lastDurationMs: summary.durationMs, generation: 0, settingsHash };
    // every batch of the lexical phase wrote both the chunk store and the lexical index (an aborted run: the batches it
    // committed): they agree
    state.lexicalAgrees = lexical.committedGeneration;
    // Until the git pass below completes, the next run must not trust the rows (a killed run leaves this false).
    state.gitClean = false;
    // An interrupted run keeps its checkpoint (the next start resumes); a complete one removes it — at the very end,
    // after the dense and git phases: a run killed in them left answers that are not the clean index's either.
    if (options.signal?.aborted) checkpoint?.write();
    writeStateIn(dir, state);
    // Dense phase: the lexical index is already committed and searchable.
    if (provider && !options.lexicalOnly && !options.signal?.aborted) {
      // After runs that left no vector missing, only the chunks of the files this run replaced can lack one: the
      // phase looks at those files' chunks only (a run over some files, and a whole-workspace run that found few
      // changes: not every content hash of the index, 50–100 ms at 96k chunks), as long as the vector table still
      // holds what that phase left (vectors lost behind the index's back: every chunk is checked, and embedded again).
      // The last dense phase must have come after the last lexical one: a `--lexical-only` run since then left chunks
      // without vectors that its state does not count, and so did a run killed before its dense phase (it recorded
      // when it began writing, `lexicalSince`, but never its `lastIndexed`).
      const last = previous?.embeddings?.[provider.id];
      const interrupted = run.startState?.lexicalSince !== undefined && last !== undefined && run.startState.lexicalSince > last.at;
      const complete = last?.remaining === 0 && previous?.lastIndexed !== undefined && last.at >= previous.lastIndexed && !interrupted;
      summary.embedding = await this.embed(store, provider, options, summary.warnings, complete ? { paths: [...replaced], vectors: last.distinct } : undefined);
      const e = summary.embedding;
      // what the lexical phase embedded was missing when the run started, not cached
      e.missing += embeddedEarly;
      e.embedded += embeddedEarly;
      e.cached -= embeddedEarly;
      if (early) e.duringLexical = embeddedEarly;
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
      ctx.indexing.phase = 'git';
      try {
        const git = await refreshGitMetadata(store, ctx.root, {
          paths: [...replaced], previousHead: run.previousHead, signal: options.signal, config: ctx.config.git,
          quick: !options.full && previous?.gitClean === true, prefetched: run.prefetched,
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
  private async embed(store: ChunkStore, provider: EmbeddingProvider, options: EngineIndexOptions, warnings: string[], only?: { paths: readonly string[]; vectors: number }): Promise<EmbedSummary> {
    const run = (scope: typeof only) =>
      backfillEmbeddings(store, provider, (c) => chunkView(c, provider), { signal: options.signal, onProgress: options.onEmbedProgress, paths: scope?.paths, pathsNeedVectors: scope?.vectors, releaseMemory: !this.ctx.longRunning });
    try {
      return await run(only);
    } catch (e) {
      if (!(e instanceof VectorTableDamagedError)) throw e;
      const moved = quarantineVectorTable(this.ctx.quarryDir, vectorDir(this.ctx.quarryDir), e.tableName);
      for (const s of new Set([store, this.ctx.store])) s.forgetVectors(provider.id, provider.dims);
      warnings.push(`${e.message}; it was moved to ${moved} and the code was embedded again.`);
      return run(undefined); // the table is new: every chunk
    }
  }

  /**
   * The switch to a complete new generation: current.json names it (one atomic rename); this engine reads it from now
   * on and the previous generation is removed (a reader in another process that still had it open finds the switch
   * on its next search, or when a read of the removed files fails, and reopens).
   */
  private switchTo(next: OpenedIndex): void {
    const ctx = this.ctx;
    writePointer(ctx.quarryDir, next.generation.name);
    const old = { store: ctx.store, name: ctx.generation.name };
    ctx.adopt(next);
    ctx.seenPointer = pointerStamp(ctx.quarryDir);
    closeLater(old.store);
    removeGeneration(ctx.quarryDir, old.name);
  }

  /** Hash of what decides the index's content: discovery and chunking settings and the formats' versions. */
  private settingsHash(): string {
    const shape = { discovery: this.ctx.config.discovery, chunking: this.ctx.config.chunking, chunker: CHUNKER_VERSION, store: STORE_SCHEMA_VERSION, lexical: LEXICAL_ANALYZER };
    return 'sha256:' + createHash('sha256').update(JSON.stringify(shape)).digest('hex');
  }
}
