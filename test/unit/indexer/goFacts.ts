/** Shared by the Go implicit-interface unit tests: Go file facts through the real chunker and tree-sitter parser. */
import type { Parser } from 'web-tree-sitter';
import { loadGrammar, parserFor } from '../../../server/src/engine/chunking/parser';
import { chunkFile } from '../../../server/src/engine/chunking';
import { defaultConfig } from '../../../server/src/engine/config/schema';
import { goFileFacts } from '../../../server/src/engine/chunking/languages/go/facts';
import type { GoChunkRow, GoFileFacts, ImplicitRow } from '../../../server/src/engine/chunking/languages/go/types';

let parser: Parser | undefined;

/** The Go tree-sitter parser (loaded once). */
export async function goParser(): Promise<Parser> {
  return (parser ??= parserFor('go', (await loadGrammar('go'))!));
}

/** Facts of Go files through the real chunker, as the pass reads them back from the store. */
export async function facts(files: Record<string, string>): Promise<GoFileFacts[]> {
  const p = await goParser();
  const out: GoFileFacts[] = [];
  for (const [path, content] of Object.entries(files)) {
    const chunks = await chunkFile({ path, language: 'go', content }, defaultConfig().chunking);
    const rows: GoChunkRow[] = chunks.map((c) => ({ id: c.id, path: c.path, kind: c.kind, symbol: c.symbol, name: c.name, startByte: c.startByte, content: c.content }));
    out.push(goFileFacts(path, rows, p));
  }
  return out;
}

/** "Type Interface kind" per derived row, sorted. */
export const pairs = (rows: ImplicitRow[]) => rows.map((r) => `${r.typeName} ${r.protocolName} ${r.kind}`).sort();
