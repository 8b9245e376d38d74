/**
 * The first query of a session (issue 21: "the first query of a session answers in ≤ 200 ms"): a door server started
 * on an existing index, its client connected, and a question asked at once — what an agent or an editor does first.
 *
 *   npm run bench:first-query -- [--dir DIR] [--cli PATH ...] [--rounds N] [--doors mcp,lsp]
 *
 * Workspace: `--dir` (default: the frozen evaluation's fastify 4.28.1 tree, bench/.cache/eval/fastify/tree, fetched by
 * `npx tsx bench/eval/fetch.ts`), copied to a temporary folder and indexed once per CLI (`quarry index`, default
 * configuration). Each round starts a fresh server per CLI (`quarry mcp --project DIR` with the MCP SDK's stdio client;
 * `quarry lsp --stdio` with vscode-jsonrpc, bench/doors.ts), times the connection (spawn → initialize answered), then
 * asks a description, an identifier and a second description right away, and closes. Several `--cli` builds are
 * interleaved round by round (the order alternating), so that a before/after pair sees the same machine load. Reports
 * medians over the rounds. The language server's first find also waits for its start-up index run (incremental here).
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openLspSession, openMcpSession, type DoorSession } from './doors';

const REPO = resolve(__dirname, '..');
const QUERIES = ['how are errors thrown in handlers turned into responses', 'wrapThenable', 'choose the body parser for a content type'];

interface Args {
  dir: string;
  clis: string[];
  rounds: number;
  doors: Array<'mcp' | 'lsp'>;
}

function parseCommandLine(argv: string[]): Args {
  const { values } = parseArgs({
    args: argv,
    options: {
      dir: { type: 'string' },
      cli: { type: 'string', multiple: true },
      rounds: { type: 'string' },
      doors: { type: 'string' },
    },
  });
  const doors = (values.doors ?? 'mcp,lsp').split(',').filter((d): d is 'mcp' | 'lsp' => d === 'mcp' || d === 'lsp');
  return {
    dir: resolve(values.dir ?? join(REPO, 'bench', '.cache', 'eval', 'fastify', 'tree')),
    clis: (values.cli?.length ? values.cli : [join(REPO, 'dist', 'cli.js')]).map((c) => resolve(c)),
    rounds: Math.max(1, Math.floor(Number(values.rounds ?? 5))),
    doors,
  };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function round(door: 'mcp' | 'lsp', cli: string, dir: string): Promise<number[]> {
  const t0 = performance.now();
  const s: DoorSession = door === 'mcp' ? await openMcpSession(cli, dir, ['--liftoff-only']) : await openLspSession(cli, dir, ['--liftoff-only']);
  const connect = performance.now() - t0;
  try {
    const out = [connect];
    for (const q of QUERIES) out.push((await s.find(q)).ms);
    return out;
  } finally {
    await s.close();
  }
}

async function main(): Promise<void> {
  const args = parseCommandLine(process.argv.slice(2));
  if (!existsSync(args.dir)) throw new Error(`no workspace at ${args.dir} (fetch the evaluation's trees with \`npx tsx bench/eval/fetch.ts\`, or pass --dir)`);
  const work = args.clis.map((cli) => {
    const dir = mkdtempSync(join(tmpdir(), 'quarry-first-'));
    cpSync(args.dir, dir, { recursive: true, filter: (src) => !src.includes(`${join('/', '.quarry')}`) });
    const r = spawnSync(process.execPath, [cli, 'index', '--project', dir, '--quiet'], { stdio: 'ignore', env: { ...process.env, LANCEDB_LOG: 'error' } });
    if (r.status !== 0) throw new Error(`${cli} index failed (exit ${r.status})`);
    return { cli, dir };
  });
  const load0 = loadavg()[0]!;
  const results = new Map<string, number[][]>();
  try {
    for (let r = 0; r < args.rounds; r++) {
      for (const door of args.doors) {
        const order = r % 2 ? [...work].reverse() : work;
        for (const w of order) {
          const key = `${door}\t${w.cli}`;
          if (!results.has(key)) results.set(key, []);
          results.get(key)!.push(await round(door, w.cli, w.dir));
        }
      }
    }
  } finally {
    for (const w of work) rmSync(w.dir, { recursive: true, force: true });
  }
  console.log(`# First query of a session (${args.rounds} rounds; load average ${load0.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}; ${args.dir})\n`);
  console.log('| door | CLI | connect | first find (description) | then an identifier | then a description |');
  console.log('|---|---|---|---|---|---|');
  for (const [key, rows] of results) {
    const [door, cli] = key.split('\t');
    const col = (i: number) => `${median(rows.map((x) => x[i]!)).toFixed(0)} ms`;
    console.log(`| ${door} | ${cli} | ${col(0)} | ${col(1)} | ${col(2)} | ${col(3)} |`);
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
