/** Builders of realistic Chunks and Candidates for the intent tests. */
import { createHash } from 'node:crypto';
import type { Candidate, StageContext } from '../../../server/src/engine/ranking/candidate';
import { parseQuery } from '../../../server/src/engine/ranking/query';
import { defaultConfig } from '../../../server/src/engine/config/schema';
import type { Chunk, ChunkKind, SemanticClass } from '../../../server/src/engine/types';
import type { DetectedIntents, IntentAnnotations } from '../../../server/src/engine/ranking/intents';

export interface ChunkSpec {
  path: string;
  kind: ChunkKind;
  content: string;
  semanticClass?: SemanticClass;
  language?: string;
  symbol?: string;
  name?: string;
  startLine?: number;
}

export function chunk(spec: ChunkSpec): Chunk {
  const lines = spec.content.split('\n').length;
  const startLine = spec.startLine ?? 1;
  const isDoc = spec.kind === 'section' || spec.kind === 'text';
  const language = spec.language ?? (spec.path.endsWith('.md') ? 'markdown' : spec.path.endsWith('.py') ? 'python' : spec.path.endsWith('.txt') ? 'text' : 'typescript');
  const symbol = spec.symbol ?? '';
  const name = spec.name ?? symbol.split(/\s*>\s*|\./).pop() ?? '';
  return {
    id: `${spec.path}#${spec.kind}:${symbol || startLine}`,
    path: spec.path,
    language,
    kind: spec.kind,
    symbol,
    name,
    container: '',
    symbols: name ? [name] : [],
    references: [],
    conformances: [],
    doc: '',
    signature: isDoc ? '' : spec.content.split('\n')[0],
    startLine,
    endLine: startLine + lines - 1,
    startByte: 0,
    endByte: Buffer.byteLength(spec.content),
    content: spec.content,
    semanticClass: spec.semanticClass ?? (isDoc ? 'DOCUMENTATION_STRUCTURED' : 'DEFINITION_CALLABLE'),
    tokenCount: Math.ceil(spec.content.length / 4),
    contentHash: createHash('sha256').update(spec.content).digest('hex'),
    source: spec.kind === 'section' ? 'markdown' : spec.kind === 'text' ? 'text' : 'ast',
  };
}

export function candidate(c: Chunk, score: number): Candidate {
  return { id: c.id, path: c.path, chunk: c, score, explanation: [] };
}

/** A Markdown section chunk (`symbol` is the heading path, as chunkMarkdown writes it). */
export function section(path: string, headingPath: string, content: string, startLine: number): Chunk {
  return chunk({ path, kind: 'section', symbol: headingPath, content, startLine, language: 'markdown' });
}

export function ctxFor(query: string, intent?: string | null, detected?: DetectedIntents): StageContext {
  const ctx: StageContext & { intent?: DetectedIntents } = {
    query: parseQuery(query, intent),
    options: { limit: 10, includeTests: true, intent: intent ?? null },
    ranking: defaultConfig().ranking,
    stats: { identifierOccurrences: () => 0 },
  };
  if (detected) ctx.intent = detected;
  return ctx;
}

export const ann = (c: Candidate): IntentAnnotations => (c as Candidate & { intent?: IntentAnnotations }).intent ?? {};
export const ids = (cs: readonly Candidate[]): string[] => cs.map((c) => c.path + (c.chunk?.symbol ? `:${c.chunk.symbol}` : ''));
