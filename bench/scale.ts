/**
 * Scale benchmark (issue 21): a cold `quarry index` of a large real tree, with wall time, CPU time and peak RSS, the
 * time until the lexical index answers, and warm query latency through the engine beside ripgrep.
 *
 *   npx tsx bench/scale.ts [--corpus go119|DIR] [--files N] [--history K] [--cli PATH] [--queries N] [--cpu-prof] [--work NAME] [--reuse-index] [--baseline REV | --baseline-cli PATH] [--rounds N] [--stages] [--no-observed] [--edits N] [--only engine,reindex,mcp,lsp,csearch,rg]
 *   npm run bench:scale -- --files 300
 *
 * Corpus `go119` (default): Debian's golang-1.19-src 1.19.8-2 (the Go 1.19 standard library and toolchain, 8,176
 * files under src/), fetched with `apt-get download` (else from deb.debian.org), checked against a pinned SHA-256 and
 * cached in bench/.cache/scale/. `--files N` takes the first N files in path order. The tree becomes a git repository
 * with a deterministic synthetic history (`--history K` commits after the import, default 100, each editing 12 Go
 * files; 0 = one commit) so that the git metadata pass has history to attribute. A sentinel file sorted last
 * (`zzzz_quarry_scale_sentinel.go`) is indexed in the last batch: the first search that finds it marks the moment
 * the whole lexical index is searchable.
 *
 * `--corpus DIR`: a git repository is cloned (its history kept), anything else copied and given the synthetic history.
 *
 * The index runs in a child process (`node <cli> index --json`) under `/usr/bin/time -v` where it exists (else peak
 * RSS from /proc); by default the CLI is a fresh build of this working tree (`scripts/build.mjs --server-only`, as dist/ ships; bench/.cache/scale/build), so
 * `dist/` is left alone; `--cli dist/cli.js` measures the built one. Wall, CPU and peak RSS come from that run alone;
 * then a second cold run is observed by another process polling `quarry search` for the sentinel (about every second
 * once the index lock exists; the figure is an upper bound by the poll interval and one CLI start, and the polls slow
 * that run down: each opens the growing index). `--no-observed` skips the second run.
 *
 * Warm queries (`--queries N` exported Go identifiers sampled from the tree, and 24 descriptions), each asked
 * `--rounds N` times: in this process through `Engine.search`; through the doors, a real server per build with a
 * real client (`quarry mcp` + `find_code` over the MCP SDK, `quarry lsp --stdio` + `codeSearch/find` over
 * vscode-jsonrpc; bench/doors.ts); Debian's `csearch` (package codesearch, installed with apt-get when missing, as ripgrep is; the tree `cindex`ed once into
 * bench/.cache/scale/csearch/, one process per identifier, process start included) and ripgrep beside them.
 * `--baseline REV` (a git revision, bundled from `git archive`) or `--baseline-cli PATH` measures a second build's doors interleaved query by query with this tree's (before/after in
 * one run, under the same load) and compares every query's top-10 chunk ids. `--stages`: where the in-process
 * search's time goes. `--only` picks measurements. `--cpu-prof` also profiles the door servers (written on exit).
 *
 * Re-indexing after one changed file (`--only reindex`, part of the default run): the first non-test Go file of the tree
 * (path order) with at least 200 lines gets a comment line appended before each of `--edits N` rounds (default 5):
 * `quarry index` in a fresh process (what a user or a script runs; wall time, process start included), then the same
 * through one long-running engine (`Engine.updateFiles`, what the language server and `quarry mcp` do on a save), then
 * an unsaved edit (`Engine.setBuffer` with a new function, what the language server does while one types, without the
 * editor's debounce) until a search finds that function. The file is put back and re-indexed at the end.
 *
 * `--work NAME` keeps this copy of the tree (and its index, CLI bundle and csearch index) under
 * bench/.cache/scale/work/NAME, apart from other runs'; `--reuse-index` skips the cold index when that copy has one.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { Engine } from '../server/src/engine/engine';
import { latency, prng, sample, type LatencyReport } from './metrics';
import { fetchGo119 } from './goTree';
import { openLspSession, openMcpSession } from './doors';
import { shippedLaunch } from './launch';
import { ensureAptTool } from './aptTool';
import { SERVER_NODE_FLAGS, serverEnvironment } from '../server/src/lsp/serverProcess';
import { ChunkStore } from '../server/src/engine/store/chunkStore';
import { VectorStore } from '../server/src/engine/store/vectorStore';
import { LexicalIndex } from '../server/src/engine/store/lexical/lexicalIndex';

const REPO = resolve(__dirname, '..');
const CACHE = join(REPO, 'bench', '.cache', 'scale');
const SENTINEL_PATH = 'zzzz_quarry_scale_sentinel.go';
const SENTINEL = 'QuarryScaleSentinelReady';
const DESCRIPTIONS = [
  'parse an HTTP request header', 'compute a sha256 checksum of a file', 'read a gzip compressed stream',
  'format a time as RFC3339', 'split a string by whitespace', 'open a TCP connection with a timeout',
  'sort a slice with a custom comparison', 'decode JSON into a struct', 'walk a directory tree recursively',
  'escape HTML special characters', 'generate a random number', 'encode bytes as base64',
  // the second dozen (issue 21's door figures: enough descriptions for a p95)
  'resolve a hostname to IP addresses', 'compress data with zlib', 'parse a URL query string', 'verify an x509 certificate chain',
  'read environment variables', 'copy a file to a writer', 'convert a string to an integer', 'match a regular expression',
  'write a CSV record', 'wait for a goroutine group to finish', 'hash a password with a salt', 'lock a mutex while updating a map',
];

interface Args {
  corpus: string;
  files?: number;
  history: number;
  cli?: string;
  queries: number;
  cpuProf: boolean;
  /** Name of the workspace copy under bench/.cache/scale/work/ (default: derived from corpus, files and history). */
  work?: string;
  /** Keep an existing index of the workspace (no cold index): warm figures only. */
  reuseIndex: boolean;
  /** Which warm measurements to take (default all). */
  only?: Set<string>;
  /** A second CLI build whose doors are measured interleaved with this tree's (before/after in one run). */
  baselineCli?: string;
  /** A git revision whose CLI is built and measured as the baseline (instead of --baseline-cli). */
  baselineRev?: string;
  /** Times each warm query is asked (per door and build). */
  rounds: number;
  /** Where the in-process search's time goes, per stage. */
  stages: boolean;
  /** A second cold index observed by a polling `quarry search` (the time to lexical searchable); `--no-observed` skips it. */
  observed: boolean;
  /** Rounds of the one-changed-file measurements. */
  edits: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { corpus: 'go119', history: 100, queries: 40, cpuProf: false, reuseIndex: false, rounds: 1, stages: false, observed: true, edits: 5 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--corpus') args.corpus = value();
    else if (a === '--files') args.files = positive(value(), a);
    else if (a === '--history') args.history = Math.max(0, Math.floor(Number(value())));
    else if (a === '--cli') args.cli = resolve(value());
    else if (a === '--queries') args.queries = positive(value(), a);
    else if (a === '--cpu-prof') args.cpuProf = true;
    else if (a === '--work') args.work = value();
    else if (a === '--reuse-index') args.reuseIndex = true;
    else if (a === '--only') args.only = new Set(value().split(','));
    else if (a === '--baseline-cli') args.baselineCli = resolve(value());
    else if (a === '--baseline') args.baselineRev = value();
    else if (a === '--rounds') args.rounds = positive(value(), a);
    else if (a === '--stages') args.stages = true;
    else if (a === '--no-observed') args.observed = false;
    else if (a === '--edits') args.edits = positive(value(), a);
    else if (a === '--help' || a === '-h') {
      console.log('npx tsx bench/scale.ts [--corpus go119|DIR] [--files N] [--history K] [--cli PATH] [--queries N] [--cpu-prof] [--work NAME] [--reuse-index] [--baseline REV | --baseline-cli PATH] [--rounds N] [--stages] [--no-observed] [--edits N] [--only engine,reindex,mcp,lsp,csearch,rg]');
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  return args;
}

function positive(v: string, name: string): number {
  const n = Math.floor(Number(v));
  if (!(n > 0)) throw new Error(`${name} must be a positive number`);
  return n;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.quarry' || e.name === '.git') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

function git(cwd: string, args: string[], date?: string): string {
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
  if (date) Object.assign(env, { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
  return execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], { cwd, env, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * The benchmark workspace: the corpus (first `files` files), the sentinel, a git repository with `history` synthetic
 * commits (deterministic: the same tree and history every time). Built once per configuration.
 */
function prepareWorkspace(source: string, name: string, args: Args): string {
  const work = join(CACHE, 'work', args.work ?? `${name}-${args.files ?? 'all'}-h${args.history}`);
  if (existsSync(join(work, '.scale-ready'))) return work;
  rmSync(work, { recursive: true, force: true });
  const isRepo = name !== 'go119' && existsSync(join(source, '.git')) && args.files === undefined;
  if (isRepo) {
    execFileSync('git', ['clone', '-q', '--no-hardlinks', source, work]);
  } else {
    const files = listFiles(source).slice(0, args.files ?? Infinity);
    for (const f of files) {
      mkdirSync(dirname(join(work, f)), { recursive: true });
      cpSync(join(source, f), join(work, f));
    }
  }
  writeFileSync(join(work, SENTINEL_PATH), `package sentinel\n\n// ${SENTINEL} is indexed in the last batch.\nfunc ${SENTINEL}() {}\n`);
  if (!isRepo) {
    const day = (n: number) => new Date(Date.UTC(2022, 7, 1) + n * 86_400_000).toISOString();
    git(work, ['init', '-q']);
    git(work, ['add', '-A']);
    git(work, ['commit', '-q', '-m', 'import'], day(0));
    const goFiles = listFiles(work).filter((f) => f.endsWith('.go'));
    const rand = prng(21);
    for (let c = 1; c <= args.history && goFiles.length; c++) {
      for (let k = 0; k < 12; k++) {
        const f = join(work, goFiles[Math.floor(rand() * goFiles.length)]);
        const lines = readFileSync(f, 'utf8').split('\n');
        const at = 1 + Math.floor(rand() * Math.max(1, lines.length - 1));
        lines.splice(at, 0, `// bench edit ${c}.${k}`);
        writeFileSync(f, lines.join('\n'));
      }
      git(work, ['commit', '-q', '-a', '-m', `edit ${c}`], day(c));
    }
  } else {
    git(work, ['add', SENTINEL_PATH]);
    git(work, ['commit', '-q', '-m', 'scale sentinel']);
  }
  writeFileSync(join(work, '.git', 'info', 'exclude'), '.scale-ready\n', { flag: 'a' });
  writeFileSync(join(work, '.scale-ready'), new Date().toISOString() + '\n');
  return work;
}

/**
 * A build of this working tree's CLI and its doors, made by scripts/build.mjs exactly as it makes dist/ (minified, the
 * launcher's node flags and environment on its first line, the token rank table beside it: what ships), written to the
 * cache (`build/` or `build-<work>/` with `--work`, so that sessions benchmarking other copies do not overwrite it).
 */
async function buildCli(dir: string, root = REPO): Promise<string> {
  execFileSync(process.execPath, [join(REPO, 'scripts', 'build.mjs'), '--outdir', dir, '--root', root, '--server-only'], { cwd: REPO, stdio: 'inherit' });
  return join(dir, 'cli.js');
}

/**
 * The CLI of another revision (`--baseline REV`): its server/ sources exported with `git archive` under
 * bench/.cache/scale/ (dependencies resolve from this checkout's node_modules, models from its models/) and bundled.
 */
async function buildRevision(rev: string): Promise<string> {
  const sha = execFileSync('git', ['rev-parse', '--verify', `${rev}^{commit}`], { cwd: REPO, encoding: 'utf8' }).trim();
  const root = join(CACHE, `rev-${sha.slice(0, 12)}`);
  if (!existsSync(join(root, 'build', 'cli.js'))) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${sha} server package.json | tar -x -C '${root}'`], { cwd: REPO });
    await buildCli(join(root, 'build'), root);
  }
  return join(root, 'build', 'cli.js');
}

interface ColdRun {
  wallMs: number;
  cpuMs: number | null;
  peakRssMb: number | null;
  searchableMs: number | null;
  summary: Record<string, unknown> & { durationMs?: number; totalChunks?: number; filesIndexed?: number; git?: { durationMs?: number; filesRefreshed?: number }; embedding?: { durationMs?: number; embedded?: number } };
  exitCode: number | null;
}

/** `node <the build's shebang flags> <cli> …`, with `BENCH_NODE_FLAGS` (space-separated) added for experiments. */
function nodeArgs(cli: string, rest: string[], cpuProf?: string): string[] {
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const flags = shippedLaunch(cli).flags.filter((f) => !extra.some((e) => e.split('=')[0] === f.split('=')[0]));
  return [...flags, ...extra, ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []), cli, ...rest];
}

/**
 * One cold `quarry index` in a child process. With `observe`, a second process polls `quarry search` for the sentinel
 * meanwhile (each poll starts a CLI that opens the growing index: on 2 cores it takes CPU from the run it measures, so
 * the bench takes wall, CPU and peak RSS from a run without it, and the time to searchable from a second, observed run).
 */
async function coldIndex(cli: string, work: string, cpuProf: string | undefined, observe: boolean): Promise<ColdRun> {
  rmSync(join(work, '.quarry'), { recursive: true, force: true });
  const env = { ...shippedLaunch(cli).env, ...process.env, LANCEDB_LOG: 'error' };
  const timeTool = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
  const cmd = timeTool ?? process.execPath;
  const argv = timeTool ? ['-v', process.execPath, ...nodeArgs(cli, ['index', '--project', work, '--json'], cpuProf)] : nodeArgs(cli, ['index', '--project', work, '--json'], cpuProf);
  const started = Date.now();
  const child = spawn(cmd, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  let done = false;
  const exited = new Promise<number | null>((res) => child.on('close', (code) => ((done = true), res(code))));

  // Peak RSS without /usr/bin/time: the node process's VmHWM, read until it exits.
  let hwmKb = 0;
  const hwm = timeTool ? undefined : setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
      if (m) hwmKb = Math.max(hwmKb, Number(m[1]));
    } catch {
      /* gone or not Linux */
    }
  }, 200);

  // Time to lexical searchable: poll a second process for the sentinel, once the indexer holds its lock.
  let searchableMs: number | null = null;
  const poll = (async () => {
    while (observe && !done && searchableMs === null) {
      await new Promise((r) => setTimeout(r, 1000));
      if (done || !existsSync(join(work, '.quarry', 'index.lock'))) continue;
      const found = await new Promise<boolean>((res) => {
        const s = spawn(process.execPath, nodeArgs(cli, ['search', SENTINEL, '--project', work, '--format', 'json', '--limit', '1', '--no-explain']), { env, stdio: ['ignore', 'pipe', 'ignore'] });
        let out = '';
        s.stdout.on('data', (d) => (out += d));
        s.on('close', () => res(out.includes(SENTINEL_PATH)));
      });
      if (found && !done) searchableMs = Date.now() - started;
    }
  })();
  const exitCode = await exited;
  const wallMs = Date.now() - started;
  if (hwm) clearInterval(hwm);
  await poll;

  let cpuMs: number | null = null;
  let peakRssMb: number | null = hwmKb ? hwmKb / 1024 : null;
  if (timeTool) {
    const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
    const sys = /System time \(seconds\): ([\d.]+)/.exec(stderr);
    const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
    if (user && sys) cpuMs = (Number(user[1]) + Number(sys[1])) * 1000;
    if (rss) peakRssMb = Number(rss[1]) / 1024;
  }
  let summary: ColdRun['summary'] = {};
  try {
    summary = JSON.parse(stdout.slice(stdout.indexOf('{')));
  } catch {
    console.error(stderr.slice(-4000));
    throw new Error(`quarry index failed (exit ${exitCode})`);
  }
  // The whole run finished before any poll saw the sentinel: searchable by the end at the latest.
  return { wallMs, cpuMs, peakRssMb, searchableMs: observe ? (searchableMs ?? wallMs) : null, summary, exitCode };
}

/** Exported Go identifiers defined in the corpus (func and type names), a deterministic sample. */
function identifiers(work: string, n: number): string[] {
  const names = new Set<string>();
  for (const f of listFiles(work)) {
    if (!f.endsWith('.go') || f.includes('testdata/') || f === SENTINEL_PATH) continue;
    const text = readFileSync(join(work, f), 'utf8');
    for (const m of text.matchAll(/^(?:func(?: \([^)]*\))?|type) ([A-Z][A-Za-z0-9]{5,})/gm)) names.add(m[1]);
  }
  return sample([...names].sort(), n, 21);
}

async function warmQueries(work: string, idents: string[], descs: string[], rounds: number): Promise<{ ident: LatencyReport; desc: LatencyReport; answers: Map<string, string[]> }> {
  const engine = await Engine.open(work, { longRunning: true });
  try {
    for (const q of [...idents.slice(0, 3), ...descs.slice(0, 3)]) await engine.search(q, { limit: 10 });
    await engine.keepReadSnapshots();
    // as the doors are warmed (doorFigures): a few more searches once the snapshots are there
    for (const q of [...idents.slice(3, 5), ...descs.slice(3, 5)]) await engine.search(q, { limit: 10 });
    const answers = new Map<string, string[]>();
    const time = async (qs: string[]) => {
      const ms: number[] = [];
      for (let r = 0; r < rounds; r++) {
        for (const q of qs) {
          const t = performance.now();
          const res = await engine.search(q, { limit: 10, includeTests: true, explain: false });
          ms.push(performance.now() - t);
          answers.set(q, res.matches.map((m) => m.content.chunk_id));
        }
      }
      return latency(ms);
    };
    return { ident: await time(idents), desc: await time(descs), answers };
  } finally {
    await engine.close();
  }
}

interface ReindexFigures {
  file: string;
  /** `quarry index` in a fresh process after one changed file: wall ms per round, and the run's own durationMs. */
  process: LatencyReport & { min: number; max: number; runMs: LatencyReport };
  /** `Engine.updateFiles([file])` in a long-running engine (a save). */
  save: LatencyReport;
  /** `Engine.setBuffer` with a new function, then searches until one finds it (an unsaved edit, no debounce). */
  unsaved: LatencyReport;
}

/** The first non-test Go file in path order with at least 200 lines (on the Go tree: archive/tar/common.go). */
function editTarget(work: string): string {
  for (const f of listFiles(work)) {
    if (!f.endsWith('.go') || f.endsWith('_test.go') || f.includes('testdata/') || f === SENTINEL_PATH) continue;
    if (readFileSync(join(work, f), 'utf8').split('\n').length >= 200) return f;
  }
  throw new Error('no Go file of 200 lines or more to edit');
}

/** One changed file: a `quarry index` process, a save in a long-running engine, an unsaved edit (see the header). */
async function reindexFigures(cli: string, work: string, edits: number): Promise<ReindexFigures> {
  const file = editTarget(work);
  const abs = join(work, file);
  const original = readFileSync(abs, 'utf8');
  const env = { ...shippedLaunch(cli).env, ...process.env, LANCEDB_LOG: 'error' };
  const wall: number[] = [];
  const runMs: number[] = [];
  const save: number[] = [];
  const unsaved: number[] = [];
  let round = 0;
  const edit = () => writeFileSync(abs, `${readFileSync(abs, 'utf8')}// quarry bench edit ${++round}\n`);
  try {
    for (let i = 0; i < edits; i++) {
      edit();
      const t = performance.now();
      const r = spawnSync(process.execPath, nodeArgs(cli, ['index', '--project', work, '--json']), { env, encoding: 'utf8', maxBuffer: 64 << 20 });
      wall.push(performance.now() - t);
      if (r.status !== 0) throw new Error(`quarry index failed (exit ${r.status}): ${r.stderr.slice(-2000)}`);
      runMs.push(JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))).durationMs);
    }
    const engine = await Engine.open(work, { longRunning: true });
    try {
      edit();
      await engine.updateFiles([file]); // the first save loads the grammar and the models
      for (let i = 0; i < edits; i++) {
        edit();
        const t = performance.now();
        await engine.updateFiles([file]);
        save.push(performance.now() - t);
      }
      for (let i = 0; i <= edits; i++) {
        const name = `QuarryBenchUnsaved${i}x${round}`;
        const t = performance.now();
        await engine.setBuffer(file, `${readFileSync(abs, 'utf8')}\nfunc ${name}() {}\n`);
        for (let tries = 0; tries < 50; tries++) {
          const res = await engine.search(name, { limit: 1, explain: false });
          if (res.matches.some((m) => m.file.path === file && m.content.symbol === name)) break;
          await new Promise((r) => setTimeout(r, 5));
        }
        if (i > 0) unsaved.push(performance.now() - t); // the first one loads what editing needs
      }
      await engine.setBuffer(file, null);
      writeFileSync(abs, original);
      await engine.updateFiles([file]);
    } finally {
      await engine.close();
    }
  } finally {
    writeFileSync(abs, original);
  }
  return { file, process: { ...latency(wall), min: Math.min(...wall), max: Math.max(...wall), runMs: latency(runMs) }, save: latency(save), unsaved: latency(unsaved) };
}

