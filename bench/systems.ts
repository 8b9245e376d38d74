/**
 * The systems compared on the same corpus in the same run: Quarry (through its engine facade) and the
 * alternatives a user would otherwise pick — ripgrep (first-hit order), MiniSearch (a plain BM25 library
 * with its default tokenizer) and LanceDB's full-text search with its defaults, the last two over the very
 * chunks Quarry produced, so only retrieval differs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import MiniSearch from 'minisearch';
import * as lancedb from '@lancedb/lancedb';
import { Engine } from '../server/src/engine/engine';
import type { Chunk } from '../server/src/engine/types';
import type { EmbeddingProvider } from '../server/src/engine/embedding/types';
import type { VectorStore } from '../server/src/engine/store/vectorStore';
import { ChunkStore } from '../server/src/engine/store/chunkStore';
import { resolveGeneration, vectorDir } from '../server/src/engine/store/generations';
import type { Hit } from './metrics';
import type { QuerySet } from './sets';

export interface SearchSystem {
  name: string;
  /** Which query sets it takes part in. */
  sets: ReadonlyArray<QuerySet>;
  search(query: string, k: number): Promise<Hit[]>;
  close?(): Promise<void>;
}

export function quarrySystem(engine: Engine, name = 'quarry-bm25', disabledStages?: string[]): SearchSystem {
  return {
    name,
    sets: ['identifier', 'docstring', 'question'],
    async search(query, k) {
      const res = await engine.search(query, { limit: k, includeTests: true, explain: false, disabledStages });
      return res.matches.map((m) => ({ path: m.file.path, startLine: m.span[0], endLine: m.span[1] }));
    },
  };
}

/**
 * Dense-only search with the same embedder, the way a Continue-style tool does it: embed the query, take the
 * nearest chunk vectors, no keyword channel.
 */
/**
 * The chunk store of a workspace's current index: its current generation (a full rebuild writes a new one beside the
 * old, store/generations.ts) with the vector tables every generation shares. Opening `.quarry/` itself reads
 * generation 0, which a rebuilt index no longer uses.
 */
export async function openCurrentStore(workspace: string): Promise<ChunkStore> {
  const quarryDir = join(workspace, '.quarry');
  return (await ChunkStore.open(resolveGeneration(quarryDir).generation.dir, { vectorDir: vectorDir(quarryDir) })).store;
}

export function denseOnlySystem(name: string, provider: EmbeddingProvider, vectors: VectorStore, store: ChunkStore): SearchSystem {
  return {
    name,
    sets: ['identifier', 'docstring', 'question'],
    async search(query, k) {
      const near = await vectors.nearest(await provider.embedQuery(query), k * 3);
      const chunks = await store.chunksByHashes(near.map((h) => h.contentHash));
      const rank = new Map(near.map((h, i) => [h.contentHash, i]));
      return chunks
        .sort((a, b) => (rank.get(a.contentHash) ?? 0) - (rank.get(b.contentHash) ?? 0))
        .slice(0, k)
        .map((c) => ({ path: c.path, startLine: c.startLine, endLine: c.endLine }));
    },
  };
}

export function ripgrepAvailable(): boolean {
  try {
    execFileSync('rg', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** ripgrep for identifier search: whole-word, fixed-string matches in path order; the first k lines. */
export function ripgrepSystem(dir: string): SearchSystem {
  return {
    name: 'ripgrep',
    sets: ['identifier'],
    async search(query, k) {
      const r = spawnSync('rg', ['-n', '-w', '-F', '--no-heading', '--sort', 'path', '-m', String(k), '--', query, '.'], {
        cwd: dir, encoding: 'utf8', maxBuffer: 32 * 1024 * 1024,
      });
      const hits: Hit[] = [];
      for (const line of (r.stdout ?? '').split('\n')) {
        const m = line.match(/^(?:\.\/)?(.+?):(\d+):/);
        if (!m) continue;
        const n = Number(m[2]);
        hits.push({ path: m[1], startLine: n, endLine: n });
        if (hits.length >= k) break;
      }
      return hits;
    },
  };
}

export function miniSearchSystem(chunks: readonly Chunk[]): SearchSystem {
  const ms = new MiniSearch<{ id: number; content: string }>({ fields: ['content'], storeFields: [] });
  ms.addAll(chunks.map((c, i) => ({ id: i, content: c.content })));
  return {
    name: 'minisearch',
    sets: ['identifier', 'docstring', 'question'],
    async search(query, k) {
      return ms.search(query).slice(0, k).map((r) => {
        const c = chunks[r.id as number];
        return { path: c.path, startLine: c.startLine, endLine: c.endLine };
      });
    },
  };
}

export async function lanceFtsSystem(chunks: readonly Chunk[], dir: string): Promise<SearchSystem> {
  rmSync(dir, { recursive: true, force: true });
  const db = await lancedb.connect(dir);
  const table = await db.createTable(
    'chunks',
    chunks.map((c, i) => ({ i, content: c.content })),
  );
  await table.createIndex('content', { config: lancedb.Index.fts() });
  return {
    name: 'lancedb-fts',
    sets: ['identifier', 'docstring', 'question'],
    async search(query, k) {
      let rows: Array<Record<string, unknown>>;
      try {
        rows = await table.query().fullTextSearch(query).select(['i', '_score']).limit(k).toArray();
      } catch {
        return [];
      }
      return rows.map((r) => {
        const c = chunks[Number(r.i)];
        return { path: c.path, startLine: c.startLine, endLine: c.endLine };
      });
    },
    async close() {
      table.close();
      db.close();
    },
  };
}

export function lanceDir(cacheDir: string, corpus: string): string {
  return join(cacheDir, 'lancedb-fts', corpus);
}
