/**
 * Activation: how often and how recently a chunk was used (seed 003's ACT-R activation; FR-2 stage 2, FR-6.4).
 *
 * Evidence:
 * - accesses: results opened from the editor (QuickPick, results view) or reported as used by an MCP client, kept in
 *   `.quarry/memory/accesses.jsonl` ({"id","at","source"} per line; the last MAX_PER_CHUNK per chunk are kept when
 *   the log is compacted). Chunk ids are stable across edits (path + kind + symbol + ordinal), so history survives
 *   re-indexing.
 * - git history (computed at index time): the number of commits touching the chunk's lines and its last modification.
 *
 * ACT-R base-level activation with decay d = 0.5 over the presentations of a chunk:
 *     B = ln( Σ_accesses age_j^-d  +  GIT_WEIGHT · commits · age_lastModified^-d )
 * ages in seconds (at least a minute), each commit counting as a quarter of an access dated at the last
 * modification. No evidence = no activation (undefined). The ranking stage maps B onto 0..1 on a fixed scale
 * (normalizedActivation); staged fusion min-max normalises it within its candidates instead (seed 003 FR-2).
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { appendLog, readLog, rewriteLog } from './jsonLog';

export const ACCESS_LOG_PATH = '.quarry/memory/accesses.jsonl';
export const DECAY = 0.5;
export const GIT_WEIGHT = 0.25;
const MAX_PER_CHUNK = 50;
const COMPACT_BYTES = 1024 * 1024;

export interface AccessEvent {
  id: string;
  /** ms since epoch. */
  at: number;
  /** Who reported it: vscode, lsp, mcp, cli. */
  source?: string;
}

export interface ActivationEvidence {
  /** Access times, ms since epoch, oldest first. */
  accesses: readonly number[];
  commits?: number;
  lastModifiedMs?: number;
}

/**
 * Activation on a fixed 0..1 scale, so that one chunk with evidence among many without is still distinguished:
 * B = -10 (about one commit a year ago) → 0, B = 0 → 1. One access a minute ago ≈ 0.8, a day ago ≈ 0.43, a month
 * ago ≈ 0.26; 23 commits with the last two days ago ≈ 0.57.
 */
export function normalizedActivation(raw: number): number {
  return Math.min(1, Math.max(0, (raw - ACTIVATION_FLOOR) / (ACTIVATION_CEIL - ACTIVATION_FLOOR)));
}
export const ACTIVATION_FLOOR = -10;
export const ACTIVATION_CEIL = 0;

/** ACT-R base-level activation, or undefined without evidence. */
export function baseLevelActivation(e: ActivationEvidence, now = Date.now()): number | undefined {
  const age = (t: number) => Math.max(60, (now - t) / 1000);
  let sum = 0;
  for (const t of e.accesses) sum += age(t) ** -DECAY;
  if (e.commits && e.commits > 0 && e.lastModifiedMs) sum += GIT_WEIGHT * e.commits * age(e.lastModifiedMs) ** -DECAY;
  return sum > 0 ? Math.log(sum) : undefined;
}

/** The access log of one workspace; reads are cached until the file changes. */
export class AccessLog {
  readonly path: string;
  private cache?: { key: string; history: Map<string, number[]> };

  constructor(root: string) {
    this.path = join(root, ACCESS_LOG_PATH);
  }

  /** Records that these chunks were used now. */
  record(ids: readonly string[], source: string, at = Date.now()): void {
    const unique = [...new Set(ids)];
    appendLog(this.path, unique.map((id): AccessEvent => ({ id, at, source })));
    this.compactIfLarge();
  }

  /** Access times per chunk id (oldest first, the last MAX_PER_CHUNK). */
  history(): Map<string, number[]> {
    let key = 'none';
    if (existsSync(this.path)) {
      const st = statSync(this.path);
      key = `${st.size}:${st.mtimeMs}`;
    }
    if (this.cache?.key === key) return this.cache.history;
    const history = new Map<string, number[]>();
    for (const { value } of readLog<AccessEvent>(this.path).lines) {
      if (typeof value.id !== 'string' || typeof value.at !== 'number' || !Number.isFinite(value.at)) continue;
      let list = history.get(value.id);
      if (!list) history.set(value.id, (list = []));
      list.push(value.at);
    }
    for (const [id, list] of history) {
      list.sort((a, b) => a - b);
      if (list.length > MAX_PER_CHUNK) history.set(id, list.slice(-MAX_PER_CHUNK));
    }
    this.cache = { key, history };
    return history;
  }

  private compactIfLarge(): void {
    if (!existsSync(this.path) || statSync(this.path).size < COMPACT_BYTES) return;
    rewriteLog<AccessEvent>(this.path, (current) => {
      const byId = new Map<string, AccessEvent[]>();
      for (const { value } of current.lines) {
        if (typeof value.id !== 'string' || typeof value.at !== 'number') continue;
        let list = byId.get(value.id);
        if (!list) byId.set(value.id, (list = []));
        list.push(value);
      }
      return [...byId.values()].flatMap((list) => list.sort((a, b) => a.at - b.at).slice(-MAX_PER_CHUNK));
    });
  }
}
