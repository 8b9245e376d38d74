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

/** Empties every registered memo that is still alive. */
export function releaseIndexingMemos(): void {
  memos = memos.filter((ref) => {
    const memo = ref.deref();
    memo?.clear();
    return memo !== undefined;
  });
}

/** Entries held by the registered memos (diagnostics and tests). */
export function indexingMemoEntries(): number {
  let n = 0;
  for (const ref of memos) n += ref.deref()?.size ?? 0;
  return n;
}

/** Runs that wrote at least this many chunks or vectors leave memos worth releasing. */
export const RELEASE_AFTER_CHUNKS = 1_000;
