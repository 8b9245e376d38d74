/**
 * The MCP configuration snippets "Quarry: Copy MCP Config for Agents" offers (pure functions, no `vscode` import, so
 * unit tests can check them):
 * - stdio: `node <extension>/dist/cli.js mcp --project <folder>` per folder — durable (it survives editor restarts);
 *   while the language server owns the folder's index, that process only reads the index (no second indexing).
 * - HTTP: the running language server's Streamable HTTP endpoint with its bearer token — no extra process, but the
 *   URL and token change whenever the language server restarts.
 * Claude Code (`.mcp.json`) and Cursor (`.cursor/mcp.json`) both read `{ "mcpServers": { name: ... } }`; Claude Code
 * wants `"type": "http"` on an HTTP entry, Cursor recognises one by its `url`, so the HTTP entries carry both.
 */
import { join } from 'node:path';

export interface StdioServer {
  command: string;
  args: string[];
}

export interface HttpServer {
  type: 'http';
  url: string;
  headers: { Authorization: string };
}

/**
 * The command line of `quarry mcp` for one folder, with the extension's own CLI bundle and the node flags of its
 * shebang (scripts/build.mjs: baseline-only wasm, a 4 MB young generation).
 */
export function stdioServer(extensionPath: string, folder: string, command = 'node'): StdioServer {
  return { command, args: ['--liftoff-only', '--max-semi-space-size=4', join(extensionPath, 'dist', 'cli.js'), 'mcp', '--project', folder] };
}

/** Server names: `quarry` for a single folder, `quarry-<folder name>` (made unique) for several. */
export function serverNames(names: readonly string[]): string[] {
  if (names.length === 1) return ['quarry'];
  const used = new Set<string>();
  return names.map((n, i) => {
    const base = `quarry-${n.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || String(i + 1)}`;
    let name = base;
    for (let k = 2; used.has(name); k++) name = `${base}-${k}`;
    used.add(name);
    return name;
  });
}

/** `{ "mcpServers": ... }` with a stdio entry per folder. */
export function stdioConfigSnippet(extensionPath: string, folders: ReadonlyArray<{ name: string; path: string }>): string {
  const names = serverNames(folders.map((f) => f.name));
  const servers: Record<string, StdioServer> = {};
  folders.forEach((f, i) => (servers[names[i]] = stdioServer(extensionPath, f.path)));
  return JSON.stringify({ mcpServers: servers }, null, 2);
}

/** `{ "mcpServers": ... }` with an HTTP entry (URL + bearer token) per endpoint. */
export function httpConfigSnippet(endpoints: ReadonlyArray<{ name: string; url: string; token: string }>): string {
  const names = serverNames(endpoints.map((e) => e.name));
  const servers: Record<string, HttpServer> = {};
  endpoints.forEach((e, i) => (servers[names[i]] = { type: 'http', url: e.url, headers: { Authorization: `Bearer ${e.token}` } }));
  return JSON.stringify({ mcpServers: servers }, null, 2);
}
