/**
 * The engine's embedding provider and reranker: those the caller injects (theirs to close), else those the
 * configuration names (embedding/registry.ts; the engine's to close). A provider that cannot be built is a reported
 * problem, and search goes on with BM25 only.
 */
import type { QuarryConfig } from '../config/schema';
import type { EmbeddingProvider, Reranker } from '../embedding/types';
import { createEmbeddingProvider, createReranker } from '../embedding/registry';
import { StaticEmbeddingProvider } from '../embedding/providers/static';

export interface EngineProviders {
  embedding: EmbeddingProvider | null;
  reranker: Reranker | null;
  /** Those built from configuration, which the engine closes. */
  owned: Array<{ close(): Promise<void> }>;
  /** Why a configured one is missing. */
  problems: string[];
}

/** `undefined`: from the configuration; null: none; else the caller's (EngineOpenOptions). */
export async function openProviders(
  config: QuarryConfig,
  workspaceDir: string,
  injected: { embedding?: EmbeddingProvider | null; reranker?: Reranker | null },
): Promise<EngineProviders> {
  const out: EngineProviders = { embedding: null, reranker: null, owned: [], problems: [] };
  if (injected.embedding !== undefined) out.embedding = injected.embedding;
  else if ((out.embedding = await fromConfig('embedding provider', out.problems, () => createEmbeddingProvider(config.embedding, { workspaceDir })))) out.owned.push(out.embedding);
  if (injected.reranker !== undefined) out.reranker = injected.reranker;
  else {
    // quarry-rerank's name similarities use the code model: the engine's own when that is it
    const codeModel = out.embedding instanceof StaticEmbeddingProvider ? out.embedding : undefined;
    if ((out.reranker = await fromConfig('reranker', out.problems, () => createReranker(config.rerank, { workspaceDir, codeModel })))) out.owned.push(out.reranker);
  }
  return out;
}

/** Builds a provider from the configuration; a failure becomes a reported problem and BM25-only search. */
async function fromConfig<T>(what: string, problems: string[], make: () => Promise<T | null>): Promise<T | null> {
  try {
    return await make();
  } catch (e) {
    problems.push(`${what} unavailable (${(e as Error).message}); searching with BM25 only`);
    return null;
  }
}
