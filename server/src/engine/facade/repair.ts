/**
 * What the engine repairs by itself: once a generation is opened, a lexical index that was reset (damaged, or built by
 * another tokenizer) is rebuilt from the chunk store and the vector table verified; before an index run writes, a
 * lexical index whose document set disagrees with the chunk store is rebuilt.
 */
import type { ChunkStore } from '../store/chunkStore';
import { resolveGeneration } from '../store/generations';
import type { LexicalIndex } from '../store/lexical/lexicalIndex';
import { acquireIndexLock, IndexLockedError } from '../indexer/lock';
import { environmentCause } from '../store/storeErrors';
import { lexicalDocForChunk } from '../indexer/lexicalDoc';
import type { OpenedIndex } from '../openIndex';
import type { EngineContext } from './context';
import { verifyVectors } from './vectors';

/** After a generation was opened: the lexical index rebuilt when it was reset, the vector table verified. */
export async function afterOpen(ctx: EngineContext, opened: OpenedIndex): Promise<void> {
  if (opened.lexicalReset) await tryRepairLexical(ctx);
  await verifyVectors(ctx);
}

/**
 * After the lexical index was reset on open (damaged, or built by another tokenizer), rebuilds it from the
 * chunk store at once so searches keep working — unless another process is indexing (it will repair it).
 */
async function tryRepairLexical(ctx: EngineContext): Promise<void> {
  let release: (() => void) | undefined;
  try {
    release = acquireIndexLock(ctx.quarryDir);
  } catch (e) {
    // another process is indexing (it repairs it), or the disk is read-only or full: the problem stays reported
    if (e instanceof IndexLockedError || environmentCause(e)) return;
    throw e;
  }
  try {
    // a rebuild switched generations since this engine opened its own: the next search follows it
    if (resolveGeneration(ctx.quarryDir).generation.name !== ctx.generation.name) return;
    if (await repairLexical(ctx.store, ctx.lexical)) ctx.problems = ctx.problems.map((p) => p.replace(/will be rebuilt from the chunk store$/, 'was rebuilt from the chunk store'));
  } catch (e) {
    if (!environmentCause(e)) throw e;
    ctx.problems.push(`the lexical index could not be rebuilt now (${(e as Error).message}); \`quarry index\` rebuilds it`);
  } finally {
    release();
  }
}

/** Rebuilds the lexical index from the chunk store when their document sets differ. */
export async function repairLexical(store: ChunkStore, lexical: LexicalIndex): Promise<boolean> {
  const ids = await store.allChunkIds();
  const lexIds = lexical.allIds();
  if (ids.length === lexIds.length) {
    const set = new Set(ids);
    if (lexIds.every((id) => set.has(id))) return false;
  }
  lexical.clear();
  for await (const batch of store.allChunks()) lexical.add(batch.map(lexicalDocForChunk));
  await lexical.commit();
  return true;
}
