/**
 * Quarry's custom LSP messages (method names and payloads): the one module the server (`server/src/lsp/*`) and its
 * clients (the VS Code extension in `client/src/*`, tests) share. Neutral on purpose: plain types and strings only,
 * no import of vscode, vscode-languageserver or the engine's internals — only the engine's data shapes (`api/`, a
 * leaf of type declarations), so that the client bundle pulls in nothing but these constants.
 */
import type { CodeMatch, FindCodeResponseSummary } from '../engine/api/results';

export type { CodeMatch, FindCodeResponseSummary };

export const FIND_METHOD = 'codeSearch/find';
export const STATUS_METHOD = 'codeSearch/status';
export const REINDEX_METHOD = 'codeSearch/reindex';
export const STATUS_CHANGED_NOTIFICATION = 'codeSearch/statusChanged';
/** Server → client: the MCP endpoints (Streamable HTTP) this language server serves, sent whenever they change. */
export const MCP_ENDPOINTS_NOTIFICATION = 'codeSearch/mcpEndpoints';

/**
 * Client → server: the user opened a search result (QuickPick accept, results view). Its chunk's activation rises
 * (seed 003 FR-6.4), so it ranks a little higher next time. `folder` is the match's folder URI.
 */
export const RESULT_OPENED_NOTIFICATION = 'codeSearch/resultOpened';
export interface ResultOpenedParams {
  folder: string;
  chunkId?: string;
  /** File URI and 1-based line, when the chunk id is unknown. */
  uri?: string;
  line?: number;
}

/** An LSP position/range/location, spelled out so that this file has no protocol dependency. */
export interface LspLocation {
  uri: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}

export interface FindParams {
  query: string;
  limit?: number;
  includeTests?: boolean;
  languages?: string[];
  types?: string[];
  intent?: string | null;
  explain?: boolean;
  /** Only this workspace folder: its URI, name or path. Default: every folder. */
  folder?: string;
}

export interface LocatedMatch extends CodeMatch {
  /**
   * Where the match is named: `uri` of the file, `range` = the match's `name_range` in LSP terms (0-based line and
   * UTF-16 character) — the declaration's identifier, so opening it lands like Go to Symbol. The unit's lines stay in `span`.
   */
  location: LspLocation;
  /** URI of the workspace folder the match comes from. */
  folder: string;
}

export interface FindResult extends FindCodeResponseSummary {
  matches: LocatedMatch[];
  /** The matches' locations, in order (same as `matches[i].location`). */
  locations: LspLocation[];
}

export type FolderState = 'opening' | 'indexing' | 'embedding' | 'ready' | 'error' | 'closed';

export interface FolderStatus {
  uri: string;
  name: string;
  root: string;
  state: FolderState;
  /** Searches run (the lexical phase of the first index run is committed, or an index existed). */
  searchable: boolean;
  /** The last problem (open or index failure), if any. */
  error: string | null;
  /** The engine's status; null when the engine could not be opened. */
  status: FolderIndexStatus | null;
  /** The folder's MCP endpoint served by this language server; null when off or not started. */
  mcp?: { url: string; token: string } | null;
  /**
   * Who keeps the folder's index fresh (`.quarry/owner.json`): this server (`thisProcess`), or another process —
   * then this server only reads the index. Null when nobody does.
   */
  owner?: { kind: 'lsp' | 'serve' | 'mcp'; pid: number; thisProcess: boolean; mcpUrl: string | null } | null;
  /** The files the last whole-workspace run skipped (path and reason); null before any such run. */
  skipped?: FolderSkipped | null;
}

/**
 * A folder's index as the engine reports it (`Engine.status()`, whose result the server sends as is; the server's
 * status handler only compiles while the engine's shape still fits this one).
 */
export interface FolderIndexStatus {
  root: string;
  indexDir: string;
  exists: boolean;
  files: number;
  chunks: number;
  conformances: number;
  chunksByKind: Record<string, number>;
  chunksByLanguage: Record<string, number>;
  lastIndexed: string | null;
  lastDurationMs: number | null;
  indexSizeBytes: number;
  /** The process writing the index now, if any. */
  indexing: { pid: number; host: string; startedAt: string } | null;
  /** Problems found when opening the index (it will be rebuilt by the next index run). */
  problems: string[];
  /** Facts worth knowing that are not problems (an interrupted full rebuild: the previous index still answers). */
  notes?: string[];
}

/** The skipped files of the folder's last whole-workspace index run, in showing order (notable reasons first). */
export interface FolderSkipped {
  /** When that run ended (ISO). */
  at: string;
  /** Every skipped file, those not listed by name included. */
  total: number;
  byReason: Record<string, number>;
  /**
   * The first ones (at most `SKIPPED_SENT`), notable reasons first; `notable`: a reason that usually means a file the
   * user expected in the index (unreadable, too large, binary, minified, symlinks, secrets), not an ignore rule.
   */
  files: Array<{ path: string; reason: string; detail?: string; notable: boolean }>;
}

/** How many skipped files `codeSearch/status` names per folder. */
export const SKIPPED_SENT = 50;

/** One workspace folder's MCP endpoint: `url` (http://127.0.0.1:PORT/mcp) with `Authorization: Bearer <token>`. */
export interface McpEndpoint {
  /** Folder URI. */
  folder: string;
  name: string;
  root: string;
  url: string;
  /** Per server start: a restarted language server has a new one. */
  token: string;
}

export interface McpEndpointsParams {
  endpoints: McpEndpoint[];
}

export interface StatusResult {
  folders: FolderStatus[];
}

export interface ReindexParams {
  full?: boolean;
  /** Only this folder (URI, name or path). */
  folder?: string;
}

export interface ReindexResult {
  folders: Array<{ uri: string; filesIndexed?: number; filesRemoved?: number; totalChunks?: number; durationMs?: number; error?: string }>;
}

/** `codeSearch/statusChanged` (server → client) whenever a folder's state changes. */
export interface StatusChangedParams {
  folder: string;
  name: string;
  state: FolderState;
  searchable: boolean;
  message: string;
  /** Files and chunks in the index, when known. */
  files?: number;
  chunks?: number;
}

/** `initializationOptions` the server understands. */
export interface QuarryInitializationOptions {
  /** false: no embedding provider (BM25 only), whatever the configuration says. */
  embedding?: boolean;
  /** false: no reranker. */
  reranker?: boolean;
  /** false: do not index on start (searches use the existing index). Default true. */
  indexOnStart?: boolean;
  /** Batch window for file-watch events, ms (default 150). */
  watchDebounceMs?: number;
  /** Debounce of unsaved-buffer updates per document, ms (default 200). */
  bufferDebounceMs?: number;
  /**
   * Editor settings (VS Code `quarry.*`) in the schema of `.quarry/config.yml`, layered over the file's values,
   * e.g. `{ embedding: { provider: 'none' }, discovery: { exclude: ['generated/**'] } }`.
   */
  settings?: unknown;
  /**
   * MCP over Streamable HTTP for agents, one endpoint per folder on loopback with a bearer token per server start
   * (announced with `codeSearch/mcpEndpoints` and in `codeSearch/status`). `http: false` turns it off; `port` (default
   * 0 = any free port) applies to the first folder, later ones take any free port.
   */
  mcp?: { http?: boolean; port?: number };
}
