/**
 * A workspace folder as the server tracks it (its engine, state, write queue, pending watch events, MCP endpoint,
 * ownership), and how a URI or path finds its folder.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FSWatcher } from 'node:fs';
import { ErrorCodes, ResponseError } from 'vscode-languageserver';
import type { Engine } from '../engine/engine';
import type { IndexOwnership } from '../engine/indexer/owner';
import type { McpHttpHandle } from '../mcp/http';
import type { FolderState } from './protocol';
import { WriteQueue } from './writeQueue';

export interface Folder {
  uri: string;
  name: string;
  root: string;
  engine?: Engine;
  state: FolderState;
  error: string | null;
  searchable: boolean;
  /** Resolves when searches can run (or the folder failed to open). */
  ready: Promise<void>;
  markReady: () => void;
  queue: WriteQueue;
  /** The running index run, when its dense phase may be preempted by other writes. */
  running?: { abort: AbortController; dense: boolean; preempted: boolean };
  /** Pending watched-file paths (workspace-relative) and whether a .gitignore changed. */
  pending: Set<string>;
  pendingIndex: boolean;
  watchTimer?: NodeJS.Timeout;
  /** Watches `.quarry/memory/` for patterns recorded by other processes (agents over stdio MCP, the CLI). */
  memoryWatcher?: FSWatcher;
  /** Open buffers edited since they were last pushed to the engine (by workspace-relative path): their document and debounce timer. */
  bufferTimers: Map<string, { uri: string; timer: NodeJS.Timeout }>;
  /** Buffer writes queued or running (a search waits for them: `flushBuffers`). */
  bufferWrites: Set<Promise<unknown>>;
  /** Paths whose buffer text went to the engine (the index holds the buffer until it is saved or closed). */
  pushedBuffers: Set<string>;
  /** Paths just opened with their on-disk text: the change event that comes with an open is not an edit. */
  openedAsOnDisk: Set<string>;
  closed: boolean;
  /** This server's part in the folder's index ownership; writes only while `owned`. */
  ownership?: IndexOwnership;
  /** The folder's MCP endpoint. */
  mcp?: McpHttpHandle;
  /** The warm-up searches after the first index (engine/search/warmUp.ts); awaited before the engine closes. */
  warming?: Promise<void>;
  /** The engine being opened (folderLifecycle.ts `openEngine`: during `initialize`, or when the folder opens). */
  opening?: Promise<Engine>;
}

export function uriToPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

/** A folder not opened yet (state `opening`); undefined for a URI that is not a file. */
export function makeFolder(uri: string, name: string): Folder | undefined {
  const root = uriToPath(uri);
  if (!root) return undefined;
  let markReady!: () => void;
  const ready = new Promise<void>((r) => (markReady = r));
  const f: Folder = {
    uri,
    name,
    root: resolve(root),
    state: 'opening',
    error: null,
    searchable: false,
    ready,
    markReady: () => undefined,
    queue: new WriteQueue(),
    pending: new Set(),
    pendingIndex: false,
    bufferTimers: new Map(),
    bufferWrites: new Set(),
    pushedBuffers: new Set(),
    openedAsOnDisk: new Set(),
    closed: false,
  };
  f.markReady = () => {
    f.searchable = true;
    markReady();
  };
  return f;
}

/** This server keeps the folder's index fresh (no ownership record: the folder is not open yet). */
export function owns(f: Folder): boolean {
  return f.ownership?.owned !== false;
}

/** The folder holding an absolute path (the innermost root), with the workspace-relative path. */
export function locate(folders: readonly Folder[], absPath: string): { folder: Folder; rel: string } | undefined {
  let best: { folder: Folder; rel: string } | undefined;
  for (const f of folders) {
    const rel = relative(f.root, absPath);
    if (!rel || rel.startsWith('..') || isAbsolute(rel)) continue;
    if (!best || f.root.length > best.folder.root.length) best = { folder: f, rel: rel.split(sep).join('/') };
  }
  return best;
}

/** The folder of a document or file URI, with the workspace-relative path. */
export function locateUri(folders: readonly Folder[], uri: string): { folder: Folder; rel: string } | undefined {
  const abs = uriToPath(uri);
  return abs ? locate(folders, resolve(abs)) : undefined;
}

/** The folders a request names (URI, name or path; every folder when none); InvalidParams when none matches. */
export function selectFolders(folders: Folder[], which: string | undefined): Folder[] {
  if (!which) return folders;
  const asPath = uriToPath(which) ?? which;
  const out = folders.filter((f) => f.uri === which || f.name === which || f.root === resolve(asPath));
  if (!out.length) throw new ResponseError(ErrorCodes.InvalidParams, `No workspace folder "${which}" (open: ${folders.map((f) => f.name).join(', ') || 'none'}).`);
  return out;
}
