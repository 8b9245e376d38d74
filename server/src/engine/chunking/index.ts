/**
 * Chunking (seed 002 FR-006 / FR-039): files with a grammar get syntax-aware chunks (functions, methods,
 * types...), Markdown, AsciiDoc and reStructuredText get heading sections (conversation logs: one knowledge chunk per phase, see conversation.ts),
 * everything else gets paragraph-aware text windows.
 * Never throws on malformed input; a grammar that fails to load falls back to the text chunker.
 */
import type { ChunkingConfig } from '../config/schema';
import { languageById } from '../languages';
import type { Chunk } from '../types';
import { AstChunker } from './ast';
import { finalizeChunks, SourceText, type ChunkDraft } from './common';
import { splitProseComments } from './docComments';
import { languageDefinition } from './languages/registry';
import { initParser, loadGrammar, parserFor } from './parser';
import { asciidocHeadings, chunkMarkdown, chunkText, rstHeadings } from './text';
import { chunkConversation } from './conversation';
import { chunkPatternLog } from './patterns';
import { REASONING_LANGUAGE } from '../memory/patterns';

export interface ChunkInput {
  /** Workspace-relative path with forward slashes. */
  path: string;
  /** Language id from the registry. */
  language: string;
  content: string;
}

export { astLanguageIds } from './languages/registry';
export type { LanguageDefinition } from './languages/types';

/** Optional warm-up: initializes the tree-sitter runtime. */
export async function initChunking(): Promise<void> {
  await initParser();
}

/**
 * C++ written in a `.h` header (fmt, Qt, LLVM name their C++ headers so): classes, namespaces, templates or access
 * specifiers at the start of a line. `.h` is C by its extension, and the C grammar cannot read them.
 */
const CPP_IN_HEADER = /^[ \t]*(namespace(\s+[\w:]+)?\s*\{|class\s+\w+[^;{]*\{|template\s*<|(public|private|protected)\s*:)/m;

/** The grammar and definitions a file is read with: its language's, or C++'s for a C++ header named `.h`. */
function parsingLanguage(input: ChunkInput): string {
  return input.language === 'c' && input.path.endsWith('.h') && CPP_IN_HEADER.test(input.content) ? 'cpp' : input.language;
}

export async function chunkFile(input: ChunkInput, config: ChunkingConfig): Promise<Chunk[]> {
  const src = new SourceText(input.content);
  const parsing = parsingLanguage(input);
  const info = languageById(parsing);
  let drafts: ChunkDraft[] | null = null;
  if (input.language === REASONING_LANGUAGE) return finalizeChunks(input.path, input.language, src, chunkPatternLog(src));
  if (info?.grammar) drafts = await astDrafts({ ...input, language: parsing }, info.grammar, src, config);
  if (!drafts && info?.textChunker === 'markdown') drafts = chunkConversation(src, input.path, config) ?? chunkMarkdown(src, config);
  if (!drafts && info?.textChunker === 'asciidoc') drafts = chunkMarkdown(src, config, asciidocHeadings);
  if (!drafts && info?.textChunker === 'rst') drafts = chunkMarkdown(src, config, rstHeadings);
  if (!drafts) drafts = chunkText(src, config);
  return finalizeChunks(input.path, input.language, src, drafts);
}

async function astDrafts(input: ChunkInput, grammar: string, src: SourceText, config: ChunkingConfig): Promise<ChunkDraft[] | null> {
  const definition = languageDefinition(input.language);
  if (!definition) return null;
  try {
    const language = await loadGrammar(grammar);
    if (!language) return null;
    const parser = parserFor(grammar, language);
    let text = definition.parseText ? definition.parseText(input.content) : input.content;
    let tree = parser.parse(text);
    if (!tree) return null;
    for (let round = 0; round < 3 && definition.unwrapText; round++) {
      const unwrapped = definition.unwrapText(tree.rootNode, text);
      if (unwrapped === null || unwrapped === text) break;
      const again = parser.parse(unwrapped);
      if (!again) break;
      tree.delete();
      tree = again;
      text = unwrapped;
    }
    try {
      return splitProseComments(new AstChunker(definition, input.path, src, tree, config).chunk(), src, input.language, config);
    } finally {
      tree.delete();
    }
  } catch (err) {
    if (process.env.QUARRY_DEBUG_CHUNKING) console.error(`chunking ${input.path}:`, err);
    // a chunker bug or a runtime failure must not lose the file: fall back to text windows
    return null;
  }
}
