/**
 * Stand-alone entry of the stdio MCP server: `node --import tsx server/src/mcp/main.ts [projectDir]` (tests, and
 * MCP client configs that run the sources). The CLI's `quarry mcp [--project DIR]` calls runMcpStdio the same way.
 */
import { runMcpStdio } from './stdio';

runMcpStdio(process.argv[2] ?? process.cwd()).then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`[quarry mcp] ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
