/**
 * The language server end to end: the real server process (tsx, stdio) driven over JSON-RPC on a temp copy of
 * the polyglot fixture — indexing progress, codeSearch/find|status|reindex, cancellation, workspace/symbol,
 * watched-file and unsaved-buffer freshness, shutdown/exit.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CancellationTokenSource, ResponseError } from 'vscode-jsonrpc/node';
import { copyFixture, removeDir, tempDir, writeFiles } from '../../support/workspace';
import { LspTestClient } from './lspClient';

const REQUEST_CANCELLED = -32800;
const INVALID_PARAMS = -32602;

interface Loc {
  uri: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
}
interface FindResult {
  matches: Array<{ file: { path: string }; content: { symbol: string; kind: string }; span: [number, number]; name_range: { line: number; column: number; end_line: number; end_column: number }; score: number; location: Loc; folder: string }>;
  locations: Loc[];
  summary: string;
  total_results: number;
  warnings: string[];
}
interface SymbolInfo {
  name: string;
  kind: number;
  containerName?: string;
  location: Loc;
}

async function eventually<T>(fn: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; server log: ${serverLog().slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A function large enough to be its own chunk (small neighbours merge below chunking.minTokens). */
function bigFunction(name: string, ts = false): string {
  const body = Array.from({ length: 40 }, (_, i) => `  total${ts ? ': number' : ''} = total + rows.length * ${i + 1} - offset${i % 7};`);
  const decls = Array.from({ length: 7 }, (_, i) => `  const offset${i} = ${i * 3};`);
  return `\n/** Sends the weekly digest of restock rows to the warehouse team. */\nfunction ${name}(rows${ts ? ': unknown[]' : ''}) {\n  let total = 0;\n${decls.join('\n')}\n${body.join('\n')}\n  return total;\n}\n`;
}

function noEmbeddingConfig(root: string): void {
  mkdirSync(join(root, '.quarry'), { recursive: true });
  writeFileSync(join(root, '.quarry', 'config.yml'), 'embedding:\n  provider: none\nrerank:\n  provider: none\n');
}

let serverLog: () => string = () => '';

