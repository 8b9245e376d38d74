/**
 * How a chunk is seen by the lexical index: one token list per field.
 * - name:    the main symbol's parts and whole form (`validateToken` → validate, token, validatetoken), and its
 *            parts' stems (^valid, ^token) for descriptions written in other inflections
 * - symbols: every defined name plus the qualified symbol, parts and whole (`order.total`)
 * - ident:   whole identifiers of the text, normalized (`parse_config` = `parseConfig` → parseconfig)
 * - body:    identifier parts and words of the text, doc comment included (natural-language matching)
 * - path:    parts of the file path
 * - stem:    English stems of the body's words (natural-language queries only)
 */
import type { Chunk } from '../types';
import type { LexicalDoc } from '../store/lexical/segment';
import { nameStemTokens, nameTokens, partTokens, pushPartsAndStems, words } from '../tokenize/codeTokenizer';

/**
 * Names the tokenization below. Change it whenever tokens or fields change: indexes built with another
 * value are rebuilt from the chunk store instead of being searched with mismatched terms.
 */
export const LEXICAL_ANALYZER = 'fields6-exact-loose-stem-v5-marked-names';

export function lexicalDocForChunk(chunk: Chunk): LexicalDoc {
  const names = [chunk.symbol, ...chunk.symbols].filter(Boolean).join(' ');
  const text = chunk.doc && !chunk.content.includes(chunk.doc.slice(0, 40)) ? `${chunk.doc}\n${chunk.content}` : chunk.content;
  // the text's three fields in one pass over its words (as identifierTokens, partTokens and stemTokens read them)
  const ident: string[] = [];
  const body: string[] = [];
  const stem: string[] = [];
  for (const w of words(text)) {
    if (w.length >= 2) ident.push(w.toLowerCase());
    pushPartsAndStems(w, body, stem);
  }
  return {
    id: chunk.id,
    path: chunk.path,
    fields: {
      name: chunk.name ? [...nameTokens(chunk.name), ...nameStemTokens(chunk.name)] : [],
      symbols: nameTokens(names),
      ident,
      body,
      // reasoning patterns all live in one log file: its path says nothing about them, their type does
      path: chunk.source === 'memory' ? partTokens(chunk.container) : partTokens(chunk.path),
      stem,
    },
  };
}