/**
 * Where a warm in-process search's time goes (`--stages`): the store's reads, the dense channel, the lexical top-k and
 * the learned scorer are timed by wrapping their methods; the rest (parsing, fusion, the rule stages, presentation) is
 * what remains of the search's own time. Medians per query kind, in ms.
 */
async function stageProfile(work: string, idents: string[], descs: string[]): Promise<Record<string, Record<string, number>>> {
  let acc: Record<string, number> = {};
  const wrap = (proto: object, method: string, label: string) => {
    const p = proto as Record<string, (...a: unknown[]) => unknown>;
    const orig = p[method];
    p[method] = function (this: unknown, ...a: unknown[]) {
      const t = performance.now();
      const add = () => (acc[label] = (acc[label] ?? 0) + performance.now() - t);
      const out = orig.apply(this, a);
      if (out instanceof Promise) return out.finally(add);
      add();
      return out;
    };
    return () => (p[method] = orig);
  };
  const restore = [
    wrap(ChunkStore.prototype, 'getChunks', 'store.getChunks'),
    wrap(ChunkStore.prototype, 'chunksByHashes', 'store.chunksByHashes'),
    wrap(ChunkStore.prototype, 'gitRowsOf', 'store.gitRowsOf'),
    wrap(ChunkStore.prototype, 'counts', 'store.counts'),
    wrap(ChunkStore.prototype, 'conformancesOf', 'store.conformancesOf'),
    wrap(VectorStore.prototype, 'nearest', 'vectors.nearest'),
    wrap(VectorStore.prototype, 'vectorsOf', 'vectors.vectorsOf'),
    wrap(LexicalIndex.prototype, 'search', 'lexical.search'),
  ];
  const engine = await Engine.open(work, { longRunning: true });
  try {
    await engine.keepReadSnapshots();
    const internals = engine as unknown as { embedding?: object; reranker?: object };
    if (internals.embedding) restore.push(wrap(internals.embedding, 'embedQuery', 'embed query'));
    if (internals.reranker && 'scoreCandidates' in internals.reranker) restore.push(wrap(internals.reranker, 'scoreCandidates', 'learned scorer'));
    for (const q of [...idents.slice(0, 3), ...descs.slice(0, 3)]) await engine.search(q, { limit: 10 });
    const out: Record<string, Record<string, number>> = {};
    for (const [kind, qs] of [['identifiers', idents], ['descriptions', descs]] as const) {
      const rows: Array<Record<string, number>> = [];
      for (const q of qs) {
        acc = {};
        const t = performance.now();
        await engine.search(q, { limit: 10, includeTests: true, explain: false });
        const total = performance.now() - t;
        const measured = Object.values(acc).reduce((a, b) => a + b, 0);
        // the dense kNN runs beside the lexical search (retrieval/hybrid.ts), so the rest is a lower bound
        rows.push({ ...acc, 'rest (parse, fusion, rule stages, presentation; minus the kNN time hidden by the lexical search)': total - measured, total });
      }
      const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
      out[kind] = Object.fromEntries(keys.map((k) => [k, latency(rows.map((r) => r[k] ?? 0)).p50]));
    }
    return out;
  } finally {
    for (const r of restore) r();
    await engine.close();
  }
}

