/**
 * `workspace/symbol`: the symbol tables of every searchable folder (no waiting per keystroke: folders still indexing
 * answer later), best match form first (exact, prefix, camel-case, fuzzy), each at its name.
 */
import { CancellationToken, SymbolInformation, SymbolKind, WorkspaceSymbolParams } from 'vscode-languageserver';
import type { SymbolHit } from '../../engine/symbols';
import type { ServerContext } from '../context';
import type { Folder } from '../folder';
import { locationOf } from '../locations';
import { checkCancel } from '../requestGuard';
import { flushBuffers } from '../documentSync';

const MATCH_RANK: Record<string, number> = { exact: 4, prefix: 3, camel: 2, fuzzy: 1 };

export async function workspaceSymbols(ctx: ServerContext, params: WorkspaceSymbolParams, token: CancellationToken): Promise<SymbolInformation[]> {
  const query = params.query ?? '';
  const limit = 200;
  const hits: Array<{ f: Folder; h: SymbolHit }> = [];
  for (const f of ctx.folders) {
    checkCancel(token);
    if (!f.engine || !f.searchable) continue; // no waiting per keystroke: folders still indexing answer later
    await flushBuffers(ctx, f); // the symbols of the edits made before the request
    for (const h of await f.engine.symbols(query, limit)) hits.push({ f, h });
  }
  hits.sort((a, b) => (MATCH_RANK[b.h.match] ?? 0) - (MATCH_RANK[a.h.match] ?? 0) || b.h.score - a.h.score);
  return hits.slice(0, limit).map(({ f, h }) => ({
    name: h.name,
    kind: symbolKindOf(h.kind),
    containerName: h.container || undefined,
    location: locationOf(f, h.path, h.nameRange),
  }));
}

/** The LSP SymbolKind of a chunk kind. */
export function symbolKindOf(kind: string): SymbolKind {
  switch (kind) {
    case 'class':
      return SymbolKind.Class;
    case 'struct':
      return SymbolKind.Struct;
    case 'interface':
    case 'protocol':
    case 'trait':
      return SymbolKind.Interface;
    case 'enum':
      return SymbolKind.Enum;
    case 'function':
      return SymbolKind.Function;
    case 'method':
      return SymbolKind.Method;
    case 'constructor':
      return SymbolKind.Constructor;
    case 'variable':
      return SymbolKind.Variable;
    case 'module':
      return SymbolKind.Module;
    case 'namespace':
      return SymbolKind.Namespace;
    case 'type_alias':
      return SymbolKind.TypeParameter;
    case 'extension':
    case 'impl':
      return SymbolKind.Class;
    case 'section':
      return SymbolKind.String;
    default:
      return SymbolKind.Object;
  }
}
