/**
 * Throughput of the local providers on this machine (not a test; run by hand):
 *   npx tsx test/integration/embedding/throughput.bench.ts
 * Inputs: synthetic ~400-token TypeScript chunks, embedded as documentView (natural language, ≤1200 chars) and as
 * codeView (raw code, ~1600 chars).
 */
import { join } from 'node:path';
import { UseEmbeddingProvider } from '../../../server/src/engine/embedding/providers/use';
import { OnnxEmbeddingProvider } from '../../../server/src/engine/embedding/providers/onnx';
import { codeView, documentView } from '../../../server/src/engine/embedding/views';
import type { Chunk } from '../../../server/src/engine/types';
import type { EmbeddingProvider } from '../../../server/src/engine/embedding/types';

function fakeChunk(i: number): Chunk {
  const body = Array.from({ length: 40 }, (_, k) => `  const value${k} = await this.repository${i % 7}.loadRecord(id${k}, { cache: true, retries: ${k % 3} });`).join('\n');
  const content = `/** Loads user records ${i} and validates them. */\nasync function loadUserRecords${i}(ids: string[]): Promise<UserRecord[]> {\n${body}\n}`;
  return {
    id: `c${i}`, path: `src/services/user/userRecords${i % 13}.ts`, language: 'typescript', kind: 'function', symbol: `loadUserRecords${i}`,
    name: `loadUserRecords${i}`, container: '', symbols: [`loadUserRecords${i}`], references: [], conformances: [],
    doc: `Loads user records ${i} and validates them.`, signature: `async function loadUserRecords${i}(ids: string[]): Promise<UserRecord[]>`,
    startLine: 1, endLine: 43, startByte: 0, endByte: content.length, content, semanticClass: 'DEFINITION_CALLABLE', tokenCount: 400,
    contentHash: '', source: 'ast',
  };
}

async function measure(name: string, p: EmbeddingProvider, texts: string[]): Promise<void> {
  await p.embedDocuments(texts.slice(0, 4)); // warm up
  const t0 = performance.now();
  await p.embedDocuments(texts);
  const s = (performance.now() - t0) / 1000;
  const avg = Math.round(texts.reduce((a, t) => a + t.length, 0) / texts.length);
  console.log(`${name.padEnd(44)} ${texts.length} texts (avg ${avg} chars): ${(texts.length / s).toFixed(1)} emb/s, ${((s * 1000) / texts.length).toFixed(1)} ms/text`);
}

(async () => {
  const chunks = Array.from({ length: 128 }, (_, i) => fakeChunk(i));
  const docViews = chunks.map((c) => documentView(c));
  const codeViews = chunks.map((c) => codeView(c));
  const short = chunks.map((c) => `${c.name} ${c.doc}`);
  let t0 = performance.now();
  const use = await UseEmbeddingProvider.load({ batchSize: 16 });
  console.log(`USE-lite load: ${Math.round(performance.now() - t0)} ms`);
  for (const bs of [1, 16]) {
    const p = await UseEmbeddingProvider.load({ batchSize: bs });
    await measure(`local-use batch ${bs}, documentView`, p, docViews);
  }
  for (const maxChars of [300, 600]) await measure(`local-use batch 16, documentView ≤${maxChars} chars`, use, chunks.map((c) => documentView(c, { maxChars })));
  await measure('local-use batch 16, codeView', use, codeViews);
  await measure('local-use batch 16, short (name + doc)', use, short);
  t0 = performance.now();
  const onnx = await OnnxEmbeddingProvider.load({ modelPath: join(__dirname, '..', '..', 'fixtures', 'models', 'tiny-bert-embed'), batchSize: 1 });
  console.log(`onnx tiny model load: ${Math.round(performance.now() - t0)} ms`);
  await measure('onnx tiny (16-d, 0 layers) batch 1, codeView', onnx, codeViews);
  await onnx.close();
})();
