/**
 * Quarry's MCP tools (seed 002 FR-014..FR-016, FR-021a, FR-028): `find_code` (the required name, with exactly
 * FR-014a's parameters and FR-014b's `FindCodeResponseSummary` as declared output schema), `find_implementations`,
 * `find_symbol` and `index_status`. Every tool returns structured content plus a readable text rendering; failures
 * (an invalid query, a closed index) come back as tool errors (`isError: true`) with the message, never as protocol
 * errors.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerMemoryTools } from './memoryTools';
import { breakdownLine } from '../engine/search/breakdown';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { toolInput } from './toolInput';
import type { Engine } from '../engine/engine';
import { INTENT_TYPES, type CodeMatch, type FindCodeResponseSummary } from '../engine/api/results';
import { countTokens } from '../engine/tokenize/tokenCount';
import { knownLanguageIds, languageIdFor } from '../engine/languages';
import { QueryError } from '../engine/ranking/query';
import { describeOwner, readOwner } from '../engine/indexer/owner';
import { readSkippedRecord } from '../engine/indexer/indexer';
import { isNotableSkip, skippedForPeople } from '../engine/indexer/skippedReport';

// ---------------------------------------------------------------------------------------------------------------
// Schemas

const nameRangeSchema = z.object({ line: z.number().int(), column: z.number().int(), end_line: z.number().int(), end_column: z.number().int() });

const matchSchema = z.object({
  file: z.object({ path: z.string(), language: z.string() }),
  content: z.object({
    chunk_id: z.string(),
    content: z.string(),
    line_range: z.tuple([z.number().int(), z.number().int()]),
    language: z.string(),
    kind: z.string(),
    symbol: z.string(),
    semantic_class: z.string(),
    doc: z.string(),
    signature: z.string(),
    token_count: z.number().int(),
    metadata: z
      .record(z.string(), z.union([z.string(), z.number()]))
      .optional()
      .describe('Source-specific facts; conversation-log phases: source_file, topic, conversation_date, query, phase_number, phase_name; reasoning patterns: pattern_id, pattern_type, success_score, usage_count, created_at, updated_at'),
  }),
  span: z.tuple([z.number().int(), z.number().int()]).describe("1-based inclusive line range of the unit"),
  name_range: nameRangeSchema.describe("Where the unit is named (its declaration's identifier, a section's heading): 1-based line, 1-based UTF-16 column, exclusive end column"),
  relevance_score: z.number().min(0).max(1),
  score: z.number(),
  match_type: z.enum(['SEMANTIC', 'SYNTACTIC', 'KEYWORD', 'FILE_PATTERN']),
  related_symbols: z.array(z.string()),
  why: z.string().describe('Why it is here, in plain words: "defines `parse`", "implements `Observer`", "matches 3 of 4 words (in its name)"'),
  explanation: z.array(z.string()),
  git: z
    .object({ status: z.enum(['tracked', 'untracked', 'unavailable']), commits: z.number().int().nullable(), last_modified: z.string().nullable() })
    .optional()
    .describe("Git history of the chunk's lines, computed at index time: commits touching them, last modification (ISO)"),
  activation: z
    .object({ score: z.number().min(0).max(1), accesses: z.number().int(), last_accessed: z.string().nullable() })
    .optional()
    .describe('How often and how recently the chunk was used (report_results_used) or changed; score normalised within this search'),
  matched_symbol: z.string().optional().describe('The member an identifier query named inside this chunk (a class kept whole), e.g. BaseChunk.chunk_id'),
  score_breakdown: z
    .object({
      final: z.number(),
      bm25: z.object({ score: z.number(), reason: z.string(), exact: z.boolean() }).optional(),
      semantic: z.object({ similarity: z.number(), reason: z.string() }).optional(),
      activation: z.object({ score: z.number(), reason: z.string() }).optional(),
      git: z.string().optional(),
    })
    .optional()
    .describe('Why it ranked here: keyword (BM25) and semantic parts with their reasons, activation, git history'),
});

/** FR-014b `FindCodeResponseSummary` (plus Quarry's warnings, suggestions and index size). */
export const findCodeResponseSchema = z.object({
  matches: z.array(matchSchema),
  summary: z.string().max(1000),
  query_intent: z.string().nullable(),
  total_matches: z.number().int(),
  total_results: z.number().int(),
  token_count: z.number().int(),
  execution_time_ms: z.number(),
  search_strategy: z.array(z.enum(['HYBRID_SEARCH', 'SEMANTIC_RERANK', 'SPARSE_ONLY', 'DENSE_ONLY', 'KEYWORD_FALLBACK'])),
  languages_found: z.array(z.string()),
  warnings: z.array(z.string()),
  suggestions: z.array(z.string()),
  searched: z.object({ chunks: z.number().int(), files: z.number().int() }),
});

