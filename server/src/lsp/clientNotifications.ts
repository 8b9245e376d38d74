/** Server → client notifications: a folder's state (`codeSearch/statusChanged`) and the MCP endpoints (`codeSearch/mcpEndpoints`). */
import type { ServerContext } from './context';
import type { Folder } from './folder';
import { MCP_ENDPOINTS_NOTIFICATION, McpEndpointsParams, STATUS_CHANGED_NOTIFICATION, StatusChangedParams } from './protocol';

/** Tells the client a folder's state changed (best effort: a closed connection is ignored). */
export function notifyStatus(ctx: ServerContext, f: Folder, message: string, counts?: { files: number; chunks: number }): void {
  const params: StatusChangedParams = { folder: f.uri, name: f.name, state: f.state, searchable: f.searchable, message, ...counts };
  void ctx.connection.sendNotification(STATUS_CHANGED_NOTIFICATION, params).catch(() => undefined);
}

/** Announces the MCP endpoints of every open folder that serves one. */
export function sendMcpEndpoints(ctx: ServerContext): void {
  const params: McpEndpointsParams = {
    endpoints: ctx.folders.filter((f) => f.mcp && !f.closed).map((f) => ({ folder: f.uri, name: f.name, root: f.root, url: f.mcp!.url, token: f.mcp!.token })),
  };
  void ctx.connection.sendNotification(MCP_ENDPOINTS_NOTIFICATION, params).catch(() => undefined);
}
