/**
 * The MCP endpoint over stdio, end to end: the real SDK client spawns the real server process (tsx) on a temp copy
 * of the polyglot fixture and calls the seven tools. Also checks that stdout carries nothing but protocol and that
 * the server exits when the client closes.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { copyFixture, removeDir, REPO_ROOT, writeFiles } from '../../support/workspace';
import { findCodeResponseSchema } from '../../../server/src/mcp/tools';
import { countTokens } from '../../../server/src/engine/tokenize/tokenCount';

const ENTRY = join(REPO_ROOT, 'server/src/mcp/main.ts');

interface Match {
  file: { path: string; language: string };
  content: { chunk_id: string; content: string; symbol: string; kind: string; token_count: number; line_range: [number, number] };
  span: [number, number];
  name_range: { line: number; column: number; end_line: number; end_column: number };
  relevance_score: number;
  match_type: string;
  related_symbols: string[];
}
interface FindCode {
  matches: Match[];
  summary: string;
  query_intent: string | null;
  total_matches: number;
  total_results: number;
  token_count: number;
  execution_time_ms: number;
  search_strategy: string[];
  languages_found: string[];
  warnings: string[];
}

export function noEmbeddingConfig(root: string): void {
  mkdirSync(join(root, '.quarry'), { recursive: true });
  writeFileSync(join(root, '.quarry', 'config.yml'), 'embedding:\n  provider: none\nrerank:\n  provider: none\n');
}

describe('MCP over stdio (real SDK client, real server process)', function () {
  this.timeout(120_000);
  let root: string;
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = '';

  before(async () => {
    root = copyFixture('polyglot');
    noEmbeddingConfig(root);
    writeFiles(root, {
      'web/src/catalog.test.ts': "import { InventoryCatalog } from './catalog';\ndescribe('InventoryCatalog', () => { it('formats', () => new InventoryCatalog()); });\n",
    });
    transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', ENTRY, root],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), LANCEDB_LOG: 'error' },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d) => (stderr += String(d)));
    client = new Client({ name: 'quarry-test', version: '0.0.0' });
    await client.connect(transport);
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    removeDir(root);
  });

  async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }
  async function find(args: Record<string, unknown>): Promise<FindCode> {
    const r = await call('find_code', args);
    assert.ok(!r.isError, `find_code failed: ${JSON.stringify(r.content)}`);
    findCodeResponseSchema.parse(r.structuredContent);
    return r.structuredContent as unknown as FindCode;
  }

  it('lists the seven tools with input and output schemas', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['find_code', 'find_implementations', 'find_symbol', 'index_status', 'record_pattern', 'report_pattern_use', 'report_results_used']);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal(t.outputSchema?.type, 'object', t.name);
      assert.ok(t.description && t.description.length < 400, t.name);
    }
    const fc = tools.find((t) => t.name === 'find_code')!;
    assert.deepEqual(Object.keys(fc.inputSchema.properties ?? {}).sort(), ['focus_languages', 'include_tests', 'intent', 'max_results', 'query', 'token_limit']);
    assert.deepEqual(fc.inputSchema.required, ['query']);
    const props = fc.inputSchema.properties as Record<string, { default?: unknown }>;
    assert.equal(props.token_limit.default, 10000);
    // omitted = decided by the query: tests only when it is about tests (seed 002's default false otherwise)
    assert.equal(props.include_tests.default, undefined);
    assert.equal(props.max_results.default, 50);
    for (const f of ['matches', 'summary', 'query_intent', 'total_matches', 'total_results', 'token_count', 'execution_time_ms', 'search_strategy', 'languages_found']) {
      assert.ok((fc.outputSchema?.properties as Record<string, unknown>)[f], `output schema lacks ${f}`);
    }
  });

  it('index_status reports the index built on start', async () => {
    const r = await call('index_status', {});
    assert.ok(!r.isError);
    const s = r.structuredContent as { files: number; chunks: number; last_indexed: string | null; indexing_in_progress: boolean; index_exists: boolean };
    // The first index run may still be finishing when the handshake is done: wait for it.
    for (let i = 0; i < 100 && !(s.index_exists && !s.indexing_in_progress); i++) {
      await new Promise((res) => setTimeout(res, 100));
      Object.assign(s, (await call('index_status', {})).structuredContent);
    }
    assert.ok(s.index_exists);
    assert.ok(s.files >= 10, `files ${s.files}`);
    assert.ok(s.chunks > s.files);
    assert.ok(s.last_indexed);
    assert.equal(s.indexing_in_progress, false);
    // the skipped files of that run and the notes are part of the answer (Quarry's own folder never listed)
    const more = s as unknown as { notes: string[]; skipped: { total: number; files: Array<{ path: string }> } | null };
    assert.ok(Array.isArray(more.notes));
    assert.ok(more.skipped === null || !more.skipped.files.some((f) => f.path.startsWith('.quarry')), JSON.stringify(more.skipped));
  });

  it('find_code: an identifier returns its defining chunk first, with every FR-014b field', async () => {
    const r = await call('find_code', { query: 'InventoryCatalog' });
    const res = r.structuredContent as unknown as FindCode;
    findCodeResponseSchema.parse(res);
    const top = res.matches[0];
    assert.equal(top.file.path, 'web/src/catalog.ts');
    assert.equal(top.content.symbol, 'InventoryCatalog');
    assert.equal(top.relevance_score, 1);
    assert.deepEqual(top.span, top.content.line_range);
    assert.ok(['SEMANTIC', 'SYNTACTIC', 'KEYWORD', 'FILE_PATTERN'].includes(top.match_type));
    assert.ok(Array.isArray(top.related_symbols));
    assert.ok(res.summary.length > 0 && res.summary.length <= 1000);
    assert.equal(res.total_results, res.matches.length);
    assert.ok(res.total_matches >= res.total_results);
    assert.equal(res.token_count, res.matches.reduce((n, m) => n + countTokens(m.content.content), 0));
    assert.ok(res.execution_time_ms >= 0);
    assert.ok(res.search_strategy.length > 0);
    assert.deepEqual(res.languages_found, [...new Set(res.matches.map((m) => m.file.language))].sort());
    // name_range: the identifier, inside the span (issue 18)
    const source = readFileSync(join(root, top.file.path), 'utf8').split('\n');
    const nr = top.name_range;
    assert.ok(top.span[0] <= nr.line && nr.line <= top.span[1], JSON.stringify({ span: top.span, nr }));
    assert.equal(source[nr.line - 1].slice(nr.column - 1, nr.end_column - 1), top.content.symbol.split('.').pop());
    // The readable rendering: summary, then "path:line:col symbol (kind, lines start-end) relevance" and the code.
    const text = (r.content[0] as { text: string }).text;
    assert.match(text, /web\/src\/catalog\.ts:\d+:\d+ InventoryCatalog \(\w+, lines \d+-\d+\) relevance 1\.00/);
    assert.ok(text.includes('class InventoryCatalog'));
  });

  it('find_code excludes tests by default and includes them on request', async () => {
    const without = await find({ query: 'InventoryCatalog' });
    assert.ok(!without.matches.some((m) => m.file.path.endsWith('.test.ts')));
    const withTests = await find({ query: 'InventoryCatalog', include_tests: true });
    assert.ok(withTests.matches.some((m) => m.file.path === 'web/src/catalog.test.ts'));
  });

  it('find_code brings tests in when the question is about tests, unless include_tests is false', async () => {
    const about = await find({ query: 'how is the inventory catalog tested' });
    assert.ok(about.matches.some((m) => m.file.path === 'web/src/catalog.test.ts'), about.matches.map((m) => m.file.path).join('\n'));
    const explicit = await find({ query: 'how is the inventory catalog tested', include_tests: false });
    assert.ok(!explicit.matches.some((m) => m.file.path.endsWith('.test.ts')));
    const intent = await find({ query: 'InventoryCatalog', intent: 'test' });
    assert.ok(intent.matches.some((m) => m.file.path === 'web/src/catalog.test.ts'));
  });

  it('find_code honours focus_languages and max_results', async () => {
    const all = await find({ query: 'order' });
    assert.ok(new Set(all.matches.map((m) => m.file.language)).size > 1, 'the query should hit several languages');
    const py = await find({ query: 'order', focus_languages: ['python'] });
    assert.ok(py.matches.length > 0);
    assert.ok(py.matches.every((m) => m.file.language === 'python'));
    assert.deepEqual(py.languages_found, ['python']);
    // common aliases name the same language
    const alias = await find({ query: 'order', focus_languages: ['py'] });
    assert.deepEqual(alias.matches.map((m) => m.content.chunk_id), py.matches.map((m) => m.content.chunk_id));
    // and the query's own filters: a folder named without a glob
    const inFolder = await find({ query: 'order path:web' });
    assert.ok(inFolder.matches.length > 0 && inFolder.matches.every((m) => m.file.path.includes('web')), JSON.stringify(inFolder.matches.map((m) => m.file.path)));
    const two = await find({ query: 'order', max_results: 2 });
    assert.equal(two.matches.length, 2);
    assert.equal(two.total_results, 2);
  });

  it('find_code fits token_limit with real BPE counts', async () => {
    const full = await find({ query: 'order' });
    assert.ok(full.matches.length >= 3);
    const limit = Math.max(countTokens(full.matches[0].content.content) + 5, 60);
    const small = await find({ query: 'order', token_limit: limit });
    assert.ok(small.matches.length < full.matches.length);
    assert.ok(small.token_count <= limit, `${small.token_count} > ${limit}`);
    assert.equal(small.token_count, small.matches.reduce((n, m) => n + countTokens(m.content.content), 0));
    assert.equal(small.matches[0].content.chunk_id, full.matches[0].content.chunk_id);
    assert.ok(small.warnings.some((w) => /token_limit/.test(w)));
    assert.match(small.summary, /token_limit/);
    // A budget smaller than the top match: it is cut, with a marker, and still fits.
    const tiny = await find({ query: 'InventoryCatalog', token_limit: 20 });
    assert.equal(tiny.matches.length, 1);
    assert.ok(tiny.token_count <= 20);
    assert.match(tiny.matches[0].content.content, /truncated by Quarry/);
  });

  it('find_code accepts known intents in any case, and unknown intent strings (FR-028)', async () => {
    const known = await find({ query: 'database connection pooling implementation', intent: 'implement', max_results: 3 });
    assert.equal(known.query_intent, 'IMPLEMENT');
    const unknown = await find({ query: 'InventoryCatalog', intent: 'REFACTOR_LATER' });
    assert.equal(unknown.matches[0].content.symbol, 'InventoryCatalog');
    assert.ok(unknown.warnings.some((w) => /REFACTOR_LATER/.test(w)));
  });

  it('find_code: an invalid query is a tool error with a clear message, not a protocol error', async () => {
    const empty = await call('find_code', { query: '   ' });
    assert.equal(empty.isError, true);
    assert.match((empty.content[0] as { text: string }).text, /Empty query/);
    const quote = await call('find_code', { query: '"unclosed phrase' });
    assert.equal(quote.isError, true);
    assert.match((quote.content[0] as { text: string }).text, /Unclosed quote/);
    // The server is still fine afterwards.
    assert.ok((await find({ query: 'InventoryCatalog' })).matches.length > 0);
  });

  it('find_code: bad parameters are tool errors naming the parameter, and the server keeps serving', async () => {
    const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
    const negative = await call('find_code', { query: 'InventoryCatalog', max_results: -1 });
    assert.equal(negative.isError, true);
    assert.match(text(negative), /max_results/);
    const huge = await call('find_code', { query: 'InventoryCatalog', token_limit: 1e12 });
    assert.equal(huge.isError, true);
    assert.match(text(huge), /token_limit/);
    const language = await call('find_code', { query: 'InventoryCatalog', focus_languages: ['klingon'] });
    assert.equal(language.isError, true);
    assert.match(text(language), /Unknown language.*klingon.*Known: .*typescript/);
    assert.ok((await find({ query: 'InventoryCatalog' })).matches.length > 0);
  });

  it('an argument a tool does not take is a tool error naming it and what to use, never silently ignored', async () => {
    const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
    // find_symbol's count is `limit`, find_code's `max_results`: the other name used to be dropped without a word
    const limit = await call('find_code', { query: 'InventoryCatalog', limit: 1 });
    assert.equal(limit.isError, true);
    assert.match(text(limit), /"limit" is not an argument of this tool \(use "max_results" for "limit"\); its arguments are query, intent, token_limit, include_tests, focus_languages, max_results\./);
    const max = await call('find_symbol', { query: 'InventoryCatalog', max_results: 1 });
    assert.equal(max.isError, true);
    assert.match(text(max), /"max_results" is not an argument of this tool \(use "limit" for "max_results"\); its arguments are query, limit\./);
    const status = await call('index_status', { verbose: true });
    assert.equal(status.isError, true);
    assert.match(text(status), /"verbose" is not an argument of this tool; it takes none\./);
    // the schemas say so too, and the right names still work
    const { tools } = await client.listTools();
    for (const t of tools) assert.equal((t.inputSchema as { additionalProperties?: unknown }).additionalProperties, false, t.name);
    assert.equal((await find({ query: 'InventoryCatalog', max_results: 1 })).matches.length, 1);
    const symbols = await call('find_symbol', { query: 'InventoryCatalog', limit: 1 });
    assert.ok(!symbols.isError, text(symbols));
  });

  it('find_implementations: Swift protocol, TS interface, Rust trait', async () => {
    const swift = (await call('find_implementations', { name: 'ChunkStore' })).structuredContent as unknown as FindCode;
    findCodeResponseSchema.parse(swift);
    assert.equal(swift.matches[0]?.content.symbol, 'MemoryChunkStore', JSON.stringify(swift.matches.map((m) => m.content.symbol)));
    const ts = (await call('find_implementations', { name: 'ProductLookup' })).structuredContent as unknown as FindCode;
    assert.equal(ts.matches[0]?.content.symbol, 'InventoryCatalog', JSON.stringify(ts.matches.map((m) => m.content.symbol)));
    const rust = (await call('find_implementations', { name: 'Display' })).structuredContent as unknown as FindCode;
    assert.ok(rust.matches.length > 0);
    assert.equal(rust.matches[0].file.path, 'engine/order_ledger.rs');
    assert.match(rust.matches[0].content.content, /impl (fmt::)?Display for Order/);
    const bad = await call('find_implementations', { name: 'not a name!' });
    assert.equal(bad.isError, true);
  });

  it('find_symbol: exact and camel-hump matches with locations', async () => {
    const r = await call('find_symbol', { query: 'OrderSummaryPanel', limit: 5 });
    const s = r.structuredContent as { symbols: Array<{ name: string; path: string; start_line: number; end_line: number; name_range: { line: number; column: number; end_column: number }; match: string; kind: string }> };
    assert.equal(s.symbols[0].name, 'OrderSummaryPanel');
    assert.equal(s.symbols[0].match, 'exact');
    assert.equal(s.symbols[0].path, 'web/ui/OrderSummary.tsx');
    assert.ok(s.symbols[0].end_line >= s.symbols[0].start_line);
    const nr = s.symbols[0].name_range;
    assert.equal(readFileSync(join(root, 'web/ui/OrderSummary.tsx'), 'utf8').split('\n')[nr.line - 1].slice(nr.column - 1, nr.end_column - 1), 'OrderSummaryPanel');
    assert.match((r.content[0] as { text: string }).text, /^web\/ui\/OrderSummary\.tsx:\d+:\d+ OrderSummaryPanel /m);
    const camel = (await call('find_symbol', { query: 'OSP' })).structuredContent as typeof s;
    assert.ok(camel.symbols.some((x) => x.name === 'OrderSummaryPanel'));
  });

  it('on an existing index, warms up before it answers the handshake (the first question does not load the models)', async () => {
    // the suite's server built the index of `root` on start; a second server over the same folder reads it
    const second = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', ENTRY, root],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), LANCEDB_LOG: 'error' },
      stderr: 'pipe',
    });
    let err = '';
    second.stderr?.on('data', (d) => (err += String(d)));
    const c = new Client({ name: 'quarry-test-2', version: '0.0.0' });
    try {
      await c.connect(second);
      const warmed = err.search(/warmed up in \d+ ms|still warming up after/);
      const serving = err.search(/serving .* over stdio/);
      assert.ok(warmed >= 0 && serving > warmed, err);
      const r = (await c.callTool({ name: 'find_code', arguments: { query: 'computeBasketTotal' } })) as CallToolResult;
      assert.equal((r.structuredContent as unknown as FindCode).matches[0]!.content.symbol, 'computeBasketTotal');
    } finally {
      await c.close().catch(() => undefined);
    }
  });

  it('writes nothing but protocol to stdout, logs to stderr, and exits when the client closes', async () => {
    // Every stdout line was a JSON-RPC message, or the client would have reported errors and the calls above failed.
    assert.match(stderr, /\[quarry mcp\]/);
    const pid = transport.pid!;
    const exited = new Promise<void>((res) => {
      const t = setInterval(() => {
        try {
          process.kill(pid, 0);
        } catch {
          clearInterval(t);
          res();
        }
      }, 50);
    });
    const started = Date.now();
    await client.close();
    await exited;
    assert.ok(Date.now() - started < 10_000);
    assert.match(stderr, /shutting down \(stdin closed|transport closed/);
  });
});

describe('MCP stdio server process (raw pipes)', function () {
  this.timeout(120_000);

  it('stdout carries only JSON-RPC lines, stderr the logs; exit code 0 when stdin closes', async () => {
    const { spawn } = await import('node:child_process');
    const root = copyFixture('polyglot');
    noEmbeddingConfig(root);
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, root], { cwd: REPO_ROOT, env: { ...process.env, LANCEDB_LOG: 'error' }, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += String(d)));
      child.stderr.on('data', (d) => (err += String(d)));
      const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n');
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'find_code', arguments: { query: 'computeBasketTotal' } } });
      const started = Date.now();
      while (!out.includes('"id":2') && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 50));
      child.stdin.end();
      const code = await exit;
      assert.equal(code, 0, err);
      const lines = out.split('\n').filter((l) => l.trim());
      assert.ok(lines.length >= 2);
      for (const l of lines) assert.equal(JSON.parse(l).jsonrpc, '2.0', `non-protocol stdout line: ${l}`);
      const reply = lines.map((l) => JSON.parse(l)).find((m) => m.id === 2);
      assert.equal(reply.result.structuredContent.matches[0].content.symbol, 'computeBasketTotal');
      assert.match(err, /indexed .* in \d+ ms/);
    } finally {
      removeDir(root);
    }
  });
});
