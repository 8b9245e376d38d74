/**
 * Language server memory (issue 19): the built server's resident set size on a ~1,000-file workspace, started and
 * driven the way the VS Code client does it.
 *
 *   npm run bench:ls-rss [-- --files N] [--queries N] [--config default|no-embeddings|both] [--server PATH] [--no-breakdown]
 *
 * Workspace: the first N files (default 1,000), in path order, of Debian's golang-1.19-src 1.19.8-2 (the Go 1.19
 * tree under usr/share/go-1.19/src, pinned by SHA-256 and unpacked in bench/.cache/scale/ by `npm run bench:scale`,
 * which fetches it on first use), copied into a temporary folder and committed once to git, so that every run
 * indexes cold.
 *
 * Server: `node <flags> dist/cli.js lsp --stdio` with the flags and environment the VS Code client uses
 * (server/src/lsp/serverProcess.ts; `--semi-space MB` another young generation size, 0 none; `--node-flags` adds
 * flags; `npm run build` first) over
 * stdio with vscode-jsonrpc, `initializationOptions` as the client sends them with default settings (`default`:
 * embedding and rerank provider `auto`, MCP over HTTP on) or with `quarry.embedding.provider: none` (`no-embeddings`).
 * The bench waits for `codeSearch/statusChanged` to say `ready` after the first index (lexical and dense phases), then
 * sends `--queries` (default 50) requests, half `codeSearch/find` (descriptions and identifiers), half
 * `workspace/symbol`, one at a time, and reads `codeSearch/status` for files and chunks.
 *
 * Memory: VmRSS from /proc/<pid>/status every 100 ms (peak during the first index; steady = after the queries and
 * 3 s idle), VmHWM at the end (the kernel's high-water mark, which also sees spikes between samples), RssAnon/RssFile
 * (anonymous memory vs mapped files such as LanceDB's 200 MB native library). Unless `--no-breakdown`, a small
 * preload (`node -r`, written to the temporary folder) reports `process.memoryUsage()` once a second on stderr, so
 * the table splits the steady RSS into V8 heap, external memory and array buffers; what is left is native memory
 * outside V8 (LanceDB/Arrow in Rust, the tree-sitter WebAssembly memory counts as array buffers) and code.
 * `--timeline` prints the first index's RSS once a second and at each new high, beside the server's log lines (what the
 * process was doing at its peak). `--heap-snapshot DIR` also writes a V8 heap snapshot of each configuration's steady state (signal SIGUSR2 after the
 * queries) into DIR, for Chrome DevTools' Memory tab. Linux only (/proc).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { SERVER_NODE_FLAGS, serverEnvironment } from '../server/src/lsp/serverProcess';

const REPO = resolve(__dirname, '..');
const GO119_SRC = join(REPO, 'bench', '.cache', 'scale', 'golang-1.19-src', 'usr', 'share', 'go-1.19', 'src');

interface Args {
  files: number;
  queries: number;
  configs: Array<'default' | 'no-embeddings'>;
  server: string;
  breakdown: boolean;
  /** Write a V8 heap snapshot of the steady state (after the queries) into this folder. */
  heapSnapshot?: string;
  /** More node flags for the server (`--node-flags "--a --b"`), after the client's. */
  nodeFlags: string[];
  /** Print the steady state's resident memory by mapping (`/proc/<pid>/smaps`) and thread count on stderr. */
  smaps: boolean;
  /** `--max-semi-space-size` on the server's command line, as the client passes it (`--semi-space 0`: none). */
  semiSpace: number;
  /**
   * `--timeline`: print the first index's RSS on stderr once a second and at every new high (with the V8 heap of the
   * thread that last reported and the server's state), the server's stderr and log lines with their time, and the
   * highest RSS after the first index: when the peak comes, not only how high. With `QUARRY_LOG_LEVEL=info` the
   * server logs its phases.
   */
  timeline: boolean;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { files: 1000, queries: 50, configs: ['default', 'no-embeddings'], server: join(REPO, 'dist', 'cli.js'), breakdown: true, smaps: false, semiSpace: 4, nodeFlags: [], timeline: false };
  for (let i = 0; i < argv.length; i++) {
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${argv[i - 1]} needs a value`);
      return x;
    };
    const arg = argv[i];
    if (arg === '--files') a.files = Math.max(1, Math.floor(Number(v())));
    else if (arg === '--queries') a.queries = Math.max(2, Math.floor(Number(v())));
    else if (arg === '--config') {
      const c = v();
      a.configs = c === 'both' ? ['default', 'no-embeddings'] : c === 'default' || c === 'no-embeddings' ? [c] : (() => { throw new Error(`--config ${c}: default, no-embeddings or both`); })();
    } else if (arg === '--server') a.server = resolve(v());
    else if (arg === '--no-breakdown') a.breakdown = false;
    else if (arg === '--smaps') a.smaps = true;
    else if (arg === '--timeline') a.timeline = true;
    else if (arg === '--node-flags') a.nodeFlags = v().split(/\s+/).filter(Boolean);
    else if (arg === '--heap-snapshot') a.heapSnapshot = resolve(v());
    else if (arg === '--semi-space') a.semiSpace = Math.max(0, Math.floor(Number(v())));
    else if (arg === '--help' || arg === '-h') {
      console.log('npm run bench:ls-rss [-- --files N] [--queries N] [--config default|no-embeddings|both] [--server PATH] [--no-breakdown] [--smaps] [--timeline] [--heap-snapshot DIR] [--semi-space MB] [--node-flags FLAGS]');
      process.exit(0);
    } else throw new Error(`unknown argument ${arg}`);
  }
  return a;
}

/**
 * Resident memory of a process by mapping, largest first: file-backed mappings by path, anonymous ones by size class
 * (V8's heap pages, thread stacks and malloc arenas show as many same-sized regions), plus the thread count.
 */
function smapsSummary(pid: number): string {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const byKey = new Map<string, { rss: number; n: number }>();
  let key = '';
  let region = '';
  const regions: Array<{ region: string; rss: number }> = [];
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const size = (parseInt(head[2], 16) - parseInt(head[1], 16)) / 1024;
      const path = head[3].trim();
      key = path && !path.startsWith('[anon') ? path : `[anon ${size >= 65536 ? '>=64MB' : size >= 8192 ? '8-64MB' : size >= 1024 ? '1-8MB' : '<1MB'}]`;
      region = `${(size / 1024).toFixed(1)} MB ${line.split(' ')[1]} ${key}`;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) {
      const e = byKey.get(key) ?? { rss: 0, n: 0 };
      e.rss += Number(rss[1]);
      e.n++;
      byKey.set(key, e);
      regions.push({ region, rss: Number(rss[1]) });
    }
  }
  const threads = readFileSync(`/proc/${pid}/status`, 'utf8').match(/Threads:\s+(\d+)/)?.[1];
  const rows = [...byKey].sort((a, b) => b[1].rss - a[1].rss).filter(([, e]) => e.rss >= 1024);
  const largest = regions.sort((a, b) => b.rss - a.rss).slice(0, 12);
  return [
    `  threads: ${threads}`,
    ...rows.map(([k, e]) => `  ${(e.rss / 1024).toFixed(1).padStart(7)} MB  ${String(e.n).padStart(5)} maps  ${k}`),
    '  largest resident regions (resident of size, permissions, kind):',
    ...largest.map((r) => `  ${(r.rss / 1024).toFixed(1).padStart(7)} MB of ${r.region}`),
  ].join('\n');
}

/** node's flags as the client passes them (lsp/serverProcess.ts), with `--semi-space` and `--node-flags` applied. */
function serverFlags(args: Args): string[] {
  return [...SERVER_NODE_FLAGS.filter((f) => !f.startsWith('--max-semi-space-size')), ...(args.semiSpace ? [`--max-semi-space-size=${args.semiSpace}`] : []), ...args.nodeFlags];
}

/** Every regular file under `dir`, relative, sorted by path (the same order as bench/scale.ts's `--files N`). */
function listFiles(dir: string, base = dir, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) listFiles(p, base, out);
    else if (e.isFile()) out.push(relative(base, p));
  }
  return out.sort();
}

function makeWorkspace(files: number, into: string): number {
  if (!existsSync(GO119_SRC)) {
    console.error(`[ls-rss] ${GO119_SRC} is missing: run \`npm run bench:scale -- --files 300\` once (it fetches and checks golang-1.19-src)`);
    process.exit(1);
  }
  const picked = listFiles(GO119_SRC).slice(0, files);
  for (const f of picked) {
    mkdirSync(dirname(join(into, f)), { recursive: true });
    cpSync(join(GO119_SRC, f), join(into, f));
  }
  const git = (...args: string[]) => spawnSync('git', args, { cwd: into, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid', GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z' } });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'import');
  return picked.length;
}

