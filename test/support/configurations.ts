/**
 * The configurations the contract tests run in: as shipped (the configuration's embedding provider and learned scorer:
 * Quarry's own code model and quarry-rerank, both bundled) and with the rule stages alone (BM25, no scorer). The seeds'
 * scenarios must hold in both (ranking/pipeline.ts).
 */
import type { EngineOpenOptions } from '../../server/src/engine/engine';

export interface RankingConfiguration {
  label: string;
  open: EngineOpenOptions;
}

export const RANKING_CONFIGURATIONS: readonly RankingConfiguration[] = [
  { label: 'default configuration: embeddings + learned scorer', open: {} },
  { label: 'rules only: BM25, no scorer', open: { embedding: null, reranker: null } },
];
