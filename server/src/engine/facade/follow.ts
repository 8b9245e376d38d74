/**
 * Following what other processes write (ARCHITECTURE.md, "One index, several processes"): commits to the lexical index
 * (reopened), a full rebuild's switch to a new generation (opened), before this engine writes or searches; and an index
 * folder removed or damaged under a long-running process (reopened, and rebuilt in the background).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pointerStamp, resolveGeneration, writePointer } from '../store/generations';
import { LexicalIndex } from '../store/lexical/lexicalIndex';
import { IndexLockedError } from '../indexer/lock';
import { environmentCause } from '../store/storeErrors';
import { lockHeldByThisProcess } from '../indexer/owner';
import { LEXICAL_ANALYZER } from '../indexer/lexicalDoc';
import { readCheckpoint } from '../indexer/checkpoint';
import { closeLater, openIndex, prepareIndexDir } from '../openIndex';
import type { EngineContext } from './context';
import { afterOpen } from './repair';

export class IndexFollower {
  private reopening?: Promise<boolean>;

  constructor(private readonly ctx: EngineContext) {}

  /**
   * Readers see new writes: when another process (the workspace's index owner, see indexer/owner.ts) committed to
   * the lexical index since this one loaded it, reopen it and forget the symbol table (LanceDB readers see committed
   * writes by themselves); when a full rebuild switched to a new generation, open that one. Two stats when nothing
   * changed; never while this process is writing.
   */
  async followCommits(): Promise<void> {
    const ctx = this.ctx;
    await this.followGeneration();
    const manifest = join(ctx.generation.dir, 'lexical', 'manifest.json');
    let stamp: string;
    try {
      const st = statSync(manifest);
      stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      return;
    }
    if (stamp === ctx.manifestStamp || lockHeldByThisProcess(ctx.quarryDir)) return;
    try {
      const generation = (JSON.parse(readFileSync(manifest, 'utf8')) as { generation?: unknown }).generation;
      if (generation !== ctx.lexical.committedGeneration) {
        const old = ctx.lexical;
        ctx.lexical = LexicalIndex.open(join(ctx.generation.dir, 'lexical'), LEXICAL_ANALYZER);
        old.close();
        ctx.symbolTable = undefined;
      }
      ctx.manifestStamp = stamp;
    } catch {
      /* mid-rewrite, or written by another tokenizer: keep the loaded index, look again next time */
    }
  }

  /**
   * When current.json names another generation than the one this engine reads (a full rebuild in another process
   * switched), open that one and read it from now on; true when it did. One stat when nothing changed; never while
   * this process is writing (its own rebuild switches by itself).
   */
  async followGeneration(): Promise<boolean> {
    if (pointerStamp(this.ctx.quarryDir) === this.ctx.seenPointer || lockHeldByThisProcess(this.ctx.quarryDir)) return false;
    return (this.reopening ??= this.reopenGeneration().finally(() => (this.reopening = undefined)));
  }

  private async reopenGeneration(): Promise<boolean> {
    const stamp = pointerStamp(this.ctx.quarryDir);
    const { generation } = resolveGeneration(this.ctx.quarryDir, readCheckpoint(this.ctx.quarryDir)?.generation);
    if (generation.name === this.ctx.generation.name) {
      this.ctx.seenPointer = stamp;
      return false;
    }
    await this.reopen();
    return true;
  }

  /**
   * Under the index lock, before writing: another process may have switched to a new generation since this engine
   * opened its own (write to the current one), and a pointer found missing or unreadable is rewritten.
   */
  async syncGeneration(): Promise<void> {
    const { generation, problem } = resolveGeneration(this.ctx.quarryDir, readCheckpoint(this.ctx.quarryDir)?.generation);
    if (generation.name !== this.ctx.generation.name) await this.reopen();
    if (problem) writePointer(this.ctx.quarryDir, this.ctx.generation.name);
  }

  /** Opens the generation current.json names and reads it from now on (the old store is closed a little later). */
  private async reopen(): Promise<void> {
    const old = this.ctx.store;
    const opened = await openIndex(this.ctx.quarryDir);
    this.ctx.adopt(opened);
    closeLater(old);
    await afterOpen(this.ctx, opened);
  }

  /**
   * The index folder was removed or damaged under this (long-running) process — the MCP server, the language server:
   * the store it holds now fails with raw Lance errors. Reopen the index as a new process would (a damaged store is
   * quarantined), answer from what is there with a warning, and rebuild it in the background (`rebuild`, issue 20).
   * False when the error is something else (the environment: disk, permissions; or no sign of a lost index).
   */
  async reopenLostIndex(e: unknown, rebuild: () => Promise<unknown>): Promise<boolean> {
    const ctx = this.ctx;
    if (environmentCause(e) || e instanceof IndexLockedError) return false;
    const gone = !existsSync(join(ctx.generation.dir, 'lancedb'));
    if (!gone && !/lance/i.test(String((e as Error)?.message ?? e))) return false;
    prepareIndexDir(ctx.quarryDir);
    const old = ctx.store;
    const opened = await openIndex(ctx.quarryDir);
    ctx.adopt(opened);
    await old.close().catch(() => undefined);
    ctx.problems = [
      `the index at ${ctx.quarryDir} was ${gone ? 'removed' : 'damaged'} while this process was running: it was reopened and is being rebuilt — answers are incomplete until that finishes (or run \`quarry index\`)`,
      ...ctx.problems,
    ];
    void rebuild().catch(() => undefined);
    return true;
  }
}