const intentSchema = z
  .union([z.enum(INTENT_TYPES), z.string()])
  .describe(`Optional search intent: ${INTENT_TYPES.join(', ')} (case-insensitive). Unknown values are accepted and ignored; omit to detect it from the query.`);

/** A response far beyond any agent's context window is a mistake, not a request. */
export const MAX_TOKEN_LIMIT = 1_000_000;

export const findCodeInputShape = {
  query: z.string().describe('What to find: natural language ("where are prices formatted"), an identifier ("InventoryCatalog"), "what implements X", quoted phrases, lang:/path:/type: filters.'),
  intent: intentSchema.optional(),
  token_limit: z.number().int().min(1).max(MAX_TOKEN_LIMIT).default(10000).describe(`Max tokens (o200k BPE) of returned code (1..${MAX_TOKEN_LIMIT}); long matches are cut (marked) so that every match fits, lower-ranked ones dropped only when that is not enough.`),
  include_tests: z.boolean().optional().describe('Include test files. Omitted: only when the query is about tests (intent TEST, or it asks how something is tested); false otherwise (seed 002 default). An explicit false always wins.'),
  focus_languages: z.array(z.string()).optional().describe('Only these languages, e.g. ["python","typescript"].'),
  max_results: z.number().int().min(1).max(1000).default(50).describe('Max matches to return.'),
};

const symbolSchema = z.object({
  name: z.string(),
  symbol: z.string().describe('Qualified symbol'),
  kind: z.string(),
  container: z.string(),
  path: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  name_range: nameRangeSchema.describe("Where the symbol's name is: 1-based line, 1-based UTF-16 column, exclusive end column"),
  match: z.enum(['exact', 'prefix', 'camel', 'fuzzy']),
  score: z.number(),
});
const findSymbolOutput = z.object({ symbols: z.array(symbolSchema), total: z.number().int() });

/** How many skipped files `index_status` names. */
const SKIPPED_NAMED = 50;

const indexStatusOutput = z.object({
  root: z.string(),
  index_exists: z.boolean(),
  files: z.number().int(),
  chunks: z.number().int(),
  conformances: z.number().int(),
  // not z.record: zod's record rejects an object with an own `constructor` key, and 'constructor' is a chunk kind
  chunks_by_kind: z.object({}).catchall(z.number()),
  chunks_by_language: z.object({}).catchall(z.number()),
  last_indexed: z.string().nullable(),
  last_duration_ms: z.number().nullable(),
  index_size_bytes: z.number(),
  indexing_in_progress: z.boolean(),
  indexing: z.object({ pid: z.number(), host: z.string(), started_at: z.string() }).nullable(),
  problems: z.array(z.string()),
  notes: z.array(z.string()).describe('Facts that are not problems, e.g. an interrupted full rebuild (the previous index still answers)'),
  skipped: z
    .object({
      at: z.string(),
      total: z.number().int(),
      by_reason: z.object({}).catchall(z.number()),
      files: z.array(z.object({ path: z.string(), reason: z.string(), detail: z.string().optional() })),
    })
    .nullable()
    .describe(`The files the last whole-workspace index run skipped: the total, counts by reason, and the first ${SKIPPED_NAMED} by path, reasons that usually matter first (unreadable, too-large, binary, minified, symlinks, secret)`),
  owner: z
    .object({
      kind: z.enum(['lsp', 'serve', 'mcp']),
      pid: z.number(),
      host: z.string(),
      started_at: z.string(),
      alive: z.boolean(),
      this_process: z.boolean(),
      mcp_url: z.string().nullable(),
    })
    .nullable()
    .describe('The process that keeps this index fresh (.quarry/owner.json); other processes only read the index.'),
});

