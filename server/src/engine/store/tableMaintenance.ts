/**
 * When a LanceDB table is compacted (its small fragments rewritten into one, versions older than a minute removed).
 *
 * LanceDB's `optimize` rewrites every row of the fragments it compacts. Run after every indexing run it rewrote whole
 * tables each time — the highest memory of a language server's first index (issue 19: LanceDB's threads hold the
 * rewritten columns) — for tables that read as fast in a few dozen fragments. So a table is compacted once it has
 * `COMPACT_MIN_SMALL_FRAGMENTS` small fragments: a first index of a thousand files (about ten fragments) is not, the
 * Go tree's (about seventy) is, and a day of editor saves (a fragment each) is, now and then.
 *
 * Old versions (and the data only they reference: rows an update replaced) stay on disk until then; a version is a
 * manifest and the fragments it adds, so that is bounded by the same count.
 */
import type * as lancedb from '@lancedb/lancedb';

export const COMPACT_MIN_SMALL_FRAGMENTS = 64;

/** Compacts `table` and removes its older versions when it has at least `minSmall` small fragments; true if it did. */
export async function compactWhenFragmented(table: lancedb.Table, minSmall = COMPACT_MIN_SMALL_FRAGMENTS): Promise<boolean> {
  if ((await table.stats()).fragmentStats.numSmallFragments < minSmall) return false;
  await optimizeRetryingConflicts(table);
  return true;
}

/** LanceDB `optimize` (compaction, index update, versions older than a minute removed), retried on a commit conflict. */
async function optimizeRetryingConflicts(table: lancedb.Table): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await table.optimize({ cleanupOlderThan: new Date(Date.now() - 60_000) });
      return;
    } catch (e) {
      if (!/commit conflict/i.test(String(e)) || attempt === 2) throw e;
    }
  }
}
