/**
 * The MCP endpoint over stdio, driven by an independent client: the MCP Inspector's CLI mode
 * (`@modelcontextprotocol/inspector-cli`, pinned in devDependencies) spawns the built server
 * (`node dist/cli.js mcp --project <dir>`) on a temp copy of the polyglot fixture, lists its tools and calls
 * `find_code`. The Inspector uses its own copy of the MCP SDK and its own argument conversion, so this catches
 * what a test written with our SDK client could not: schemas another client cannot read, arguments it cannot send.
 *
 * Nothing here is skipped: if the Inspector is missing or cannot run, the test fails with the reason.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CLI, copyFixture, removeDir, runCli } from '../../support/workspace';

const INSPECTOR_PACKAGE = '@modelcontextprotocol/inspector-cli';
const INSPECTOR_TIMEOUT_MS = 60_000;

interface Inspector {
  /** The package's `mcp-inspector-cli` bin (the launcher; `--cli` selects the CLI mode). */
  bin: string;
  version: string;
}

/** Finds the installed Inspector CLI, or fails saying how to get it. */
function findInspector(): Inspector {
  let pkgPath: string;
  try {
    pkgPath = require.resolve(`${INSPECTOR_PACKAGE}/package.json`);
  } catch (e) {
    assert.fail(`${INSPECTOR_PACKAGE} is not installed (it is a devDependency: run \`npm ci\`): ${(e as Error).message}`);
  }
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string; bin: Record<string, string> };
  const bin = join(dirname(pkgPath), pkg.bin['mcp-inspector-cli']);
  assert.ok(existsSync(bin), `${INSPECTOR_PACKAGE}@${pkg.version} has no bin at ${bin}`);
  return { bin, version: pkg.version };
}

interface InspectorRun {
  argv: string[];
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  error?: Error;
  timedOut: boolean;
}

/**
 * Runs `node <mcp-inspector-cli> --cli <server command...> <inspector options...>` and collects its output.
 * The working directory is the Inspector's `build/` folder: its CLI looks for its own package.json at
 * `../package.json` relative to the *working directory* but imports it relative to the module, and only
 * `build/` satisfies both (elsewhere it fails with "Cannot find module .../@modelcontextprotocol/package.json").
 * The Inspector, its CLI child and the Quarry server share a process group, killed together on timeout.
 */
function runInspector(inspector: Inspector, server: string[], options: string[]): Promise<InspectorRun> {
  const argv = [inspector.bin, '--cli', ...server, ...options];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, {
      cwd: dirname(inspector.bin),
      env: { ...process.env, LANCEDB_LOG: 'error', QUARRY_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let error: Error | undefined;
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (process.platform !== 'win32' && child.pid) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, INSPECTOR_TIMEOUT_MS);
    child.on('error', (e) => (error = e));
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ argv: [process.execPath, ...argv], status, signal, stdout, stderr, error, timedOut });
    });
  });
}

/** Parses the JSON the Inspector printed, or fails with everything needed to see why it did not. */
function parseInspectorOutput<T>(r: InspectorRun): T {
  const what = `MCP Inspector CLI\n  command: ${r.argv.join(' ')}\n  exit: ${r.status ?? r.signal}${r.timedOut ? ` (killed after ${INSPECTOR_TIMEOUT_MS} ms)` : ''}\n  stderr: ${r.stderr.trim()}\n  stdout: ${r.stdout.slice(0, 2000)}`;
  if (r.error) assert.fail(`could not start the ${what}\n  error: ${r.error.message}`);
  assert.ok(!r.timedOut, `timed out: ${what}`);
  assert.equal(r.status, 0, `failed: ${what}`);
  try {
    return JSON.parse(r.stdout) as T;
  } catch (e) {
    assert.fail(`printed no JSON (${(e as Error).message}): ${what}`);
  }
}

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: { type: string; properties?: Record<string, { type?: string; default?: unknown }>; required?: string[] };
  outputSchema?: { type: string; properties?: Record<string, unknown> };
}
interface Match {
  file: { path: string; language: string };
  content: { symbol: string; kind: string; content: string };
  span: [number, number];
  relevance_score: number;
}
interface ToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: { matches: Match[]; total_results: number };
}

