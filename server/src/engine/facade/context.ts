/**
 * What the parts of the facade share (engine.ts owns one): the generation of the index the engine reads — its chunk
 * store, lexical index and folder —, what was found wrong with it, and what is derived from it (the symbol table, the
 * read snapshots); the providers; the state of the index run in progress. The parts (`facade/`, `indexer/indexRun.ts`,
 * `indexer/editorBuffers.ts`, `memory/agentMemory.ts`) read and change it; the doors never see it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { QuarryConfig } from '../config/schema';
import type { ChunkStore } from '../store/chunkStore';
import type { Generation } from '../store/generations';
import type { LexicalIndex } from '../store/lexical/lexicalIndex';
import type { EmbeddingProvider, Reranker } from '../embedding/types';
import type { SymbolEntry } from '../symbols';
import type { IndexingState } from '../health';
import { readStateIn, type EngineState, type OpenedIndex } from '../openIndex';

/** What does not change while an engine is open. */
export interface EngineSetup {
  root: string;
  quarryDir: string;
  config: QuarryConfig;
  embedding: EmbeddingProvider | null;
  reranker: Reranker | null;
  /** Problems of the providers built from configuration (kept when the index is reopened). */
  providerProblems: string[];
  /** A long-running door: searches read the store's snapshots (EngineOpenOptions.longRunning). */
  longRunning: boolean;
}

export class EngineContext {
  readonly root: string;
  readonly quarryDir: string;
  readonly config: QuarryConfig;
  readonly embedding: EmbeddingProvider | null;
  readonly reranker: Reranker | null;
  readonly providerProblems: string[];
  readonly longRunning: boolean;
  store: ChunkStore;
  lexical: LexicalIndex;
  /** The generation of the index this engine reads (store/generations.ts). */
  generation: Generation;
  /** current.json's stamp when this engine last looked (facade/follow.ts). */
  seenPointer: string;
  /** Stat of the lexical manifest when followCommits last looked. */
  manifestStamp = '';
  /** What every answer carries as a warning and status/health report as degraded. */
  problems: string[];
  notes: string[];
  symbolTable?: Promise<SymbolEntry[]>;
  /** The store's read snapshots, once a long-running engine asked for them. */
  snapshots?: Promise<void>;
  indexing: IndexingState = { state: 'idle', filesDiscovered: 0, filesToProcess: 0, filesProcessed: 0, chunksCreated: 0, errors: 0, currentFile: null, startedAt: null };

  constructor(setup: EngineSetup, opened: OpenedIndex) {
    this.root = setup.root;
    this.quarryDir = setup.quarryDir;
    this.config = setup.config;
    this.embedding = setup.embedding;
    this.reranker = setup.reranker;
    this.providerProblems = setup.providerProblems;
    this.longRunning = setup.longRunning;
    this.store = opened.store;
    this.lexical = opened.lexical;
    this.generation = opened.generation;
    this.seenPointer = opened.stamp;
    this.notes = opened.notes;
    this.problems = [...opened.problems, ...setup.providerProblems];
  }

  /** True when an index has been built here at least once. */
  get hasIndex(): boolean {
    return existsSync(join(this.generation.dir, 'state.json'));
  }

  readState(): EngineState | undefined {
    return readStateIn(this.generation.dir);
  }

  /** Reads `opened` from now on (the store of the previous generation is closed by the caller). */
  adopt(opened: OpenedIndex): void {
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
}