// ---------------------------------------------------------------------------------------------------------------
// Token budget

export const TRUNCATION_MARKER = '\n… [truncated by Quarry to fit token_limit]';

/** The least a match is cut to before lower-ranked matches are dropped instead: a signature, its doc and a few lines. */
export const MIN_MATCH_SHARE = 100;

/**
 * Fits the matches into `limit` tokens of match content (real BPE counts), keeping as many matches as the budget can
 * truly hold: when the whole list does not fit, every match keeps its text up to a common cap (the largest that fits:
 * small matches stay whole, long ones — a big class, a long function — are cut at a line boundary with a marker), and
 * lower-ranked matches are dropped only when that cap would fall under `MIN_MATCH_SHARE` tokens (a lone match bigger
 * than the whole budget is cut to it). Rank order is kept. Returns the kept matches (with `content.token_count` set to
 * their real count), their total, how many were dropped and how many cut (and the cap).
 */
export function fitToTokenLimit(matches: CodeMatch[], limit: number): { matches: CodeMatch[]; tokens: number; dropped: number; truncated: number; cap?: number } {
  // a match's `token_count` is its chunk's, counted by the chunker on this very content (chunking/common.ts): counting
  // it again cost 1-3 ms per answer at 100k chunks (issue 21); 0 (unknown) is counted here
  const sizes = matches.map((m) => (m.content.token_count > 0 ? m.content.token_count : countTokens(m.content.content)));
  const whole = (m: CodeMatch, n: number): CodeMatch => ({ ...m, content: { ...m.content, token_count: n } });
  if (sizes.reduce((a, b) => a + b, 0) <= limit) return { matches: matches.map((m, i) => whole(m, sizes[i])), tokens: sizes.reduce((a, b) => a + b, 0), dropped: 0, truncated: 0 };
  // the largest cap c with sum(min(size, c)) <= limit over the first k matches, for the largest k whose cap is >= the share
  let k = matches.length;
  let cap = waterLevel(sizes.slice(0, k), limit);
  while (k > 1 && cap < MIN_MATCH_SHARE) cap = waterLevel(sizes.slice(0, --k), limit);
  const kept: CodeMatch[] = [];
  let tokens = 0;
  let truncated = 0;
  for (let i = 0; i < k; i++) {
    const m = matches[i];
    if (sizes[i] <= cap) {
      kept.push(whole(m, sizes[i]));
      tokens += sizes[i];
      continue;
    }
    const cut = truncateToTokens(m.content.content, Math.min(cap, limit - tokens));
    if (!cut) continue;
    kept.push({ ...m, content: { ...m.content, content: cut.text, token_count: cut.tokens } });
    tokens += cut.tokens;
    truncated++;
  }
  return { matches: kept, tokens, dropped: matches.length - kept.length, truncated, cap };
}

/** The largest c with sum(min(size, c)) <= limit (sizes' total over the limit). */
function waterLevel(sizes: number[], limit: number): number {
  let lo = 0;
  let hi = Math.max(0, ...sizes);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sizes.reduce((n, x) => n + Math.min(x, mid), 0) <= limit) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The longest line prefix of `text` that, with the marker, fits `limit` tokens; undefined when not even the marker fits. */
function truncateToTokens(text: string, limit: number): { text: string; tokens: number } | undefined {
  const lines = text.split('\n');
  const at = (k: number) => lines.slice(0, k).join('\n') + TRUNCATION_MARKER;
  let lo = 0;
  let hi = lines.length - 1;
  if (countTokens(at(0)) > limit) return undefined;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countTokens(at(mid)) <= limit) lo = mid;
    else hi = mid - 1;
  }
  const out = at(lo);
  return { text: out, tokens: countTokens(out) };
}

/**
 * For "what implements X": declarations that name X in their header (`class A implements X`, `impl X for T`,
 * `class A: X`, `class A(X)`) come first, in rank order, before everything else (X's own declaration included).
 */
