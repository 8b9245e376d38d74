/**
 * The engine's agent memory (seed 003 FR-4, activation): the reasoning patterns agents record, revise and forget —
 * the pattern log re-indexed after each change when the index allows it — and the accesses that raise the activation
 * of the chunks they name. engine.ts owns one; the logs are opened on first use.
 */
import { IndexLockedError } from '../indexer/lock';
import type { ActivationFacts } from '../ranking/candidate';
import type { EngineContext } from '../facade/context';
import { toRelative } from '../facade/workspacePaths';
import { PatternLog, PATTERNS_PATH, type Pattern, type PatternInput } from './patterns';
import { AccessLog } from './activation';
import { activationFacts, resolveAccessRefs } from './access';

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

export class AgentMemory {
  private patternLogCache?: PatternLog;
  private accessLogCache?: AccessLog;

  constructor(
    private readonly ctx: EngineContext,
    /** Engine.updateFiles: re-indexes the pattern log (through the engine's write queue). */
    private readonly updateFiles: (paths: string[]) => Promise<unknown>,
  ) {}

  private get patternLog(): PatternLog {
    return (this.patternLogCache ??= new PatternLog(this.ctx.root));
  }
  private get accessLog(): AccessLog {
    return (this.accessLogCache ??= new AccessLog(this.ctx.root));
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
    if (!this.ctx.hasIndex) {
      if (this.ctx.indexing.state === 'indexing') {
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
      rel: r.path === undefined ? undefined : toRelative(this.ctx.root, r.path),
      line: r.line,
      label: `${r.path ?? '?'}:${r.line ?? '?'}`,
    }));
    const { ids, unknown } = await resolveAccessRefs(this.ctx.store, resolved);
    if (ids.length) this.accessLog.record(ids, source);
    return { recorded: ids, unknown };
  }

  /** Activation evidence of chunks (memory/access.ts), for the ranking's activation stage. */
  activationFacts(ids: readonly string[]): Promise<Map<string, ActivationFacts>> {
    return activationFacts(this.ctx.store, this.accessLog, ids);
  }
}
