/**
 * MCP tools for agent memory (seed 003 FR-4 reasoning chunks, activation): record a reusable pattern, report its
 * reuse, report which search results were used. Thin adapters over the engine's memory API; bad input is a tool
 * error (`isError`) that names the parameter and the fix.
 */
import { z } from 'zod';
import { toolInput } from './toolInput';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Engine, PatternChange } from '../engine/engine';
import { patternJson } from '../engine/memory/patterns';

export interface MemoryToolOptions {
  /**
   * Whether this process may index the pattern log right away. False when another process owns the index (it picks
   * the change up itself); the pattern is saved either way.
   */
  mayIndex?: () => boolean;
}

const patternOutput = z.object({
  id: z.string(),
  pattern_type: z.string(),
  description: z.string(),
  context: z.string(),
  success_score: z.number(),
  usage_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  searchable: z.boolean().describe('success_score >= 0.5: found by find_code (type reasoning)'),
});
const patternChangeOutput = z.object({
  pattern: patternOutput,
  indexed: z.boolean().describe('Already in the index (searchable now when searchable is true)'),
  note: z.string().optional(),
});

function changeResult(verb: string, c: PatternChange): CallToolResult {
  const p = c.pattern;
  const state = !p.searchable
    ? 'not searchable (success_score below 0.5; kept in memory)'
    : c.indexed ? 'searchable now' : `searchable after the next index update (${c.note ?? 'not indexed yet'})`;
  const text = `${verb} pattern "${p.id}" (${p.patternType}): success_score ${p.successScore}, used ${p.usageCount}x; ${state}.`;
  return { content: [{ type: 'text', text }], structuredContent: { pattern: patternJson(p), indexed: c.indexed, ...(c.note ? { note: c.note } : {}) } };
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

export function registerMemoryTools(server: McpServer, engine: Engine, options: MemoryToolOptions = {}): void {
  const index = () => options.mayIndex?.() ?? true;

  server.registerTool(
    'record_pattern',
    {
      title: 'Record a reasoning pattern',
      description:
        'Save a reusable way of solving a kind of task in this codebase (agent memory), e.g. how a feature is usually ' +
        'added or a bug class is tracked down. Patterns with success_score >= 0.5 become searchable with find_code ' +
        '(type "reasoning") for later sessions; lower ones are kept but not returned. Same id = revise it.',
      inputSchema: toolInput({
        pattern_type: z.string().describe('Kind of reasoning: decomposition, verification, debugging, refactoring, ...'),
        description: z.string().describe('What the pattern is and when it applies (searchable).'),
        context: z.string().optional().describe('Where it was learned or applied: files, symbols, steps (searchable).'),
        success_score: z.number().describe('How well it worked, 0..1 (>= 0.5 to be searchable).'),
        usage_count: z.number().optional().describe('Times already applied successfully (default 0).'),
        id: z.string().optional().describe('Stable id to revise a pattern; derived from the description when omitted.'),
      }),
      outputSchema: patternChangeOutput.shape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      try {
        const change = await engine.recordPattern(
          { id: args.id, patternType: args.pattern_type, description: args.description, context: args.context, successScore: args.success_score, usageCount: args.usage_count },
          { index: index() },
        );
        return changeResult('Recorded', change);
      } catch (e) {
        return toolError((e as Error).message);
      }
    },
  );

  server.registerTool(
    'report_pattern_use',
    {
      title: 'Report reuse of a pattern',
      description:
        'Tell Quarry that a recorded pattern (a find_code result of kind "reasoning", or an id from record_pattern) was ' +
        'applied again, and whether it worked: usage_count rises and the success score moves toward the outcome.',
      inputSchema: toolInput({
        id: z.string().describe('The pattern id (the result\'s symbol).'),
        succeeded: z.boolean().optional().describe('Did applying it work? Omit when unknown.'),
      }),
      outputSchema: patternChangeOutput.shape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ id, succeeded }) => {
      try {
        return changeResult('Updated', await engine.reportPatternUse(id, succeeded, { index: index() }));
      } catch (e) {
        return toolError((e as Error).message);
      }
    },
  );

  server.registerTool(
    'report_results_used',
    {
      title: 'Report used results',
      description:
        'Tell Quarry which find_code results you actually used (read, edited, relied on). Their activation rises, so ' +
        'they rank a little higher in later searches of this workspace. Give chunk ids (content.chunk_id) or path + line.',
      inputSchema: toolInput({
        results: z
          .array(z.object({ chunk_id: z.string().optional(), path: z.string().optional(), line: z.number().int().optional() }))
          .describe('Used results: {chunk_id} or {path, line}.'),
      }),
      outputSchema: { recorded: z.array(z.string()), unknown: z.array(z.string()) },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ results }) => {
      try {
        if (!results.length) return toolError('report_results_used: "results" is empty; pass at least one {chunk_id} or {path, line}.');
        const bad = results.find((r) => !r.chunk_id && (r.path === undefined || r.line === undefined));
        if (bad) return toolError(`report_results_used: each result needs chunk_id, or path and line (got ${JSON.stringify(bad)}).`);
        const out = await engine.recordAccess(results.map((r) => ({ chunkId: r.chunk_id, path: r.path, line: r.line })), 'mcp');
        const text =
          `Recorded ${out.recorded.length} used result(s).` +
          (out.unknown.length ? ` Not found in the index (re-run find_code for current ids): ${out.unknown.join(', ')}.` : '');
        return { content: [{ type: 'text', text }], structuredContent: out, ...(out.recorded.length ? {} : { isError: true }) };
      } catch (e) {
        return toolError((e as Error).message);
      }
    },
  );
}