describe('LSP server (stdio, real process)', function () {
  this.timeout(120_000);
  let root: string;
  let client: LspTestClient;
  let earlyFind: Promise<unknown>;
  let initResult: { capabilities: Record<string, unknown> };

  before(async () => {
    root = copyFixture('polyglot');
    noEmbeddingConfig(root);
    // a binary file with a code extension: skipped, and named in codeSearch/status (issue 20)
    writeFileSync(join(root, 'web', 'blob.ts'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3, 0, 0]));
    client = LspTestClient.spawn();
    serverLog = () => client.logs.join('\n') + '\n' + client.stderr;
    initResult = (await client.initialize([root])) as typeof initResult;
    // A search sent at once and cancelled right away: the index is not ready yet, so the request is waiting.
    const cts = new CancellationTokenSource();
    earlyFind = client.conn.sendRequest('codeSearch/find', { query: 'OrderSummaryPanel' }, cts.token).then(
      (r) => ({ ok: r }),
      (e) => ({ err: e }),
    );
    cts.cancel();
  });

  after(async () => {
    if (client && client.child.exitCode === null) client.child.kill('SIGKILL');
    if (root) removeDir(root);
  });

  it('advertises its capabilities', () => {
    const caps = initResult.capabilities;
    assert.equal(caps.workspaceSymbolProvider, true);
    assert.ok(caps.textDocumentSync);
  });

  it('answers a cancelled request with RequestCancelled', async () => {
    const r = (await earlyFind) as { ok?: unknown; err?: ResponseError<unknown> };
    assert.ok(r.err, `expected a cancellation, got a result: ${JSON.stringify(r.ok)?.slice(0, 200)}`);
    assert.equal(r.err.code, REQUEST_CANCELLED);
  });

  it('reports the first index run with work-done progress and codeSearch/statusChanged', async () => {
    const events = await client.waitForIndexed();
    assert.equal(events[0].value.kind, 'begin');
    assert.match(events[0].value.title ?? '', /Quarry: indexing/);
    assert.equal(events.at(-1)!.value.kind, 'end');
    const pct = events.filter((e) => e.value.percentage !== undefined).map((e) => e.value.percentage!);
    assert.ok(pct.length >= 2, `percentages: ${pct}`);
    for (let i = 1; i < pct.length; i++) assert.ok(pct[i] >= pct[i - 1], `percentages go up: ${pct}`);
    assert.equal(pct.at(-1), 100);
    assert.ok(events.some((e) => e.value.kind === 'report' && e.value.message), 'reports carry messages');
    assert.ok(client.registrations.length > 0, 'registers a file watcher');
    await eventually(async () => (client.statusChanged.some((s) => s.state === 'ready' && s.searchable === true) ? true : undefined), 'statusChanged ready');
    const indexing = client.statusChanged.find((s) => s.state === 'indexing');
    assert.ok(indexing, 'an indexing notification came first');
  });

  it('on an existing index, opens and warms it up before it answers initialize (a search right after finds it loaded)', async () => {
    await client.waitForIndexed();
    // a second server over the same folder (a reader: the first one owns the index)
    const second = LspTestClient.spawn();
    try {
      await second.initialize([root]);
      const warmed = second.logs.findIndex((l) => /opened and warmed up in \d+ ms|still opening and warming up/.test(l));
      assert.ok(warmed >= 0, `no warm-up line before the initialize answer: ${second.logs.join('\n')}`);
      const res = (await second.conn.sendRequest('codeSearch/find', { query: 'OrderSummaryPanel' })) as { matches: Array<{ content: { symbol: string } }> };
      assert.equal(res.matches[0]!.content.symbol.split(/[.:#]/).pop(), 'OrderSummaryPanel');
    } finally {
      await second.conn.sendRequest('shutdown').catch(() => undefined);
      await second.conn.sendNotification('exit').catch(() => undefined);
      if (second.child.exitCode === null) second.child.kill('SIGKILL');
    }
  });

  it('codeSearch/find: an identifier → its defining chunk first, with a Location on its name (issue 18)', async () => {
    const res = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'OrderSummaryPanel', limit: 5 });
    assert.ok(res.matches.length > 0, res.summary);
    const top = res.matches[0];
    assert.equal(top.file.path, 'web/ui/OrderSummary.tsx');
    assert.equal(top.content.symbol.split(/[.:#]/).pop(), 'OrderSummaryPanel');
    assert.equal(top.location.uri, pathToFileURL(join(root, 'web/ui/OrderSummary.tsx')).href);
    const lines = readFileSync(join(root, 'web/ui/OrderSummary.tsx'), 'utf8').split('\n');
    const { start, end } = top.location.range;
    // the range is the identifier (0-based), inside the unit's lines; name_range says the same 1-based
    assert.equal(start.line, end.line);
    assert.equal(lines[start.line].slice(start.character, end.character), 'OrderSummaryPanel');
    assert.match(lines[start.line], /function OrderSummaryPanel/);
    assert.ok(top.span[0] - 1 <= start.line && start.line <= top.span[1] - 1);
    assert.deepEqual(top.name_range, { line: start.line + 1, column: start.character + 1, end_line: end.line + 1, end_column: end.character + 1 });
    assert.deepEqual(res.locations[0], top.location);
    assert.equal(res.total_results, res.matches.length);
  });

  it('codeSearch/find: a natural-language query', async () => {
    const res = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'parse the restock csv file', limit: 5 });
    assert.ok(res.matches.length > 0, res.summary);
    assert.ok(
      res.matches.slice(0, 3).some((m) => m.file.path === 'scripts/restock.js'),
      `restock.js in the top 3: ${res.matches.map((m) => `${m.file.path}:${m.content.symbol}`).join(', ')}`,
    );
  });

  it('codeSearch/find: invalid params and query errors become ResponseErrors (the server stays up)', async () => {
    await assert.rejects(client.conn.sendRequest('codeSearch/find', { query: '' }), (e: ResponseError<unknown>) => e.code === INVALID_PARAMS && /query/.test(e.message));
    await assert.rejects(client.conn.sendRequest('codeSearch/find', { query: 'x', folder: 'nope' }), (e: ResponseError<unknown>) => e.code === INVALID_PARAMS && /nope/.test(e.message));
    const res = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'computeBasketTotal', limit: 1 });
    assert.equal(res.matches.length, 1);
  });

  it('codeSearch/find: a member of a class kept whole opens at the member (matched_symbol and its name range)', async () => {
    const res = await client.conn.sendRequest<FindResult & { matches: Array<{ matched_symbol?: string }> }>('codeSearch/find', { query: 'findBySku', limit: 3 });
    const top = res.matches[0];
    assert.equal(top.content.symbol, 'InventoryCatalog');
    assert.equal(top.matched_symbol, 'InventoryCatalog.findBySku');
    const lines = readFileSync(join(root, 'web/src/catalog.ts'), 'utf8').split('\n');
    const r = top.location.range;
    assert.equal(lines[r.start.line].slice(r.start.character, r.end.character), 'findBySku');
    assert.match(lines[r.start.line], /^\s+findBySku\(sku: string\)/);
    assert.ok(top.span[0] - 1 < r.start.line, 'inside the class, below its first line');
  });

  it('codeSearch/status: per folder engine status', async () => {
    const res = await client.conn.sendRequest<{ folders: Array<{ uri: string; state: string; searchable: boolean; status: { files: number; chunks: number; exists: boolean } }> }>('codeSearch/status');
    assert.equal(res.folders.length, 1);
    const f = res.folders[0];
    assert.equal(f.uri, pathToFileURL(root).href);
    assert.equal(f.searchable, true);
    assert.equal(f.status.exists, true);
    assert.ok(f.status.files >= 10, `files: ${f.status.files}`);
    assert.ok(f.status.chunks > f.status.files);
    // the skipped files of the last run, notable reasons first, without Quarry's own folder
    const skipped = (f as unknown as { skipped: { total: number; files: Array<{ path: string; reason: string; detail?: string; notable: boolean }> } }).skipped;
    assert.ok(skipped && skipped.total >= 1, JSON.stringify(skipped));
    assert.deepEqual(skipped.files[0], { path: 'web/blob.ts', reason: 'binary', detail: skipped.files[0].detail, notable: true });
    assert.ok(!skipped.files.some((x) => x.path.startsWith('.quarry')));
  });

  it('workspace/symbol: exact first, prefix, camel-hump', async () => {
    const exact = await client.conn.sendRequest<SymbolInfo[]>('workspace/symbol', { query: 'OrderSummaryPanel' });
    assert.equal(exact[0].name, 'OrderSummaryPanel');
    assert.equal(exact[0].kind, 12 /* Function */);
    assert.equal(exact[0].location.uri, pathToFileURL(join(root, 'web/ui/OrderSummary.tsx')).href);
    // The chunk starts at the doc comment (line 29, 0-based 28); the symbol's location is its name on the declaration line.
    const panel = readFileSync(join(root, 'web/ui/OrderSummary.tsx'), 'utf8').split('\n');
    const r = exact[0].location.range;
    assert.equal(r.start.line, 29);
    assert.equal(panel[29].slice(r.start.character, r.end.character), 'OrderSummaryPanel');

    // a method of a class kept whole (one chunk) is a symbol too, at its own name, inside its class
    const member = await client.conn.sendRequest<SymbolInfo[]>('workspace/symbol', { query: 'findBySku' });
    const m = member.find((s) => s.location.uri.endsWith('web/src/catalog.ts'));
    assert.ok(m, member.map((s) => `${s.name} ${s.location.uri}`).join(', '));
    assert.equal(m.containerName, 'InventoryCatalog');
    const catalog = readFileSync(join(root, 'web/src/catalog.ts'), 'utf8').split('\n');
    assert.equal(catalog[m.location.range.start.line].slice(m.location.range.start.character, m.location.range.end.character), 'findBySku');
    assert.match(catalog[m.location.range.start.line], /^\s+findBySku\(sku: string\): CatalogProduct \| undefined \{/);

    const prefix = await client.conn.sendRequest<SymbolInfo[]>('workspace/symbol', { query: 'OrderSum' });
    assert.ok(prefix.some((s) => s.name === 'OrderSummaryPanel'), prefix.map((s) => s.name).join(', '));
    assert.ok(prefix.slice(0, 3).every((s) => s.name.toLowerCase().startsWith('ordersum')), prefix.map((s) => s.name).join(', '));

    // "OSP" fits OrderSummaryPanel and OrderSummaryProps (both camel-hump matches) before anything fuzzy.
    const camel = await client.conn.sendRequest<SymbolInfo[]>('workspace/symbol', { query: 'OSP' });
    const camelNames = camel.map((s) => s.name);
    assert.deepEqual(camelNames.slice(0, 2).sort(), ['OrderSummaryPanel', 'OrderSummaryProps'], camelNames.join(', '));
    const camel2 = await client.conn.sendRequest<SymbolInfo[]>('workspace/symbol', { query: 'ordSumPan' });
    assert.equal(camel2[0]?.name, 'OrderSummaryPanel', camel2.map((s) => s.name).join(', '));

    const cls = await client.conn.sendRequest<SymbolInfo[]>('workspace/symbol', { query: 'RestockBatcher' });
    assert.equal(cls[0].name, 'RestockBatcher');
    assert.equal(cls[0].kind, 5 /* Class */);
  });

  it('a file changed on disk + workspace/didChangeWatchedFiles is found by the next codeSearch/find', async () => {
    const rel = 'scripts/restock.js';
    const abs = join(root, rel);
    writeFileSync(abs, readFileSync(abs, 'utf8') + bigFunction('sendWeeklyRestockDigest'));
    writeFileSync(join(root, 'scripts/fresh.py'), 'def brand_new_helper_zq():\n    return 42\n');
    await client.conn.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [
        { uri: pathToFileURL(abs).href, type: 2 },
        { uri: pathToFileURL(join(root, 'scripts/fresh.py')).href, type: 1 },
      ],
    });
    const res = await eventually(async () => {
      const r = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'sendWeeklyRestockDigest', limit: 3 });
      return r.matches[0]?.content.symbol.endsWith('sendWeeklyRestockDigest') ? r : undefined;
    }, 'the changed file in results');
    assert.equal(res.matches[0].file.path, rel);
    const fresh = await eventually(async () => {
      const r = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'brand_new_helper_zq', limit: 3 });
      return r.matches[0]?.file.path === 'scripts/fresh.py' ? r : undefined;
    }, 'the created file in results');
    assert.ok(fresh);
  });

  it('an unsaved buffer (didOpen + didChange) is searchable; closing it restores the disk version', async () => {
    const rel = 'web/src/catalog.ts';
    const uri = pathToFileURL(join(root, rel)).href;
    const disk = readFileSync(join(root, rel), 'utf8');
    await client.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text: disk } });
    const edited = disk + bigFunction('unsavedBufferOnlyFn', true);
    await client.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: edited }] });
    const res = await eventually(async () => {
      const r = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'unsavedBufferOnlyFn', limit: 3 });
      return r.matches[0]?.content.symbol.endsWith('unsavedBufferOnlyFn') ? r : undefined;
    }, 'the buffer function in results');
    assert.equal(res.matches[0].file.path, rel);
    const line = edited.split('\n').findIndex((l) => l.includes('unsavedBufferOnlyFn'));
    const range = res.matches[0].location.range;
    assert.equal(range.start.line, line, `line ${line}: ${JSON.stringify(range)}`);
    assert.equal(edited.split('\n')[line].slice(range.start.character, range.end.character), 'unsavedBufferOnlyFn');
    const span = res.matches[0].span;
    assert.match(edited.split('\n')[span[0] - 1], /Sends the weekly digest/, 'the unit still starts at its doc comment');

    await client.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
    await eventually(async () => {
      const r = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'unsavedBufferOnlyFn', limit: 3 });
      return r.matches.some((m) => m.content.symbol.endsWith('unsavedBufferOnlyFn')) ? undefined : true;
    }, 'the closed buffer to be gone');
  });

  it("opening a document as it is on disk writes nothing to the index and prepares its language's chunking; closing it writes nothing", async () => {
    await client.waitForIndexed();
    const rel = 'scripts/restock.js';
    const uri = pathToFileURL(join(root, rel)).href;
    const versions = () => ['chunks', 'files'].map((t) => readdirSync(join(root, '.quarry', 'lancedb', `${t}.lance`, '_versions')).length).join('/');
    const before = versions();
    await client.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'javascript', version: 1, text: readFileSync(join(root, rel), 'utf8') } });
    const line = await eventually(async () => client.logs.find((l) => /prepared javascript chunking for edits in \d+ ms .*scripts\/restock\.js opened/.test(l)), 'the preparation log line');
    assert.ok(line);
    await new Promise((r) => setTimeout(r, 600)); // past the 200 ms edit debounce
    assert.equal(versions(), before, 'an open is not an edit: no table version was added');
    await client.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(versions(), before, 'closing a buffer that never changed writes nothing');
  });

  it('a search right after an unsaved edit sees it, without waiting for the edit debounce', async () => {
    const rel = 'web/src/catalog.ts';
    const uri = pathToFileURL(join(root, rel)).href;
    const disk = readFileSync(join(root, rel), 'utf8');
    await client.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'typescript', version: 1, text: disk } });
    await client.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: disk + bigFunction('typedJustNowFn', true) }] });
    // one request, sent at once: the edit is still inside its 200 ms debounce when the search arrives
    const r = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'typedJustNowFn', limit: 3 });
    assert.ok(r.matches[0]?.content.symbol.endsWith('typedJustNowFn'), JSON.stringify(r.matches.map((m) => m.content.symbol)));
    const symbols = await client.conn.sendRequest<Array<{ name: string }>>('workspace/symbol', { query: 'typedJustNowFn' });
    assert.ok(symbols.some((x) => x.name === 'typedJustNowFn'));
    await client.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
    await eventually(async () => {
      const after = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'typedJustNowFn', limit: 3 });
      return after.matches.some((m) => m.content.symbol.endsWith('typedJustNowFn')) ? undefined : true;
    }, 'the closed buffer to be gone');
  });

  it('many watch events at once (a branch switch) are one batch; a .gitignore change re-indexes the folder', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`branch/mod${i}.py`] = `def branch_switch_fn_${i}():\n    return ${i}\n`;
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(root, 'branch'), { recursive: true });
      writeFileSync(join(root, rel), text);
    }
    const seen = client.statusChanged.length;
    await client.conn.sendNotification('workspace/didChangeWatchedFiles', {
      changes: Object.keys(files).map((rel) => ({ uri: pathToFileURL(join(root, rel)).href, type: 1 })),
    });
    await eventually(async () => (client.statusChanged.slice(seen).some((s) => s.message === 'updated 12 file(s)') ? true : undefined), 'one batch of 12');
    assert.equal(client.statusChanged.slice(seen).filter((s) => /^updating/.test(String(s.message))).length, 1, JSON.stringify(client.statusChanged.slice(seen)));
    const r = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'branch_switch_fn_7', limit: 1 });
    assert.equal(r.matches[0]?.file.path, 'branch/mod7.py');

    // Ignoring the folder in .gitignore: an index run over the folder drops it.
    const ends = client.progress.filter((p) => p.value.kind === 'end').length;
    writeFileSync(join(root, '.gitignore'), 'branch/\n');
    await client.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(join(root, '.gitignore')).href, type: 1 }] });
    await eventually(async () => (client.progress.filter((p) => p.value.kind === 'end').length > ends ? true : undefined), 'an index run after .gitignore changed');
    const gone = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'branch_switch_fn_7', limit: 5 });
    assert.ok(!gone.matches.some((m) => m.file.path.startsWith('branch/')), gone.matches.map((m) => m.file.path).join(', '));
  });

  it('codeSearch/reindex runs an index with progress', async () => {
    const before = client.progress.filter((p) => p.value.kind === 'end').length;
    const res = await client.conn.sendRequest<{ folders: Array<{ uri: string; totalChunks?: number; error?: string }> }>('codeSearch/reindex', {});
    assert.equal(res.folders.length, 1);
    assert.equal(res.folders[0].error, undefined);
    assert.ok((res.folders[0].totalChunks ?? 0) > 0);
    await eventually(async () => (client.progress.filter((p) => p.value.kind === 'end').length > before ? true : undefined), 'a second progress end');
  });

  it('shutdown + exit ends the process; nothing but the protocol went to stdout', async () => {
    const code = await client.shutdown();
    assert.equal(code, 0);
    assert.equal(client.child.exitCode, 0);
    assert.deepEqual(client.protocolErrors, []);
  });
});

