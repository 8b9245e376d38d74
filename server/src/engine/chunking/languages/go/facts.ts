/**
 * What one Go file contributes to the implicit-conformance join, from its stored chunks: its package, the types it
 * declares (parsed only where the text says it is needed) and its methods with their signatures.
 */
import type { Parser } from 'web-tree-sitter';
import { declarationsIn } from './declarations';
import { dirOf, folderPackage, goImportsIn, packageIn } from './packages';
import { methodHeadersIn, needsParse, TYPE_GROUP } from './source';
import { attachSignatures } from './syntax';
import type { DeclaredType, GoChunkRow, GoFileFacts, GoMethodDecl, GoNameContext, GoSignatureMemo, MethodHeader } from './types';

const TYPE_KINDS = new Set(['struct', 'interface', 'type_alias']);

/**
 * Method declarations (receiver type, name, pointer receiver) in a piece of Go source; with a parser, each with its
 * signature (type names resolved in `cx`) when its header parses.
 */
export function goMethodsIn(text: string, parser?: Parser, cx: GoNameContext = { pkg: '' }): GoMethodDecl[] {
  const items = methodHeadersIn(text);
  if (parser && items.length) attachSignatures(parser, items, cx);
  return items.map((i) => i.decl);
}

/** Facts of one file from its stored chunks. */
export function goFileFacts(path: string, chunks: readonly GoChunkRow[], parser: Parser, memo?: GoSignatureMemo): GoFileFacts {
  const facts: GoFileFacts = { path, types: [], methods: [] };
  // over-long declarations are split into contiguous pieces with the same symbol: parse them whole
  const typePieces = new Map<string, GoChunkRow[]>();
  const headers: MethodHeader[] = [];
  let imports: ReturnType<typeof goImportsIn> | undefined;
  for (const c of [...chunks].sort((a, b) => a.startByte - b.startByte)) {
    if (!facts.packageName) {
      facts.packageName = packageIn(c.content);
      // the package clause and the imports are kept with the file's first chunk
      if (facts.packageName) imports = goImportsIn(c.content);
    }
    if (TYPE_KINDS.has(c.kind)) {
      const key = `${c.kind}\0${c.symbol}`;
      const pieces = typePieces.get(key);
      if (pieces) pieces.push(c);
      else typePieces.set(key, [c]);
    } else {
      headers.push(...methodHeadersIn(c.content));
    }
  }
  const cx: GoNameContext = { pkg: facts.packageName ?? folderPackage(dirOf(path)), aliases: imports?.aliases, dotImport: imports?.dotImport };
  attachSignatures(parser, headers, cx, memo);
  facts.methods = headers.map((h) => h.decl);
  for (const pieces of typePieces.values()) {
    const first = pieces[0];
    const text = pieces.map((p) => p.content).join('');
    const lone: DeclaredType[] = first.name ? [{ name: first.name, interface: false, methods: [], embeds: [], constraint: false }] : [];
    let types = lone;
    if (needsParse(first.kind, text)) {
      const found = declarationsIn(parser, text, cx);
      if (found.aliases.length) (facts.aliases ??= []).push(...found.aliases);
      // a lone `type A = B` still counts as a type named A (methods declared on receiver A land there)
      if (first.kind !== 'type_alias' || TYPE_GROUP.test(text)) types = found.types;
    }
    // what the chunker recorded as conformances: embedded types (explicit rows exist for the group's first type)
    for (const t of types) facts.types.push({ ...t, chunkId: first.id, path, explicit: t.embeds.map((e) => e.name) });
  }
  return facts;
}
