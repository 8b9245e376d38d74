/**
 * `codeSearch/resultOpened` (client → server): the user opened a search result, so its chunk's activation rises (an
 * append to `.quarry/memory/accesses.jsonl`; any process may record it, owner or reader). Best effort: a notification
 * is never answered; a failure is logged. (Patterns other processes record are indexed by fileWatcher.ts.)
 */
import { fileURLToPath } from 'node:url';
import type { ServerContext } from '../context';
import { selectFolders } from '../folder';
import type { ResultOpenedParams } from '../protocol';

export function resultOpened(ctx: ServerContext, params: ResultOpenedParams): void {
  const f = params && typeof params.folder === 'string' ? selectFolders(ctx.folders, params.folder)[0] : undefined;
  if (!f?.engine) return;
  const ref = typeof params.chunkId === 'string' && params.chunkId
    ? { chunkId: params.chunkId }
    : typeof params.uri === 'string' && typeof params.line === 'number' ? { path: fileURLToPath(params.uri), line: params.line } : undefined;
  if (!ref) return;
  f.engine.recordAccess([ref], 'vscode').then(
    (r) => r.unknown.length && ctx.log(`Quarry: an opened result is no longer in the index of ${f.name} (${r.unknown.join(', ')})`),
    (e: Error) => ctx.log(`Quarry: recording an opened result failed: ${e.message}`),
  );
}