const PRELOAD = `'use strict';
const t = setInterval(() => {
  const m = process.memoryUsage();
  process.stderr.write('[ls-rss-mem] ' + JSON.stringify({ rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers }) + '\\n');
}, 1000);
t.unref();
`;

interface Mem {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

function procStatus(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
      const m = /^(Vm\w+|Rss\w+):\s+(\d+) kB/.exec(line);
      if (m) out[m[1]] = Number(m[2]) * 1024;
    }
  } catch {
    /* exited */
  }
  return out;
}

const FIND_QUERIES = [
  'parse an archive header', 'write a tar file entry', 'read a zip file from a reader', 'buffered reader that reads lines',
  'split a byte slice into fields', 'compare two byte slices', 'grow a buffer', 'trim leading white space',
  'Reader', 'NewWriter', 'ReadRune', 'FileHeader', 'checksum of a header', 'sparse file holes', 'format a number in octal',
  'Scanner', 'ErrTooLong', 'index of a byte in a slice', 'replace all occurrences', 'case insensitive comparison',
  'compress data with deflate', 'Writer.Close', 'unread the last byte', 'decode a directory record', 'Buffer.Truncate',
];
const SYMBOL_QUERIES = [
  'Reader', 'Writer', 'NewReader', 'Header', 'ReadString', 'Buffer', 'Split', 'Fields', 'TrimSpace', 'Index',
  'Compare', 'Equal', 'Scanner', 'FileInfo', 'Close', 'Flush', 'ReadByte', 'WriteString', 'Map', 'Title',
  'Repeat', 'Contains', 'format', 'parse', 'sparse',
];

