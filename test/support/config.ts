/** Workspace configuration helpers for tests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** BM25 only (no embedder, no reranker): fast, deterministic searches. */
export function noEmbeddingConfig(root: string): void {
  mkdirSync(join(root, '.quarry'), { recursive: true });
  writeFileSync(join(root, '.quarry', 'config.yml'), 'embedding:\n  provider: none\nrerank:\n  provider: none\n');
}
