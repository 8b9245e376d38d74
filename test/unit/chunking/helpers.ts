import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkFile } from '../../../server/src/engine/chunking';
import type { ChunkingConfig } from '../../../server/src/engine/config/schema';
import { languageForPath } from '../../../server/src/engine/languages';
import type { Chunk } from '../../../server/src/engine/types';

export const DEFAULTS: ChunkingConfig = { minTokens: 200, targetTokens: 800, maxTokens: 4000 };
export const FIXTURE_ROOT = path.resolve(__dirname, '../../fixtures/polyglot');

export function chunk(language: string, filePath: string, content: string, config: Partial<ChunkingConfig> = {}): Promise<Chunk[]> {
  return chunkFile({ path: filePath, language, content }, { ...DEFAULTS, ...config });
}

export async function chunkFixture(rel: string, config: Partial<ChunkingConfig> = {}): Promise<Chunk[]> {
  const lang = languageForPath(rel);
  if (!lang) throw new Error(`no language for ${rel}`);
  return chunk(lang.id, rel, fs.readFileSync(path.join(FIXTURE_ROOT, rel), 'utf8'), config);
}

export function bySymbol(chunks: Chunk[], symbol: string): Chunk {
  const found = chunks.find((c) => c.symbol === symbol);
  if (!found) throw new Error(`no chunk with symbol ${symbol}; have: ${chunks.map((c) => `${c.kind}:${c.symbol}`).join(', ')}`);
  return found;
}

export function fixtureFiles(): string[] {
  const walk = (d: string): string[] =>
    fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  return walk(FIXTURE_ROOT)
    .map((f) => path.relative(FIXTURE_ROOT, f).split(path.sep).join('/'))
    .filter((f) => languageForPath(f) && !f.endsWith('.json'))
    .sort();
}
