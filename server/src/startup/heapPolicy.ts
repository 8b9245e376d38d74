/**
 * The V8 heap policy of Quarry's processes (issues 19 and 21). Imported by the bundled entry points right after
 * ./unpackNatives, before any work: V8 flags are per process, so the chunking worker threads started later follow it.
 *
 * V8 lets a heap grow to up to 4 times its live size before a full collection when the machine has memory to spare
 * (its growing factor depends on the heap limit, about 4 GB here). An indexing run allocates mostly short-lived data
 * (file texts, chunks, token lists, Arrow rows), so at its peak the heap was mostly uncollected garbage: 300-450 MB
 * with 50-260 MB live on the Go tree. `--heap-growing-percent=N` makes the factor 1 + N/100 instead, without a limit:
 * a hard cap (`--max-old-space-size`) would collect as often but crash a large workspace that needs more; this never
 * fails, it only collects more often.
 *
 * `QUARRY_HEAP_GROWING_PERCENT`: another percentage, or 0 for V8's own policy. A `--heap-growing-percent` given on
 * node's command line is left alone.
 */
import { setFlagsFromString } from 'node:v8';

/** The heap may grow this many percent over its live size before a full collection (measured in BENCHMARKS.md). */
export const DEFAULT_HEAP_GROWING_PERCENT = 30;

/** The percentage to set, or undefined to leave V8's policy (or the command line's flag) alone. */
export function heapGrowingPercent(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): number | undefined {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return undefined;
  const raw = env.QUARRY_HEAP_GROWING_PERCENT?.trim();
  if (raw) {
    const n = Number(raw);
    if (Number.isInteger(n) && n >= 0) return n === 0 ? undefined : n;
  }
  return DEFAULT_HEAP_GROWING_PERCENT;
}

/**
 * V8's young generation of the worker threads (the chunking workers, indexer/chunkPool.ts): at most this many MB per
 * semi-space instead of V8's 16 (issue 19). A flag set at run time applies to the isolates created afterwards, i.e. the
 * worker threads, not the main thread (whose heap already exists: its limit is the command line's
 * `--max-semi-space-size`, which the VS Code client and the CLI's shebang pass).
 */
export const DEFAULT_SEMI_SPACE_MB = 4;

/** The semi-space size to set (`QUARRY_SEMI_SPACE_MB`, 0 for V8's own), or undefined when the command line sets one. */
export function semiSpaceMb(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): number | undefined {
  if (execArgv.some((a) => /^--max[-_]semi[-_]space[-_]size\b/.test(a))) return undefined;
  const raw = env.QUARRY_SEMI_SPACE_MB?.trim();
  if (raw) {
    const n = Number(raw);
    if (Number.isInteger(n) && n >= 0) return n === 0 ? undefined : n;
  }
  return DEFAULT_SEMI_SPACE_MB;
}

export function applyHeapPolicy(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): number | undefined {
  const percent = heapGrowingPercent(env, execArgv);
  if (percent !== undefined) setFlagsFromString(`--heap-growing-percent=${percent}`);
  const semi = semiSpaceMb(env, execArgv);
  if (semi !== undefined) setFlagsFromString(`--max-semi-space-size=${semi}`);
  return percent;
}

applyHeapPolicy();
