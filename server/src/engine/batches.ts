/**
 * Work cut into batches by count and by size (issue 19): what a batch holds in memory at once — a batch of files'
 * chunks, lexical documents and store rows, or the stored chunks a derived-conformance pass reads back — grows with
 * the bytes of its files, so a folder of large generated files must not make one batch of them.
 */
import { packBatches } from './embedding/vector';

/** Source bytes per batch of an indexing run, and per read of a derived-conformance pass (2 MiB). */
export const DEFAULT_BATCH_BYTES = 2 * 1024 * 1024;

/**
 * The items in order, cut into batches of at most `maxItems` items and `maxBytes` bytes (`size` of each item); an item
 * larger than `maxBytes` is a batch of its own (the cut of embedding/vector.ts `packBatches`, which the remote
 * providers' requests use too).
 */
export function sizedBatches<T>(items: readonly T[], maxItems: number, maxBytes: number, size: (item: T) => number = (x) => (x as { size: number }).size): T[][] {
  return packBatches(items, size, maxItems, maxBytes).map((batch) => batch.map((i) => items[i]!));
}