describe('MCP over stdio with the MCP Inspector CLI as the client (built server)', function () {
  this.timeout(120_000);
  let root: string;
  let inspector: Inspector;
  let server: string[];

  before(() => {
    assert.ok(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`);
    inspector = findInspector();
    root = copyFixture('polyglot');
    // Lexical only: the answer must not depend on which embedding model this machine has.
    mkdirSync(join(root, '.quarry'), { recursive: true });
    writeFileSync(join(root, '.quarry', 'config.yml'), 'embedding:\n  provider: none\nrerank:\n  provider: none\n');
    const indexed = runCli(['index', '-p', root, '--quiet']);
    assert.equal(indexed.status, 0, `quarry index failed: ${indexed.stderr}`);
    // The stdio server as an MCP client configuration would start it (README: "command"/"args").
    server = [process.execPath, CLI, 'mcp', '--project', root];
  });

  after(() => {
    if (root) removeDir(root);
  });

  it('tools/list: the seven tools, find_code with its input schema', async () => {
    const r = await runInspector(inspector, server, ['--method', 'tools/list']);
    const { tools } = parseInspectorOutput<{ tools: ListedTool[] }>(r);
    assert.deepEqual(tools.map((t) => t.name).sort(), ['find_code', 'find_implementations', 'find_symbol', 'index_status', 'record_pattern', 'report_pattern_use', 'report_results_used']);
    const fc = tools.find((t) => t.name === 'find_code')!;
    assert.ok(fc.description && fc.description.length > 0);
    assert.equal(fc.inputSchema.type, 'object');
    assert.deepEqual(fc.inputSchema.required, ['query']);
    const props = fc.inputSchema.properties ?? {};
    assert.deepEqual(Object.keys(props).sort(), ['focus_languages', 'include_tests', 'intent', 'max_results', 'query', 'token_limit']);
    assert.equal(props.query.type, 'string');
    assert.equal(props.max_results.type, 'integer');
    assert.equal(props.max_results.default, 50);
    assert.equal(fc.outputSchema?.type, 'object');
    assert.ok(fc.outputSchema?.properties?.matches, 'find_code output schema lacks matches');
  });

  it('tools/call find_code: the defining file first (structured and text content)', async () => {
    // From expected-definitions.json: summarize_fulfilment is defined in engine/order_ledger.rs. max_results goes
    // through the Inspector's own conversion (a number, since the schema says integer).
    const r = await runInspector(inspector, server, [
      '--method', 'tools/call',
      '--tool-name', 'find_code',
      '--tool-arg', 'query=summarize_fulfilment', 'max_results=3',
    ]);
    const res = parseInspectorOutput<ToolResult>(r);
    const text = res.content.map((c) => c.text ?? '').join('\n');
    assert.ok(!res.isError, `find_code returned a tool error: ${text}`);
    const sc = res.structuredContent;
    assert.ok(sc, `find_code returned no structuredContent: ${text.slice(0, 500)}`);
    assert.ok(sc.matches.length >= 1 && sc.matches.length <= 3, `matches: ${sc.matches.length}`);
    assert.equal(sc.total_results, sc.matches.length);
    const top = sc.matches[0];
    assert.equal(top.file.path, 'engine/order_ledger.rs');
    assert.equal(top.file.language, 'rust');
    assert.equal(top.content.symbol, 'summarize_fulfilment');
    assert.equal(top.relevance_score, 1);
    assert.ok(top.content.content.includes('fn summarize_fulfilment'), top.content.content);
    // The readable rendering puts the same match first.
    assert.match(text, /## 1\. engine\/order_ledger\.rs:\d+:\d+ summarize_fulfilment \(\w+, lines \d+-\d+\) relevance 1\.00/);
  });
});
