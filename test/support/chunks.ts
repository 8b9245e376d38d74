/** Builds realistic Chunk / Candidate values for stage tests (all fields filled, as the chunker would). */
import { createHash } from 'node:crypto';
import type { Chunk, ChunkKind } from '../../server/src/engine/types';
import type { Candidate, StageContext } from '../../server/src/engine/ranking/candidate';
import { parseQuery } from '../../server/src/engine/ranking/query';
import { defaultConfig } from '../../server/src/engine/config/schema';

export function chunk(p: Partial<Chunk> & { kind: ChunkKind; name: string; content: string; path?: string }): Chunk {
  const path = p.path ?? 'Sources/App/File.swift';
  return {
    id: p.id ?? createHash('sha1').update(path + p.name + p.kind).digest('hex').slice(0, 20),
    path,
    language: p.language ?? 'swift',
    kind: p.kind,
    symbol: p.symbol ?? p.name,
    name: p.name,
    container: p.container ?? '',
    symbols: p.symbols ?? [p.name],
    references: p.references ?? [],
    conformances: p.conformances ?? [],
    doc: p.doc ?? '',
    signature: p.signature ?? '',
    startLine: p.startLine ?? 1,
    endLine: p.endLine ?? 10,
    startByte: 0,
    endByte: p.content.length,
    content: p.content,
    semanticClass: p.semanticClass ?? (p.kind === 'method' || p.kind === 'function' ? 'DEFINITION_CALLABLE' : 'DEFINITION_TYPE'),
    tokenCount: Math.ceil(p.content.length / 4),
    contentHash: createHash('sha256').update(p.content).digest('hex'),
    source: 'ast',
    ...(p.symbolRanges ? { symbolRanges: p.symbolRanges } : {}),
  };
}

export function candidate(c: Chunk, score: number): Candidate {
  return { id: c.id, path: c.path, chunk: c, score, explanation: [] };
}

/** A stage context for `query`, with identifier occurrences from `df` (missing = 0). */
export function stageContext(query: string, df: Record<string, number> = {}, intent?: string): StageContext {
  return {
    query: parseQuery(query, intent),
    options: { limit: 10, includeTests: true },
    ranking: defaultConfig().ranking,
    stats: { identifierOccurrences: (id, cap) => Math.min(cap, df[id.toLowerCase()] ?? 0) },
  };
}
