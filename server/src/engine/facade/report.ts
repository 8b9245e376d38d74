/**
 * What the engine says about itself: `status()` (the index: counts, last run, the writer, problems and notes) and the
 * inputs of `health()` (seed 002 FR-010; health.ts formats them), with the search metrics they include.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readLock, type LockInfo } from '../indexer/lock';
import { buildHealthReport, type HealthReport } from '../health';
import { RollingLatency } from '../metrics';
import { tally } from '../counts';
import type { FindCodeResponseSummary } from '../api/results';
import type { EngineContext } from './context';

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

/** FR-041 metrics of this engine's searches (rolling over the last 100). */
export class SearchMetrics {
  readonly queryLatency = new RollingLatency(100);
  readonly resultsReturned = new RollingLatency(100);
  readonly vectorStoreLatency = new RollingLatency(100);
  readonly embeddingLatency = new RollingLatency(100);
  readonly intentCounts: Record<string, number> = {};

  /** The channels' timings a search reports (search/search.ts). */
  readonly timings = { vectorStore: (ms: number) => this.vectorStoreLatency.add(ms), embedding: (ms: number) => this.embeddingLatency.add(ms) };

  /** A search's answer. */
  add(res: FindCodeResponseSummary): void {
    this.queryLatency.add(res.execution_time_ms);
    this.resultsReturned.add(res.total_results);
    tally(this.intentCounts, res.query_intent ?? 'NONE');
  }
}

/** Seed 002 FR-010-Enhanced health: indexing progress, services, statistics. */
export async function healthReport(
  ctx: EngineContext,
  stats: { metrics: SearchMetrics; openedAt: number; indexTotals: { chunks: number; errors: number; lastDurationSeconds: number | null } },
): Promise<HealthReport> {
  let storeUp = true;
  let storeLatency: number | null = null;
  let counts = { chunks: 0, files: 0, conformances: 0 };
  const t0 = performance.now();
  try {
    counts = await ctx.store.counts();
    storeLatency = Math.round(performance.now() - t0);
  } catch {
    storeUp = false;
  }
  const m = stats.metrics;
  return buildHealthReport({
    storeUp,
    storeLatencyMs: storeLatency,
    counts,
    languages: storeUp ? Object.keys((await ctx.store.breakdown()).byLanguage).sort() : [],
    embedding: ctx.embedding ? { id: ctx.embedding.id, health: ctx.embedding.health() } : null,
    reranker: ctx.reranker ? { id: ctx.reranker.id, health: ctx.reranker.health() } : null,
    indexing: ctx.indexing,
    lastIndexed: ctx.readState()?.lastIndexed ?? null,
    problems: ctx.problems,
    openedAt: stats.openedAt,
    indexSizeBytes: dirSize(ctx.quarryDir),
    queryLatency: m.queryLatency,
    resultsReturned: m.resultsReturned,
    embeddingLatency: m.embeddingLatency,
    vectorStoreLatency: m.vectorStoreLatency,
    intentCounts: m.intentCounts,
    indexTotals: stats.indexTotals,
  });
}

/** The index as this engine reads it now (the caller follows other processes' commits first). */
export async function indexStatus(ctx: EngineContext): Promise<IndexStatus> {
  const counts = await ctx.store.counts();
  const { byKind, byLanguage } = await ctx.store.breakdown();
  const state = ctx.readState();
  return {
    root: ctx.root,
    indexDir: ctx.quarryDir,
    exists: state !== undefined,
    files: counts.files,
    chunks: counts.chunks,
    conformances: counts.conformances,
    chunksByKind: byKind,
    chunksByLanguage: byLanguage,
    lastIndexed: state?.lastIndexed ?? null,
    lastDurationMs: state?.lastDurationMs ?? null,
    indexSizeBytes: dirSize(ctx.quarryDir),
    indexing: readLock(ctx.quarryDir) ?? null,
    problems: [...ctx.problems],
    notes: [...ctx.notes],
  };
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