interface RunResult {
  config: string;
  files: number;
  chunks: number;
  indexMs: number;
  peakIndex: number;
  peakIndexAnon: number;
  steady: Record<string, number>;
  hwm: number;
  mem?: Mem;
  peakMem?: Mem;
  queryMsMedian: number;
  findResults: number;
}

async function runOne(config: 'default' | 'no-embeddings', args: Args, dir: string): Promise<RunResult> {
  const ws = join(dir, `ws-${config}`);
  mkdirSync(ws, { recursive: true });
  const nfiles = makeWorkspace(args.files, ws);
  const preload = join(dir, 'mem-preload.cjs');
  writeFileSync(preload, PRELOAD);
  if (args.heapSnapshot) mkdirSync(args.heapSnapshot, { recursive: true });
  const snapArgs = args.heapSnapshot ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${args.heapSnapshot}`] : [];
  const nodeArgs = [...serverFlags(args), ...snapArgs, ...(args.breakdown ? ['-r', preload] : []), args.server, ...(args.server.endsWith('cli.js') ? ['lsp'] : []), '--stdio'];
  const child = spawn(process.execPath, nodeArgs, {
    cwd: ws,
    // the environment the client adds (lsp/serverProcess.ts), unless this one sets those variables otherwise
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', QUARRY_CONFIG_HOME: join(dir, 'no-user-config'), ...serverEnvironment(process.env) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid!;
  let stderr = '';
  let lastMem: Mem | undefined;
  let peakMem: Mem | undefined;
  let phase: 'index' | 'queries' = 'index';
  child.stderr!.on('data', (d) => {
    for (const line of String(d).split('\n')) {
      const m = /^\[ls-rss-mem\] (.*)$/.exec(line);
      if (m) {
        lastMem = JSON.parse(m[1]) as Mem;
        if (phase === 'index' && (!peakMem || lastMem.rss > peakMem.rss)) peakMem = lastMem;
      } else if (line.trim()) {
        stderr = (stderr + line + '\n').slice(-4000);
        if (args.timeline) console.error(`[ls-rss] ${config}: ${((Date.now() - indexStart) / 1000).toFixed(1).padStart(5)} s  stderr: ${line.slice(0, 200)}`);
      }
    }
  });
  let peakIndex = 0;
  let peakIndexAnon = 0;
  /** With `--smaps`: the mappings when the first index's RSS was highest (read again at each new high by 4 MB). */
  let peakMappings = '';
  let peakMappingsAt = 0;
  const indexStart = Date.now();
  /** With `--timeline`: the highest RSS sample after the first index (warm-up, the queries). */
  let peakQueries = 0;
  /** Requests sent so far in the query phase (the timeline says during which one RSS rose). */
  let queriesSent = 0;
  let tick = 0;
  /** With `--timeline`: the kernel's high-water mark as last printed (a rise of 2 MB is printed with the phase). */
  let hwmShown = 0;
  const sampler = setInterval(() => {
    if (args.timeline) {
      const hwmNow = procStatus(pid).VmHWM ?? 0;
      if (hwmNow > hwmShown + 2 * 1048576) {
        hwmShown = hwmNow;
        console.error(`[ls-rss] ${config}: ${((Date.now() - indexStart) / 1000).toFixed(1).padStart(5)} s  VmHWM now ${MB(hwmNow)} (${phase}, ${states.slice(-1)[0] ?? ''})`);
      }
    }
    if (phase !== 'index') {
      if (args.timeline) {
        const rss = procStatus(pid).VmRSS ?? 0;
        if (rss > peakQueries + 1048576) console.error(`[ls-rss] ${config}: ${((Date.now() - indexStart) / 1000).toFixed(1).padStart(5)} s  rss ${MB(rss)} (${phase}, query ${queriesSent})`);
        peakQueries = Math.max(peakQueries, rss);
      }
      return;
    }
    const s = procStatus(pid);
    if (args.timeline && (++tick % 10 === 0 || (s.VmRSS ?? 0) > peakIndex + 2 * 1048576)) console.error(`[ls-rss] ${config}: ${((Date.now() - indexStart) / 1000).toFixed(0).padStart(3)} s  rss ${MB(s.VmRSS ?? 0)} (anon ${MB(s.RssAnon ?? 0)})${lastMem ? `  heap ${MB(lastMem.heapUsed)}/${MB(lastMem.heapTotal)} external ${MB(lastMem.external)}` : ''}  ${states.slice(-1)[0] ?? ''}`);
    if ((s.VmRSS ?? 0) > peakIndex) peakIndex = s.VmRSS;
    if ((s.RssAnon ?? 0) > peakIndexAnon) peakIndexAnon = s.RssAnon;
    if (args.smaps && peakIndex >= peakMappingsAt + 4 * 1024 * 1024) {
      peakMappingsAt = peakIndex;
      try {
        peakMappings = smapsSummary(pid);
      } catch {
        /* the process is gone */
      }
    }
  }, 100);
  const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  const states: string[] = [];
  let ready: () => void = () => undefined;
  const readyP = new Promise<void>((r) => (ready = r));
  conn.onRequest('window/workDoneProgress/create', () => null);
  conn.onRequest('client/registerCapability', () => null);
  conn.onRequest('workspace/configuration', () => []);
  conn.onNotification('$/progress', () => undefined);
  conn.onNotification('window/logMessage', (m: { message: string }) => {
    if (args.timeline) console.error(`[ls-rss] ${config}: ${((Date.now() - indexStart) / 1000).toFixed(1).padStart(5)} s  log: ${m.message.slice(0, 160)}`);
  });
  conn.onNotification('codeSearch/mcpEndpoints', () => undefined);
  conn.onNotification('codeSearch/statusChanged', (p: { state: string; message?: string }) => {
    states.push(p.state);
    if (p.state === 'error') console.error(`[ls-rss] ${config}: error state: ${p.message}`);
    if (p.state === 'ready' && states.some((s) => s === 'indexing' || s === 'embedding')) ready();
  });
  conn.listen();
  const t0 = Date.now();
  const embeddingsOff = config === 'no-embeddings';
  await conn.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(ws).href,
    workspaceFolders: [{ uri: pathToFileURL(ws).href, name: 'ws' }],
    capabilities: {
      window: { workDoneProgress: false },
      workspace: { didChangeWatchedFiles: { dynamicRegistration: true }, workspaceFolders: true, symbol: {} },
      textDocument: { synchronization: { didSave: true, dynamicRegistration: false } },
    },
    // As client/src/settings.ts sends them with default settings (and quarry.embedding.provider: none).
    initializationOptions: {
      ...(embeddingsOff ? { embedding: false } : {}),
      indexOnStart: true,
      mcp: { http: true },
      settings: { embedding: { provider: embeddingsOff ? 'none' : 'auto' }, rerank: { provider: 'auto' } },
    },
  });
  await conn.sendNotification('initialized', {});
  const timeout = new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`not ready after 20 min; states ${states.join(' ')}; stderr: ${stderr}`)), 20 * 60_000).unref());
  await Promise.race([readyP, timeout]);
  const indexMs = Date.now() - t0;
  // The last samples of the index phase: let the sampler see the end of the run.
  await new Promise((r) => setTimeout(r, 300));
  phase = 'queries';
  const lat: number[] = [];
  let findResults = 0;
  for (let i = 0; i < args.queries; i++) {
    const q0 = performance.now();
    queriesSent = i + 1;
    if (i % 2 === 0) {
      const r = (await conn.sendRequest('codeSearch/find', { query: FIND_QUERIES[(i / 2) % FIND_QUERIES.length], limit: 20 })) as { matches: unknown[] };
      findResults += r.matches.length;
    } else {
      await conn.sendRequest('workspace/symbol', { query: SYMBOL_QUERIES[((i - 1) / 2) % SYMBOL_QUERIES.length] });
    }
    lat.push(performance.now() - q0);
  }
  await new Promise((r) => setTimeout(r, 3000));
  const steady = procStatus(pid);
  if (args.timeline) console.error(`[ls-rss] ${config}: highest RSS sample after the first index: ${MB(peakQueries)}`);
  if (args.smaps) console.error(`[ls-rss] ${config}: mappings at the first index's peak\n${peakMappings}\n[ls-rss] ${config}: steady mappings\n${smapsSummary(pid)}`);
  const status = (await conn.sendRequest('codeSearch/status', {})) as { folders: Array<{ status: { files: number; chunks: number } | null }> };
  await new Promise((r) => setTimeout(r, 1100));
  const mem = lastMem;
  if (args.heapSnapshot) {
    // Written by the server's main thread when it gets the signal (it blocks while writing, minutes for a few hundred MB
    // of heap on a loaded machine; the file stays empty until then): wait for a file that has stopped growing.
    const before = new Set(readdirSync(args.heapSnapshot));
    process.kill(pid, 'SIGUSR2');
    for (let i = 0; i < 600; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const fresh = readdirSync(args.heapSnapshot).filter((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
      if (fresh.length) {
        const f = join(args.heapSnapshot, fresh[0]);
        const size = statSync(f).size;
        await new Promise((r) => setTimeout(r, 2000));
        if (size > 0 && statSync(f).size === size) {
          console.error(`[ls-rss] ${config}: heap snapshot ${f}`);
          break;
        }
      }
    }
  }
  const hwm = procStatus(pid).VmHWM ?? 0;
  clearInterval(sampler);
  await conn.sendRequest('shutdown');
  await conn.sendNotification('exit');
  await Promise.race([new Promise((r) => child.once('exit', r)), new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
  conn.dispose();
  lat.sort((a, b) => a - b);
  return {
    config,
    files: status.folders[0]?.status?.files ?? nfiles,
    chunks: status.folders[0]?.status?.chunks ?? 0,
    indexMs,
    peakIndex,
    peakIndexAnon,
    steady,
    hwm,
    mem,
    peakMem,
    queryMsMedian: lat[Math.floor(lat.length / 2)],
    findResults,
  };
}

const MB = (b: number | undefined) => (b === undefined ? 'n/a' : `${Math.round(b / 1048576)} MB`);

async function main(): Promise<void> {
  if (process.platform !== 'linux') throw new Error('Linux only: the RSS comes from /proc/<pid>/status');
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(args.server)) throw new Error(`${args.server} is missing: npm run build`);
  const dir = mkdtempSync(join(tmpdir(), 'quarry-ls-rss-'));
  const results: RunResult[] = [];
  try {
    for (const c of args.configs) {
      console.error(`[ls-rss] ${c}: ${args.files} files, cold index, then ${args.queries} queries`);
      const r = await runOne(c, args, dir);
      console.error(`[ls-rss] ${c}: index ${(r.indexMs / 1000).toFixed(1)} s, peak ${MB(r.peakIndex)}, steady ${MB(r.steady.VmRSS)}, VmHWM ${MB(r.hwm)}`);
      results.push(r);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const sizeOf = (p: string) => (existsSync(p) ? statSync(p).size : 0);
  console.log(`\nLanguage server RSS (\`node ${serverFlags(args).join(' ')} ${relative(REPO, args.server)}${args.server.endsWith('cli.js') ? ' lsp' : ''} --stdio\`, Node ${process.version}, ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}; server bundle ${(sizeOf(args.server) / 1e6).toFixed(1)} MB)\n`);
  console.log('| configuration | files / chunks | first index (wall) | peak RSS, first index (100 ms samples) | VmHWM | steady RSS after queries | of which anon / file-backed | V8 heap used / total | external (array buffers) | query median |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const m = r.mem;
    console.log(
      `| ${r.config} | ${r.files} / ${r.chunks} | ${(r.indexMs / 1000).toFixed(1)} s | ${MB(r.peakIndex)} (anon ${MB(r.peakIndexAnon)}) | ${MB(r.hwm)} | ${MB(r.steady.VmRSS)} | ${MB(r.steady.RssAnon)} / ${MB(r.steady.RssFile)} | ` +
        `${m ? `${MB(m.heapUsed)} / ${MB(m.heapTotal)}` : 'n/a'} | ${m ? `${MB(m.external)} (${MB(m.arrayBuffers)})` : 'n/a'} | ${r.queryMsMedian.toFixed(0)} ms |`,
    );
  }
  for (const r of results) {
    if (r.peakMem) console.log(`\n${r.config}: at the highest 1 s sample of the first index: rss ${MB(r.peakMem.rss)}, V8 heap used ${MB(r.peakMem.heapUsed)} of ${MB(r.peakMem.heapTotal)}, external ${MB(r.peakMem.external)} (array buffers ${MB(r.peakMem.arrayBuffers)})`);
  }
  console.log(`\n${results.map((r) => `${r.config}: ${r.findResults} find results over ${Math.ceil(args.queries / 2)} codeSearch/find`).join('; ')}`);
}

main().catch((e) => {
  console.error(`[ls-rss] ${e instanceof Error ? e.stack : String(e)}`);
  process.exit(1);
});