describe('LSP server: multi-root workspace', function () {
  this.timeout(120_000);
  let a: string;
  let b: string;
  let client: LspTestClient;

  before(async () => {
    a = copyFixture('polyglot');
    noEmbeddingConfig(a);
    b = tempDir('quarry-lsp-b-');
    noEmbeddingConfig(b);
    writeFiles(b, {
      'lib/shipping.ts': '/** Computes the shipping quote of a parcel by weight. */\nexport function quoteParcelShipping(weightKg: number): number {\n  return 4 + weightKg * 1.5;\n}\n',
    });
    client = LspTestClient.spawn();
    await client.initialize([a, b]);
  });

  after(async () => {
    if (client && client.child.exitCode === null) client.child.kill('SIGKILL');
    for (const d of [a, b]) if (d) removeDir(d);
  });

  it('indexes every folder and merges find results across folders', async () => {
    const res = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'quoteParcelShipping', limit: 5 });
    assert.equal(res.matches[0].file.path, 'lib/shipping.ts');
    assert.equal(res.matches[0].folder, pathToFileURL(b).href);
    assert.equal(res.matches[0].location.uri, pathToFileURL(join(b, 'lib/shipping.ts')).href);
    const both = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'shipping', limit: 20 });
    assert.deepEqual([...new Set(both.matches.map((m) => m.folder))].sort(), [pathToFileURL(a).href, pathToFileURL(b).href].sort());
    for (let i = 1; i < both.matches.length; i++) assert.ok(both.matches[i - 1].score >= both.matches[i].score, 'merged by score');
    const only = await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'shipping', limit: 20, folder: pathToFileURL(b).href });
    assert.ok(only.matches.every((m) => m.folder === pathToFileURL(b).href));
    const status = await client.conn.sendRequest<{ folders: Array<{ uri: string; status: { files: number } }> }>('codeSearch/status');
    assert.equal(status.folders.length, 2);
    assert.equal(status.folders.find((f) => f.uri === pathToFileURL(b).href)!.status.files, 1);
  });

  it('workspace/symbol searches every folder', async () => {
    const syms = await client.conn.sendRequest<SymbolInfo[]>('workspace/symbol', { query: 'quoteParcel' });
    assert.equal(syms[0].name, 'quoteParcelShipping');
    assert.equal(syms[0].location.uri, pathToFileURL(join(b, 'lib/shipping.ts')).href);
  });

  it('shuts down cleanly', async () => {
    assert.equal(await client.shutdown(), 0);
  });
});
