/**
 * The memos that make indexing fast and are worth little after it (issue 19).
 *
 * Indexing splits, stems, counts and embeds the same identifiers and lines over and over (code repeats its names),
 * so the tokenizer, the token counter and the code model's features remember their answers per word, per line, per
 * identifier (each memo bounded). After a large run they hold tens of MB of heap — about 26 MB in a language server
 * that has just indexed 1,000 Go files — that searches do not use: a query is a few words. A long-running process
 * (the language server, the HTTP and MCP doors) empties them when a large run ends (`Engine`); they fill again
 * with what the next run needs. A memo that searches use (the scorer's stems of a candidate) is not one of these.
 */

/** Held weakly: a per-model memo goes with its model. */
let memos: Array<WeakRef<Memo>> = [];

interface Memo {
  clear(): void;
  readonly size: number;
}

/** A memo owner registers its memo (once, at module load; per model for per-model memos). */
export function registerIndexingMemo(memo: Memo): void {
  memos.push(new WeakRef(memo));
}

/**
 * Empties every registered memo that is still alive, then (`collect`) asks V8 for a full garbage collection: what the
 * memos held — the code model's 24 MB table among them — and the run's own garbage are otherwise freed whenever V8
 * next decides to collect, which in a language server is after the warm-up that follows the run (its searches and
 * read snapshots), so both were resident at once: the first index's highest memory (issue 19).
 */
export function releaseIndexingMemos(collect = false): void {
  memos = memos.filter((ref) => {
    const memo = ref.deref();
    memo?.clear();
    return memo !== undefined;
  });
  if (collect) fullGc()?.();
}

let gc: (() => void) | null | undefined;

/** V8's `gc()` (as `--expose-gc` gives it), obtained once at run time; null where it cannot be. */
function fullGc(): (() => void) | null {
  if (gc !== undefined) return gc;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const v8 = require('node:v8') as typeof import('node:v8');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const vm = require('node:vm') as typeof import('node:vm');
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  } catch {
    gc = null;
  }
  return gc;
}

/** Entries held by the registered memos (diagnostics and tests). */
export function indexingMemoEntries(): number {
  let n = 0;
  for (const ref of memos) n += ref.deref()?.size ?? 0;
  return n;
}

/** Runs that wrote at least this many chunks or vectors leave memos worth releasing. */
export const RELEASE_AFTER_CHUNKS = 1_000;
