/**
 * The index requests: `codeSearch/status` (each folder's state, engine status, MCP endpoint and index owner) and
 * `codeSearch/reindex` (an index run of the named folder or of every folder; `full` rebuilds; cancellable).
 */
import type { CancellationToken } from 'vscode-languageserver';
import { readOwner } from '../../engine/indexer/owner';
import { readSkippedRecord } from '../../engine/indexer/indexer';
import { isNotableSkip, skippedForPeople } from '../../engine/indexer/skippedReport';
import type { ServerContext } from '../context';
import { selectFolders } from '../folder';
import { indexFolder } from '../indexRuns';
import { SKIPPED_SENT, type FolderIndexStatus, type FolderSkipped, type FolderStatus, type ReindexParams, type ReindexResult, type StatusResult } from '../protocol';
import { checkCancel } from '../requestGuard';

export async function folderStatus(ctx: ServerContext, _params: unknown, token: CancellationToken): Promise<StatusResult> {
  const out: FolderStatus[] = [];
  for (const f of ctx.folders) {
    checkCancel(token);
    let status: FolderIndexStatus | null = null;
    if (f.engine) {
      try {
        status = await f.engine.status();
      } catch (e) {
        f.error = (e as Error).message;
      }
    }
    const owner = f.engine ? readOwner(f.engine.quarryDir) : undefined;
    const record = f.engine ? readSkippedRecord(f.engine.quarryDir) : undefined;
    let skipped: FolderSkipped | null = null;
    if (record) {
      const { files, total } = skippedForPeople(record);
      skipped = { at: record.at, total, byReason: record.byReason, files: files.slice(0, SKIPPED_SENT).map((x) => ({ path: x.path, reason: x.reason, ...(x.detail ? { detail: x.detail } : {}), notable: isNotableSkip(x.reason) })) };
    }
    out.push({
      uri: f.uri,
      name: f.name,
      root: f.root,
      state: f.state,
      searchable: f.searchable,
      error: f.error,
      status,
      mcp: f.mcp ? { url: f.mcp.url, token: f.mcp.token } : null,
      owner: owner?.alive
        ? { kind: owner.kind, pid: owner.pid, thisProcess: f.ownership?.owned === true && owner.pid === process.pid, mcpUrl: owner.mcpUrl ?? null }
        : null,
      skipped,
    });
  }
  return { folders: out };
}

export async function reindex(ctx: ServerContext, params: ReindexParams | undefined, token: CancellationToken): Promise<ReindexResult> {
  const targets = selectFolders(ctx.folders, params?.folder);
  const abort = new AbortController();
  const sub = token.onCancellationRequested(() => abort.abort());
  try {
    const out: ReindexResult['folders'] = [];
    await Promise.all(
      targets.map(async (f) => {
        if (!f.engine) {
          out.push({ uri: f.uri, error: f.error ?? 'not open' });
          return;
        }
        try {
          const s = await indexFolder(ctx, f, { full: params?.full === true, reason: params?.full ? 'rebuilding the index' : 'updating the index', signal: abort.signal });
          out.push({ uri: f.uri, filesIndexed: s?.filesIndexed, filesRemoved: s?.filesRemoved, totalChunks: s?.totalChunks, durationMs: s?.durationMs });
        } catch (e) {
          out.push({ uri: f.uri, error: (e as Error).message });
        }
      }),
    );
    checkCancel(token);
    return { folders: out };
  } finally {
    sub.dispose();
  }
}
