/** The McpServer instance both doors (stdio, HTTP) serve: Quarry's name, version and usage instructions. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Engine } from '../engine/engine';
import { registerQuarryTools, type QuarryToolOptions } from './tools';

export const SERVER_NAME = 'quarry';
export const SERVER_VERSION = '0.1.0';

/** A new MCP server with Quarry's tools (search, implementations, symbols, status, agent memory) over `engine`. */
export function createQuarryMcpServer(engine: Engine, tools: QuarryToolOptions = {}): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      instructions:
        "Quarry searches this workspace's code. Use find_code for \"where/how is X done\" and identifiers, " +
        'find_implementations for "what implements X", find_symbol to jump to a named symbol, index_status to check the index. ' +
        'record_pattern saves a reusable way of solving a task here (found later by find_code as type reasoning), ' +
        'report_pattern_use reports reusing one, report_results_used tells Quarry which results you used.',
    },
  );
  registerQuarryTools(server, engine, tools);
  return server;
}