export function conformersFirst(matches: CodeMatch[], name: string): CodeMatch[] {
  const simple = name.split(/[.:]+/).pop() ?? name;
  const word = new RegExp(`(^|[^\\w$])${simple.replace(/[$]/g, '\\$&')}([^\\w$]|$)`);
  const conforms = (m: CodeMatch): boolean => {
    const own = (m.content.symbol.split(/[.:#>\s]+/).pop() ?? '').trim();
    if (own === simple) return false;
    return word.test(declarationHeader(m.content.content));
  };
  const first = matches.filter(conforms);
  return first.length ? [...first, ...matches.filter((m) => !first.includes(m))] : matches;
}

/** The first declaration line(s) of a chunk, past doc comments and attributes, up to its body. */
function declarationHeader(content: string): string {
  const lines = content.split('\n');
  let i = 0;
  let inBlock = false;
  for (; i < lines.length; i++) {
    const t = lines[i].trim();
    if (inBlock) {
      if (t.includes('*/')) inBlock = false;
      continue;
    }
    if (!t || t.startsWith('//') || t.startsWith('#[') || t.startsWith('@') || (t.startsWith('#') && !t.startsWith('#include'))) continue;
    if (t.startsWith('/*')) {
      inBlock = !t.includes('*/');
      continue;
    }
    break;
  }
  const header = lines.slice(i, i + 3).join(' ');
  const brace = header.search(/[{]/);
  return brace >= 0 ? header.slice(0, brace) : header;
}

// ---------------------------------------------------------------------------------------------------------------
// Rendering

function renderFindCode(r: FindCodeResponseSummary): string {
  const out: string[] = [r.summary];
  const meta = [`intent: ${r.query_intent ?? 'none'}`, `strategy: ${r.search_strategy.join('+') || 'none'}`, `tokens: ${r.token_count}`, `${r.execution_time_ms} ms`];
  out.push(`(${meta.join('; ')})`);
  if (r.warnings.length) out.push('', 'Warnings:', ...r.warnings.map((w) => `- ${w}`));
  if (!r.matches.length && r.suggestions.length) out.push('', 'Suggestions:', ...r.suggestions.map((s) => `- ${s}`));
  r.matches.forEach((m, i) => {
    const sym = m.content.symbol ? ` ${m.content.symbol}` : '';
    const at = `${m.file.path}:${m.name_range.line}:${m.name_range.column}`;
    out.push('', `## ${i + 1}. ${at}${sym} (${m.content.kind}, lines ${m.span[0]}-${m.span[1]}) relevance ${m.relevance_score.toFixed(2)} [${m.match_type}]`);
    const scores = m.score_breakdown ? breakdownLine(m.score_breakdown) : '';
    const why = [m.why, scores].filter(Boolean).join('; ');
    if (why) out.push(`Why: ${why}`);
    const fence = m.content.content.includes('```') ? '````' : '```';
    out.push(fence + m.file.language, m.content.content, fence);
  });
  return out.join('\n');
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

// ---------------------------------------------------------------------------------------------------------------
// Registration

export interface QuarryToolOptions {
  /**
   * Settles when the first index run of this process is done (stdio: index on start). Searches wait for it up to
   * `readyWaitMs` and then run on what is indexed so far (with an "indexing in progress" warning).
   */
  ready?: Promise<unknown>;
  readyWaitMs?: number;
  /** Whether this process may index (false while another process owns the index); see memoryTools.ts. */
  mayIndex?: () => boolean;
}

export interface FindCodeArgs {
  query: string;
  intent?: string;
  token_limit?: number;
  include_tests?: boolean;
  focus_languages?: string[];
  max_results?: number;
}

/** Runs find_code's semantics on the engine (exported for the HTTP door's tests and other callers). */
export async function findCode(engine: Engine, args: FindCodeArgs): Promise<FindCodeResponseSummary> {
  const tokenLimit = args.token_limit ?? 10000;
  const maxResults = args.max_results ?? 50;
  const extra: string[] = [];
  if (args.intent !== undefined && args.intent.trim() && !(INTENT_TYPES as readonly string[]).includes(args.intent.trim().toUpperCase())) {
    extra.push(`Unknown intent "${args.intent}" ignored (known: ${INTENT_TYPES.join(', ')}).`);
  }
  const named = args.focus_languages?.map((l) => l.trim()).filter(Boolean);
  // ids or their common aliases (ts, py, golang, c#, ...)
  const languages = named?.map((l) => languageIdFor(l) ?? l.toLowerCase());
  if (named?.length) {
    const unknown = named.filter((l) => !languageIdFor(l));
    // An unknown language would silently return nothing: say which and what is known instead.
    if (unknown.length) throw new QueryError(`Unknown language(s) in focus_languages: ${unknown.join(', ')}. Known: ${knownLanguageIds().join(', ')} (also ts, js, py, golang, rs, c#, kt, rb, sh, md, yml, c++).`);
  }
  const res = await engine.search(args.query, {
    limit: maxResults,
    includeTests: args.include_tests ?? 'auto',
    languages: languages?.length ? languages : undefined,
    intent: args.intent ?? null,
  });
  const fit = fitToTokenLimit(res.matches, tokenLimit);
  const warnings = [...res.warnings, ...extra];
  let summary = res.summary;
  if (fit.dropped > 0 || fit.truncated > 0) {
    const what = [
      fit.truncated > 0 ? `${fit.truncated} long match(es) cut to about ${fit.cap} tokens each (marked "truncated")` : '',
      fit.dropped > 0 ? `${fit.dropped} lower-ranked match(es) dropped` : '',
    ].filter(Boolean).join(' and ');
    const note = `Response limited to token_limit=${tokenLimit}: ${what}; returning ${fit.matches.length} match(es), ${fit.tokens} tokens. Raise token_limit or narrow the query for more.`;
    warnings.push(note);
    summary = `${summary} Truncated to fit token_limit ${tokenLimit}: ${fit.matches.length} of ${res.matches.length} match(es) returned.`;
  }
  const languagesFound = [...new Set(fit.matches.map((m) => m.file.language))].sort();
  return {
    ...res,
    matches: fit.matches,
    summary: summary.slice(0, 1000),
    total_results: fit.matches.length,
    token_count: fit.tokens,
    languages_found: languagesFound,
    warnings,
  };
}

export function registerQuarryTools(server: McpServer, engine: Engine, options: QuarryToolOptions = {}): void {
  registerMemoryTools(server, engine, { mayIndex: options.mayIndex });
  const waitReady = async (): Promise<void> => {
    if (!options.ready) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      options.ready.catch(() => undefined),
      new Promise<void>((r) => (timer = setTimeout(r, options.readyWaitMs ?? 15_000))),
    ]);
    clearTimeout(timer);
  };

  const respond = (r: FindCodeResponseSummary): CallToolResult => ({
    content: [{ type: 'text', text: renderFindCode(r) }],
    structuredContent: r as unknown as Record<string, unknown>,
  });

  server.registerTool(
    'find_code',
    {
      title: 'Find code',
      description:
        'Hybrid code search (code-aware BM25 + embeddings + rerank) over the indexed workspace. Returns ranked code chunks ' +
        '(path, line span, symbol, kind, relevance, content), best first, within token_limit. Use for "where is X done", ' +
        'identifiers, and "what implements X".',
      inputSchema: toolInput(findCodeInputShape),
      outputSchema: findCodeResponseSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      try {
        await waitReady();
        return respond(await findCode(engine, args as FindCodeArgs));
      } catch (e) {
        return toolError(messageOf(e));
      }
    },
  );

  server.registerTool(
    'find_implementations',
    {
      title: 'Find implementations',
      description:
        'Types that implement, conform to, extend or `impl` the named interface/protocol/trait/base class (all languages), ' +
        'through the conformance index. Same result schema as find_code.',
      inputSchema: toolInput({
        name: z.string().describe('Interface, protocol, trait or base-class name, e.g. "ChunkStore".'),
        max_results: z.number().int().min(1).max(1000).default(20).describe('Max matches to return.'),
        include_tests: z.boolean().default(false).describe('Include test files.'),
      }),
      outputSchema: findCodeResponseSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ name, max_results, include_tests }) => {
      try {
        const n = name.trim();
        if (!/^[\p{L}_$][\p{L}\p{N}_$.:<>]*$/u.test(n)) return toolError(`find_implementations needs a type name such as "ChunkStore", got ${JSON.stringify(name)}.`);
        await waitReady();
        const res = await findCode(engine, { query: `what implements ${n}`, max_results, include_tests });
        return respond({ ...res, matches: conformersFirst(res.matches, n) });
      } catch (e) {
        return toolError(messageOf(e));
      }
    },
  );

  server.registerTool(
    'find_symbol',
    {
      title: 'Find symbol',
      description: 'Workspace symbols by name: exact > prefix > camel-hump ("OSP" → OrderSummaryPanel) > fuzzy. Returns name, kind, container, path and lines.',
      inputSchema: toolInput({
        query: z.string().min(1).describe('Symbol name or abbreviation.'),
        limit: z.number().int().min(1).max(1000).default(50).describe('Max symbols to return.'),
      }),
      outputSchema: findSymbolOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, limit }) => {
      try {
        await waitReady();
        const hits = await engine.symbols(query, limit);
        const symbols = hits.map((h) => ({
          name: h.name,
          symbol: h.symbol,
          kind: h.kind,
          container: h.container,
          path: h.path,
          start_line: h.startLine,
          end_line: h.endLine,
          name_range: { line: h.nameRange.line, column: h.nameRange.column, end_line: h.nameRange.endLine, end_column: h.nameRange.endColumn },
          match: h.match,
          score: Math.round(h.score * 10000) / 10000,
        }));
        const text = symbols.length
          ? symbols.map((s) => `${s.path}:${s.name_range.line}:${s.name_range.column} ${s.name} (${s.kind})${s.container ? ` in ${s.container}` : ''} [${s.match}]`).join('\n')
          : `No symbols match "${query}".`;
        return { content: [{ type: 'text', text }], structuredContent: { symbols, total: symbols.length } };
      } catch (e) {
        return toolError(messageOf(e));
      }
    },
  );

  server.registerTool(
    'index_status',
    {
      title: 'Index status',
      description: 'State of the workspace index: files, chunks, last indexed time, whether indexing is in progress, problems.',
      inputSchema: toolInput({}),
      outputSchema: indexStatusOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      try {
        const s = await engine.status();
        const owner = readOwner(engine.quarryDir);
        const record = readSkippedRecord(engine.quarryDir);
        const shown = record ? skippedForPeople(record) : undefined;
        const out = {
          root: s.root,
          index_exists: s.exists,
          files: s.files,
          chunks: s.chunks,
          conformances: s.conformances,
          chunks_by_kind: s.chunksByKind,
          chunks_by_language: s.chunksByLanguage,
          last_indexed: s.lastIndexed,
          last_duration_ms: s.lastDurationMs,
          index_size_bytes: s.indexSizeBytes,
          indexing_in_progress: s.indexing !== null,
          indexing: s.indexing ? { pid: s.indexing.pid, host: s.indexing.host, started_at: s.indexing.startedAt } : null,
          problems: s.problems,
          notes: s.notes,
          skipped:
            record && shown
              ? { at: record.at, total: shown.total, by_reason: record.byReason, files: shown.files.slice(0, SKIPPED_NAMED).map((f) => ({ path: f.path, reason: f.reason, ...(f.detail ? { detail: f.detail } : {}) })) }
              : null,
          owner: owner
            ? { kind: owner.kind, pid: owner.pid, host: owner.host, started_at: owner.startedAt, alive: owner.alive, this_process: owner.pid === process.pid, mcp_url: owner.mcpUrl ?? null }
            : null,
        };
        const lines = [
          `Index of ${s.root}: ${s.exists ? `${s.files} files, ${s.chunks} chunks` : 'not built yet'}`,
          `Last indexed: ${s.lastIndexed ?? 'never'}${s.lastDurationMs !== null ? ` (${s.lastDurationMs} ms)` : ''}`,
          `Indexing in progress: ${s.indexing ? `yes (since ${s.indexing.startedAt}, pid ${s.indexing.pid})` : 'no'}`,
          `Owner: ${owner ? `${describeOwner(owner)}${owner.pid === process.pid ? ', this process' : ''}${owner.alive ? '' : ' (gone: the next process to start takes over)'}` : 'none'}`,
          ...s.problems.map((p) => `Problem: ${p}`),
          ...s.notes.map((n) => `Note: ${n}`),
          ...(shown && shown.total
            ? [`Skipped files: ${shown.total}`, ...shown.files.filter((f) => isNotableSkip(f.reason)).slice(0, 10).map((f) => `  ${f.path}: ${f.reason}${f.detail ? ` (${f.detail})` : ''}`)]
            : []),
        ];
        return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: out };
      } catch (e) {
        return toolError(messageOf(e));
      }
    },
  );
}
