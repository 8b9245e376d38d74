/**
 * The indexing checkpoint (seed 002 FR-034): `.quarry/index_checkpoint.json`, written when a run starts, after every
 * committed batch (100 files), at least every 5 minutes, and when a run is interrupted (SIGTERM/SIGINT abort the run
 * between batches); removed when a run completes. Written at the start so that a run killed before its first batch
 * (`kill -9`, a crash, a power cut) is known as unfinished: until the next run completes, every answer says that
 * the index may be incomplete (issue 20: never wrong in silence). Its presence at the next start means an interrupted run: same settings
 * hash and younger than 24 h → resume (the incremental run redoes only what was not committed), otherwise re-index
 * from scratch.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { readLock } from './lock';
import type { IndexingState } from '../health';

export interface Checkpoint {
  session_id: string;
  project_path: string;
  start_time: string;
  last_checkpoint: string;
  files_processed: string[];
  chunks_created: number;
  errors: string[];
  settings_hash: string;
  /**
   * Set when the run is a full rebuild: the generation it writes beside the current one (store/generations.ts). A
   * killed rebuild leaves the current generation as it was, so its checkpoint is a note, not a problem.
   */
  generation?: string;
}

export const CHECKPOINT_FILE = 'index_checkpoint.json';
const MAX_AGE_MS = 24 * 3600 * 1000;

export function readCheckpoint(quarryDir: string): Checkpoint | undefined {
  const path = join(quarryDir, CHECKPOINT_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Checkpoint;
  } catch {
    return undefined; // a torn checkpoint is as good as none: the run re-indexes incrementally
  }
}

/**
 * A run that started and did not complete (its checkpoint is there and no live process is indexing): the index holds
 * what it committed, which may be part of the old and part of the new content. A problem for every answer until
 * `quarry index` completes; undefined when there is none (or when a live indexer owns it: that is reported as
 * indexing in progress).
 *
 * A full rebuild writes a generation of its own (`generation`): killed, it left the current generation as it was,
 * which answers in full — a `note`, not a problem. When its generation is the current one, it switched and only the
 * checkpoint's removal was missed: nothing to say.
 */
export function interruptedRun(quarryDir: string, currentGeneration: string): { problem?: string; note?: string } {
  const path = join(quarryDir, CHECKPOINT_FILE);
  if (!existsSync(path) || readLock(quarryDir)) return {};
  const cp = readCheckpoint(quarryDir);
  const when = cp?.start_time ? ` (started ${cp.start_time})` : '';
  if (cp?.generation !== undefined) {
    if (cp.generation === currentGeneration) return {};
    return { note: `a full rebuild${when} did not finish (killed or interrupted): the index answers from the previous complete build; \`quarry index\` completes the rebuild` };
  }
  return { problem: `the last index run${when} did not finish (killed or interrupted): answers may be incomplete until \`quarry index\` completes it` };
}

/**
 * What a search says while a run writes the index. Another process's run: an incremental run may have committed part
 * of its work; a full rebuild writes a generation of its own, so the answer is the last complete build's, in full. This
 * process's own run (`own`: the language server's or `quarry mcp`'s start-up run) says where it is: still looking for
 * changed files, or indexing N of them; once its keyword phase is done (embedding, git history) nothing is missing from
 * the keyword index and it says nothing (a partial dense channel has its own warning).
 */
export function indexingWarning(quarryDir: string, own?: IndexingState): string | undefined {
  const lock = readLock(quarryDir);
  if (!lock) return undefined;
  if (lock.rebuild) return `A full rebuild is in progress (started at ${lock.startedAt}): answers come from the last complete index until the rebuild replaces it.`;
  if (own?.state === 'indexing' && lock.pid === process.pid && lock.host === hostname()) {
    switch (own.phase) {
      case 'embedding':
      case 'git':
        return undefined;
      case 'indexing':
      case 'finalizing':
        if (own.filesToProcess === 0) return undefined;
        return `Results may be incomplete: indexing ${own.filesToProcess} new or changed file(s), ${own.filesProcessed} done (started at ${lock.startedAt}).`;
      default:
        return `Checking the workspace for files changed since the last index (started at ${lock.startedAt}): the newest edits may not be searchable yet.`;
    }
  }
  return `Results may be incomplete: indexing in progress (started at ${lock.startedAt}).`;
}

/** The problem of `interruptedRun` for an index of one generation (generation 0), or undefined. */
export function interruptedRunProblem(quarryDir: string): string | undefined {
  return interruptedRun(quarryDir, '').problem;
}

/** What to do with an interrupted run's checkpoint. */
export function resumeDecision(cp: Checkpoint | undefined, settingsHash: string, now = Date.now()): { action: 'none' | 'resume' | 'reindex'; reason?: string } {
  if (!cp) return { action: 'none' };
  if (cp.settings_hash !== settingsHash) return { action: 'reindex', reason: 'the settings changed since the interrupted run' };
  const age = now - Date.parse(cp.last_checkpoint);
  if (!(age < MAX_AGE_MS)) return { action: 'reindex', reason: 'the interrupted run is more than 24 hours old' };
  return { action: 'resume', reason: `resuming an interrupted run from ${cp.chunks_created} chunks (${cp.files_processed.length} files)` };
}

/** Accumulates a run's progress and writes it atomically when due. */
export class CheckpointWriter {
  private readonly cp: Checkpoint;
  private lastWrite = 0;

  constructor(
    private readonly quarryDir: string,
    projectPath: string,
    settingsHash: string,
    private readonly everyMs = 5 * 60 * 1000,
    /** A full rebuild's generation (see Checkpoint.generation). */
    generation?: string,
  ) {
    const now = new Date().toISOString();
    this.cp = { session_id: randomUUID(), project_path: projectPath, start_time: now, last_checkpoint: now, files_processed: [], chunks_created: 0, errors: [], settings_hash: settingsHash };
    if (generation !== undefined) this.cp.generation = generation;
    // the run has started: until complete() a kill leaves this behind, and the next open says so
    this.write();
  }

  /** Records a committed batch; writes now (every batch is at most 100 files) or when 5 minutes have passed. */
  batch(paths: string[], chunks: number, errors: string[]): void {
    this.cp.files_processed.push(...paths);
    this.cp.chunks_created += chunks;
    this.cp.errors.push(...errors);
    this.write();
  }

  write(): void {
    this.cp.last_checkpoint = new Date().toISOString();
    const path = join(this.quarryDir, CHECKPOINT_FILE);
    writeFileSync(`${path}.tmp`, JSON.stringify(this.cp, null, 2));
    renameSync(`${path}.tmp`, path);
    this.lastWrite = Date.now();
  }

  /** Writes if the 5-minute interval has passed (for long batches). */
  tick(): void {
    if (Date.now() - this.lastWrite >= this.everyMs) this.write();
  }

  /** The run completed: the checkpoint is no longer needed. */
  complete(): void {
    rmSync(join(this.quarryDir, CHECKPOINT_FILE), { force: true });
  }
}