interface DoorFigures {
  ident: LatencyReport;
  desc: LatencyReport;
  answers: Map<string, string[]>;
  /** The server's resident memory after the measured queries (MB). */
  rssMb: number | null;
}

/**
 * Warm round trips through one door for each CLI build, interleaved query by query (the order of the builds
 * alternates), so that a baseline and a candidate build see the same machine load. Each build's server is started
 * once, warmed with a few queries (the language server's first find also waits for its start-up index run), then
 * asked every query `rounds` times.
 */
async function doorFigures(door: 'mcp' | 'lsp', builds: Array<{ label: string; cli: string }>, work: string, idents: string[], descs: string[], rounds: number, prof?: string): Promise<Map<string, DoorFigures>> {
  const sessions: Array<{ label: string; s: Awaited<ReturnType<typeof openMcpSession>> }> = [];
  try {
    for (const b of builds) {
      // the language server as the editor starts it (serverProcess.ts: its flags and environment), `quarry mcp` as its shebang
      const launch = door === 'lsp' ? { env: serverEnvironment(process.env), flags: [...SERVER_NODE_FLAGS] } : shippedLaunch(b.cli);
      const nodeArgs = [...launch.flags, ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${join(prof, `${door}-${b.label}`)}`] : [])];
      const s = door === 'mcp' ? await openMcpSession(b.cli, work, nodeArgs, launch.env) : await openLspSession(b.cli, work, nodeArgs, launch.env);
      sessions.push({ label: b.label, s });
      for (const q of [...idents.slice(0, 3), ...descs.slice(0, 3)]) await s.find(q);
    }
    // what a server loads in the background after its first searches (read snapshots) is ready before the measured ones
    await new Promise((r) => setTimeout(r, 5000));
    for (const { s } of sessions) for (const q of [...idents.slice(3, 5), ...descs.slice(3, 5)]) await s.find(q);
    const ms = new Map(builds.map((b) => [b.label, { ident: [] as number[], desc: [] as number[] }]));
    const answers = new Map(builds.map((b) => [b.label, new Map<string, string[]>()]));
    const queries = [...idents.map((q) => ({ q, kind: 'ident' as const })), ...descs.map((q) => ({ q, kind: 'desc' as const }))];
    let turn = 0;
    for (let r = 0; r < rounds; r++) {
      for (const { q, kind } of queries) {
        const order = turn++ % 2 ? [...sessions].reverse() : sessions;
        for (const { label, s } of order) {
          const a = await s.find(q);
          ms.get(label)![kind].push(a.ms);
          answers.get(label)!.set(q, a.ids);
        }
      }
    }
    const rss = new Map(sessions.map(({ label, s }) => [label, s.rssMb()]));
    return new Map(builds.map((b) => [b.label, { ident: latency(ms.get(b.label)!.ident), desc: latency(ms.get(b.label)!.desc), answers: answers.get(b.label)!, rssMb: rss.get(b.label) ?? null }]));
  } finally {
    for (const { s } of sessions) await s.close().catch(() => undefined);
  }
}

/**
 * Debian's `csearch` (Russ Cox's codesearch: a trigram index, then a regexp over the candidate files), the same tree
 * indexed once by `cindex` into bench/.cache (CSEARCHINDEX); one `csearch -n '\bIdent\b'` process per identifier,
 * timed from spawn to exit (process start included, as a person or an agent runs it).
 */
function csearch(work: string, indexFile: string, idents: string[], rounds: number): { ident: LatencyReport; indexMs: number | null } | null {
  if (spawnSync('csearch', ['-h']).error) return null;
  const env = { ...process.env, CSEARCHINDEX: indexFile };
  let indexMs: number | null = null;
  if (!existsSync(indexFile)) {
    mkdirSync(dirname(indexFile), { recursive: true });
    const t = performance.now();
    const r = spawnSync('cindex', [work], { env, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`cindex failed (exit ${r.status})`);
    indexMs = performance.now() - t;
  }
  spawnSync('csearch', ['-l', 'zzzz'], { env, stdio: 'ignore' });
  const ms: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of idents) {
      const t = performance.now();
      spawnSync('csearch', ['-n', `\\b${q}\\b`], { env, stdio: 'ignore' });
      ms.push(performance.now() - t);
    }
  }
  return { ident: latency(ms), indexMs };
}

function ripgrep(work: string, idents: string[], descs: string[]): { ident: LatencyReport; desc: LatencyReport } | null {
  if (spawnSync('rg', ['--version']).status !== 0) return null;
  const time = (argsOf: (q: string) => string[], qs: string[]) =>
    latency(
      qs.map((q) => {
        const t = performance.now();
        spawnSync('rg', ['-n', '--no-heading', '--glob', '!.quarry', ...argsOf(q), work], { stdio: 'ignore' });
        return performance.now() - t;
      }),
    );
  rg0(work);
  return {
    ident: time((q) => ['-F', '-w', '-e', q], idents),
    // A description has no ripgrep equivalent: its longer words, any of them, case-insensitive.
    desc: time((q) => ['-i', ...q.split(/\s+/).filter((w) => w.length >= 4).flatMap((w) => ['-e', w])], descs),
  };
}

/** One unmeasured ripgrep run: the tree in the page cache for both tools. */
function rg0(work: string): void {
  spawnSync('rg', ['-c', 'zzzz', work], { stdio: 'ignore' });
}

const fmt = (ms: number | null | undefined, digits = 1) => (ms === null || ms === undefined || Number.isNaN(ms) ? 'n/a' : `${(ms / 1000).toFixed(digits)} s`);
const fmtMs = (ms: number) => (ms < 10 ? ms.toFixed(1) : Math.round(ms).toString()) + ' ms';

/** An answer comparison across two builds: queries whose top-10 chunk ids are identical (in order). */
function sameAnswers(a: Map<string, string[]>, b: Map<string, string[]>): { same: number; of: number; differ: string[] } {
  const differ: string[] = [];
  for (const [q, ids] of a) if (JSON.stringify(ids) !== JSON.stringify(b.get(q))) differ.push(q);
  return { same: a.size - differ.length, of: a.size, differ };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const source = args.corpus === 'go119' ? await fetchGo119(CACHE) : resolve(args.corpus);
  if (!existsSync(source) || !statSync(source).isDirectory()) throw new Error(`corpus ${args.corpus}: not a folder`);
  const name = args.corpus === 'go119' ? 'go119' : source.split('/').filter(Boolean).pop()!;
  console.error(`preparing the workspace (${name}, ${args.files ?? 'all'} files, ${args.history} synthetic commits)…`);
  const work = prepareWorkspace(source, name, args);
  const files = listFiles(work).length;
  const commits = Number(git(work, ['rev-list', '--count', 'HEAD']).trim());
  const cli = args.cli ?? (await buildCli(join(CACHE, args.work ? `build-${args.work}` : 'build')));
  const want = (what: string) => !args.only || args.only.has(what);
  const load = loadavg()[0];
  const prof = args.cpuProf ? join(CACHE, 'prof', new Date().toISOString().replace(/[:.]/g, '-')) : undefined;
  let cold: ColdRun | undefined;
  let observed: ColdRun | undefined;
  if (args.reuseIndex && existsSync(join(work, '.quarry'))) {
    console.error(`reusing the index of ${work}`);
  } else {
    console.error(`cold index of ${work} with ${relative(REPO, cli) || cli}…`);
    cold = await coldIndex(cli, work, prof, false);
    if (args.observed) {
      console.error('cold index again, observed by a polling `quarry search`…');
      observed = await coldIndex(cli, work, undefined, true);
    }
  }
  const idents = identifiers(work, args.queries);
  const descs = DESCRIPTIONS;
  const chunks = cold?.summary.totalChunks ?? (await (async () => {
    const e = await Engine.open(work);
    try {
      return (await e.status()).chunks as number;
    } finally {
      await e.close();
    }
  })());
  const baselineCli = args.baselineRev ? await buildRevision(args.baselineRev) : args.baselineCli;
  const builds = [{ label: 'current', cli }, ...(baselineCli ? [{ label: 'baseline', cli: baselineCli }] : [])];
  console.error('one changed file…');
  const reindex = want('reindex') ? await reindexFigures(cli, work, args.edits) : undefined;
  console.error('warm queries…');
  const quarry = want('engine') ? await warmQueries(work, idents, descs, args.rounds) : undefined;
  const stages = args.stages ? await stageProfile(work, idents, descs) : undefined;
  const mcp = want('mcp') ? await doorFigures('mcp', builds, work, idents, descs, args.rounds, prof) : undefined;
  const lsp = want('lsp') ? await doorFigures('lsp', builds, work, idents, descs, args.rounds, prof) : undefined;
  const missingTools = [
    want('csearch') ? ensureAptTool(() => !spawnSync('csearch', ['-h']).error, 'codesearch', "Debian's csearch") : undefined,
    want('rg') ? ensureAptTool(() => spawnSync('rg', ['--version']).status === 0, 'ripgrep', 'ripgrep') : undefined,
  ].filter((m): m is string => m !== undefined);
  const cs = want('csearch') ? csearch(work, join(CACHE, 'csearch', `${args.work ?? name}.index`), idents, args.rounds) : null;
  const rg = want('rg') ? ripgrep(work, idents, descs) : null;
  const loadAfter = loadavg()[0];

  const compare = (figs: Map<string, DoorFigures> | undefined) => {
    const cur = figs?.get('current');
    const base = figs?.get('baseline');
    return cur && base ? sameAnswers(base.answers, cur.answers) : undefined;
  };
  const engineVsDoor = quarry && mcp ? sameAnswers(quarry.answers, mcp.get('current')!.answers) : undefined;
  const plain = (f: { ident: LatencyReport; desc: LatencyReport; rssMb?: number | null } | undefined) => (f ? { ident: f.ident, desc: f.desc, rssMb: f.rssMb } : undefined);
  const result = {
    at: new Date().toISOString(), corpus: name, files, commits, chunks, cpus: cpus().length, loadBefore: load, loadAfter, rounds: args.rounds,
    cold: cold && { wallMs: cold.wallMs, cpuMs: cold.cpuMs, peakRssMb: cold.peakRssMb, lexicalPhaseMs: cold.summary.durationMs, gitMs: cold.summary.git?.durationMs, embeddingMs: cold.summary.embedding?.durationMs },
    observedCold: observed && { wallMs: observed.wallMs, cpuMs: observed.cpuMs, peakRssMb: observed.peakRssMb, searchableMs: observed.searchableMs },
    reindex, quarry: plain(quarry), stages,
    mcp: mcp && Object.fromEntries([...mcp].map(([k, v]) => [k, plain(v)])),
    lsp: lsp && Object.fromEntries([...lsp].map(([k, v]) => [k, plain(v)])),
    answers: { mcpBaselineVsCurrent: compare(mcp), lspBaselineVsCurrent: compare(lsp), engineVsMcp: engineVsDoor },
    csearch: cs, ripgrep: rg, profile: prof,
    top10: quarry && Object.fromEntries(quarry.answers),
  };
  mkdirSync(join(REPO, 'bench', 'results'), { recursive: true });
  writeFileSync(join(REPO, 'bench', 'results', `scale-${args.work ?? name}-${args.files ?? 'all'}.json`), JSON.stringify(result, null, 2) + '\n');

  const rows: string[] = [];
  rows.push(`### Scale: ${name} (${files.toLocaleString('en-US')} files, ${(chunks ?? 0).toLocaleString('en-US')} chunks, ${commits} commits)`);
  rows.push('');
  rows.push(`${cpus().length} CPUs, load average ${load.toFixed(1)} before and ${loadAfter.toFixed(1)} after; warm queries asked ${args.rounds} time(s) each.`);
  rows.push('');
  if (cold) {
    const s = cold.summary;
    rows.push('| Cold index | |');
    rows.push('|---|---|');
    rows.push(`| wall | ${fmt(cold.wallMs)} |`);
    rows.push(`| CPU (user + system) | ${fmt(cold.cpuMs)} |`);
    rows.push(`| peak RSS | ${cold.peakRssMb === null ? 'n/a' : `${Math.round(cold.peakRssMb)} MB`} |`);
    if (observed) {
      rows.push(`| lexical searchable (a second cold run: sentinel found by a \`quarry search\` polling about every second) | ${fmt(observed.searchableMs)} |`);
      rows.push(`| that observed run: wall, CPU, peak RSS (the polls take CPU from it) | ${fmt(observed.wallMs)}, ${fmt(observed.cpuMs)}, ${observed.peakRssMb === null ? 'n/a' : `${Math.round(observed.peakRssMb)} MB`} |`);
    }
    rows.push(`| lexical phase (summary) | ${fmt(s.durationMs)} |`);
    rows.push(`| git metadata pass | ${fmt(s.git?.durationMs)} (${s.git?.filesRefreshed ?? 0} files) |`);
    rows.push(`| embedding | ${fmt(s.embedding?.durationMs)} (${s.embedding?.embedded ?? 0} chunks) |`);
    rows.push('');
  }
  if (reindex) {
    const r = reindex;
    rows.push(`| One changed file (\`${r.file}\`, a line appended; ${args.edits} rounds) | p50 | p95 | |`);
    rows.push('|---|---|---|---|');
    rows.push(`| \`quarry index\` in a fresh process, wall | ${fmtMs(r.process.p50)} | ${fmtMs(r.process.p95)} | min ${fmtMs(r.process.min)}, max ${fmtMs(r.process.max)}; the run itself (durationMs) p50 ${fmtMs(r.process.runMs.p50)} |`);
    rows.push(`| a save in a long-running engine (\`Engine.updateFiles\`, as the language server and \`quarry mcp\`) | ${fmtMs(r.save.p50)} | ${fmtMs(r.save.p95)} | |`);
    rows.push(`| an unsaved edit searchable (\`Engine.setBuffer\`, then searches until the new function is found; the editor's ~200 ms debounce not included) | ${fmtMs(r.unsaved.p50)} | ${fmtMs(r.unsaved.p95)} | |`);
    rows.push('');
  }
  const line = (what: string, f: { ident: LatencyReport; desc: LatencyReport; rssMb?: number | null } | undefined | null, identOnly = false) => {
    if (!f) return;
    const rss = f.rssMb ? `${Math.round(f.rssMb)} MB` : '';
    rows.push(`| ${what} | ${fmtMs(f.ident.p50)} | ${fmtMs(f.ident.p95)} | ${identOnly ? '' : fmtMs(f.desc.p50)} | ${identOnly ? '' : fmtMs(f.desc.p95)} | ${rss} |`);
  };
  if (mcp || lsp || quarry || cs || rg) {
    rows.push(`| Warm query (${idents.length} identifiers, ${descs.length} descriptions) | identifiers p50 | p95 | descriptions p50 | p95 | server RSS after |`);
    rows.push('|---|---|---|---|---|---|');
  }
  for (const [door, figs] of [['MCP `find_code`', mcp], ['LSP `codeSearch/find`', lsp]] as const) {
    for (const b of builds) line(`${door}${builds.length > 1 ? ` (${b.label})` : ''}`, figs?.get(b.label));
  }
  line('Quarry in process (`Engine.search`)', quarry);
  if (cs) rows.push(`| csearch (process per query) | ${fmtMs(cs.ident.p50)} | ${fmtMs(cs.ident.p95)} | | | |`);
  line('ripgrep (process per query)', rg);
  rows.push('');
  for (const [what, c] of [['MCP', compare(mcp)], ['LSP', compare(lsp)]] as const) {
    if (c) rows.push(`Top-10 chunk ids, baseline vs current through ${what}: ${c.same}/${c.of} queries identical${c.differ.length ? ` (differ: ${c.differ.join('; ')})` : ''}.`);
  }
  for (const m of missingTools) rows.push(`Note: ${m}.`);
  if (stages) {
    rows.push('');
    rows.push('| In-process stage (median ms) | identifiers | descriptions |');
    rows.push('|---|---|---|');
    for (const k of Object.keys({ ...stages.identifiers, ...stages.descriptions })) rows.push(`| ${k} | ${(stages.identifiers[k] ?? 0).toFixed(2)} | ${(stages.descriptions[k] ?? 0).toFixed(2)} |`);
  }
  rows.push('');
  rows.push('Doors: a real server process per build (`quarry mcp --project`, `quarry lsp --stdio`) with a real client (MCP SDK, vscode-jsonrpc), round trip per request, index warm. csearch: `cindex` of the same tree, one `csearch -n \'\\bIdent\\b\'` process per query. ripgrep: one `rg` process per query over the tree (`-F -w` for identifiers; for descriptions, any of their longer words, `-i`).');
  if (prof) rows.push(`\nCPU profiles: ${prof}`);
  console.log(rows.join('\n'));
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack ?? e.message : e);
  process.exit(1);
});
