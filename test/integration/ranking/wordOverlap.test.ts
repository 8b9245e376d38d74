import assert from 'node:assert/strict';
import { Engine } from '../../../server/src/engine/engine';
import { removeDir, tempDir, writeFiles } from '../../support/workspace';

/**
 * The keyword channel counts each word of a description once across the index's fields (bm25.wordOverlap): a chunk
 * that holds the question's distinctive words beats one that repeats its common words in every field.
 */
const FILES: Record<string, string> = {
  'src/embedding/registry.ts': [
    'export interface EmbeddingProvider { embed(texts: string[]): Promise<number[][]> }',
    'const providers = new Map<string, () => EmbeddingProvider>();',
    '',
    'export function createEmbeddingProvider(name: string): EmbeddingProvider {',
    '  const embeddingProvider = providers.get(name);',
    '  if (!embeddingProvider) throw new Error(`unknown embedding provider ${name}`);',
    '  return embeddingProvider();',
    '}',
  ].join('\n'),
  'src/embedding/limiter.ts': [
    'export class ConcurrencyLimiter {',
    '  private active = 0;',
    '  private readonly waiting: Array<() => void> = [];',
    '  constructor(readonly max: number) {}',
    '  async run<T>(task: () => Promise<T>): Promise<T> {',
    '    while (this.active >= this.max) await new Promise<void>((r) => this.waiting.push(r));',
    '    this.active++;',
    '    try { return await task(); } finally { this.active--; this.waiting.shift()?.(); }',
    '  }',
    '}',
  ].join('\n'),
  ...Object.fromEntries(
    ['Local', 'Remote', 'Cached', 'Static', 'Hashed', 'Null'].map((kind) => [
      `src/embedding/providers/${kind.toLowerCase()}.ts`,
      `import type { EmbeddingProvider } from '../registry';\n\nexport class ${kind}EmbeddingProvider implements EmbeddingProvider {\n  async embed(texts: string[]): Promise<number[][]> {\n    return texts.map((t) => [t.length]);\n  }\n}\n`,
    ]),
  ),
  'src/text/split.ts': 'export function splitWords(text: string): string[] {\n  return text.split(/\\s+/).filter(Boolean);\n}\n',
  'src/text/join.ts': 'export function joinLines(lines: string[]): string {\n  return lines.join("\\n");\n}\n',
};

const QUERY = 'limit the number of concurrent requests to the embedding provider';

describe('keyword channel: one saturated share per query word (bm25.wordOverlap)', function () {
  this.timeout(60_000);
  const roots: string[] = [];
  after(() => roots.forEach(removeDir));

  async function search(overlap?: number): Promise<Array<{ symbol: string; line: string }>> {
    const root = tempDir('quarry-overlap-');
    roots.push(root);
    const bm25 = overlap === undefined ? '' : `bm25:\n  wordOverlap: ${overlap}\n`;
    writeFiles(root, { ...FILES, '.quarry/config.yml': `embedding:\n  provider: none\nrerank:\n  provider: none\n${bm25}` });
    const engine = await Engine.open(root);
    try {
      await engine.index();
      const res = await engine.search(QUERY, { limit: 10, explain: true });
      const out = res.matches.map((m) => ({ symbol: m.content.symbol, line: m.explanation.find((l) => l.startsWith('bm25 ')) ?? '' }));
      if (process.env.DEBUG_OVERLAP) console.log(out.map((o) => `${o.symbol} ${o.line.slice(0, 160)}`).join('\n'));
      return out;
    } finally {
      await engine.close();
    }
  }

  it('by default ranks the chunk with the distinctive words first and says how the score was counted', async () => {
    const hits = await search();
    assert.equal(hits[0].symbol, 'ConcurrencyLimiter', hits.map((h) => h.symbol).join(', '));
    assert.match(hits[0].line, /^bm25 [\d.]+ \(each query word: its best field \+ 0\.25 × its other fields\) from /);
  });

  it('with wordOverlap 1 sums every field, as the index scores, and the common words win', async () => {
    const hits = await search(1);
    assert.notEqual(hits[0].symbol, 'ConcurrencyLimiter', hits.map((h) => h.symbol).join(', '));
    assert.match(hits[0].line, /^bm25 [\d.]+ = /);
  });
});
