/**
 * Which text of a chunk a provider embeds: weak English sentence encoders (USE-lite) read the chunk's
 * natural-language view (USE-lite reads about 128 tokens, so 512 characters); code-aware models read code (signature, doc, body) up to their input budget.
 */
import type { Chunk } from '../types';
import type { EmbeddingProvider } from './types';
import { codeView, documentView } from './views';

export function chunkView(chunk: Chunk, provider: EmbeddingProvider): string {
  if (provider.id.startsWith('local-use')) return documentView(chunk, { maxChars: 512 });
  // The static model reads its first maxWords sub-words itself; give it the whole chunk.
  if (provider.id.startsWith('static:')) return codeView(chunk, { maxChars: 16_000 });
  return codeView(chunk, { maxChars: Math.max(512, provider.maxInputTokens * 3) });
}
