/**
 * The configured model's vector table as the engine uses it: the dense channel of a search, its verification when a
 * generation is opened, and the quarantine of a table proven damaged (the table is shared by every generation:
 * store/vectorStore.ts).
 */
import { quarantineVectorTable } from '../store/chunkStore';
import { VectorTableDamagedError } from '../store/vectorStore';
import { vectorDir } from '../store/generations';
import { acquireIndexLock } from '../indexer/lock';
import { lockHeldByThisProcess } from '../indexer/owner';
import type { DenseChannel } from '../retrieval/hybrid';
import { writeStateIn } from '../openIndex';
import type { EngineContext } from './context';

/** The dense channel for searches, when a provider is set and vectors exist for its model. */
export async function denseChannel(ctx: EngineContext, warnings: string[]): Promise<DenseChannel | undefined> {
  const provider = ctx.embedding;
  if (!provider || ctx.config.retrieval.fusion === 'lexical') return undefined;
  const cov = ctx.readState()?.embeddings?.[provider.id];
  if (!cov) {
    warnings.push(`Semantic search is not available yet: nothing is embedded with ${provider.id}. Run \`quarry index\` to embed the code.`);
    return undefined;
  }
  // the model's vector table was found damaged (this engine's problems, and so the answer's warnings, say so)
  if (cov.lost) {
    if (!warnings.includes(cov.lost)) warnings.push(cov.lost);
    return undefined;
  }
  let vectors;
  try {
    vectors = await ctx.store.vectors(provider.id, provider.dims);
  } catch (e) {
    if (!(e instanceof VectorTableDamagedError)) throw e;
    warnings.push(vectorsDamaged(ctx, e));
    return undefined;
  }
  return { provider, vectors, coverage: cov.distinct ? 1 - cov.remaining / cov.distinct : 1 };
}

/**
 * Verifies the vector table of the configured model when the index says it holds vectors (on open, as the chunk
 * tables are): a damaged one is quarantined and reported (search is keyword-only until `quarry index` re-embeds).
 */
export async function verifyVectors(ctx: EngineContext): Promise<void> {
  const provider = ctx.embedding;
  if (!provider || ctx.config.retrieval.fusion === 'lexical') return;
  const cov = ctx.readState()?.embeddings?.[provider.id];
  if (!cov) return;
  if (cov.lost) {
    if (!ctx.problems.includes(cov.lost)) ctx.problems.push(cov.lost);
    return;
  }
  try {
    await ctx.store.vectors(provider.id, provider.dims);
  } catch (e) {
    // the environment (disk, permissions) is reported by the search that needs the table, as before
    if (e instanceof VectorTableDamagedError) vectorsDamaged(ctx, e);
  }
}

/**
 * A vector table proven damaged: moved to the quarantine under the index lock (unless someone is writing the index:
 * its dense phase finds the damage too) and recorded in state.json, so that every process says so until the next
 * dense phase embeds again. Returns the problem, which this engine reports from now on.
 */
function vectorsDamaged(ctx: EngineContext, e: VectorTableDamagedError): string {
  const off = 'semantic search is off (keyword search only) until `quarry index` embeds the code again';
  let problem: string;
  let release: (() => void) | undefined;
  try {
    release = lockHeldByThisProcess(ctx.quarryDir) ? undefined : acquireIndexLock(ctx.quarryDir);
  } catch {
    release = undefined;
  }
  if (!release) {
    problem = `${e.message}: ${off} (it is left in place while the index is being written)`;
  } else {
    try {
      const moved = quarantineVectorTable(ctx.quarryDir, vectorDir(ctx.quarryDir), e.tableName);
      problem = `${e.message}; it was moved to ${moved}: ${off}`;
      const state = ctx.readState();
      const cov = state?.embeddings?.[e.modelId];
      if (state && cov) {
        state.embeddings![e.modelId] = { ...cov, lost: problem };
        writeStateIn(ctx.generation.dir, state);
      }
    } catch (qe) {
      problem = `${e.message}: ${off} (it could not be moved to the quarantine: ${(qe as Error).message})`;
    } finally {
      release();
    }
  }
  if (!ctx.problems.includes(problem)) ctx.problems.push(problem);
  return problem;
}
