/**
 * `npm run eval [-- --systems a,b] [-- --repos a,b] [-- --half tune|report|both] [-- --reindex]`:
 * the frozen evaluation on real repositories (bench/eval/README.md). Indexes each fetched tree with Quarry's
 * engine, runs every system on every query, and writes bench/eval/results/<timestamp>.json, results/latest.json
 * and bench/eval/RESULTS.md (the same table is printed).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../server/src/engine/engine';
import type { ChunkStore } from '../../server/src/engine/store/chunkStore';
import { defaultConfig } from '../../server/src/engine/config/schema';
import { createEmbeddingProvider } from '../../server/src/engine/embedding/registry';
import { bootstrapCI, showsLines, spansByPath, withHoles, type Hit } from '../metrics';
import { denseOnlySystem, openCurrentStore, quarrySystem, ripgrepAvailable } from '../systems';
import { fetchRepo } from './fetch';
import { CATEGORIES, EVAL_DIR, EvalQuery, EvalTarget, FROZEN_PATH, halfOf, loadAll, queriesSha256, treeChecksum } from './spec';

const REPO_ROOT = join(EVAL_DIR, '..', '..');
const ALL_SYSTEMS = ['quarry', 'quarry-no-rerank', 'bm25', 'dense', 'ripgrep'] as const;
const K = 10;

interface System {
  name: string;
  search(query: string, k: number): Promise<Hit[]>;
}

function log(msg: string): void {
  process.stderr.write(`eval: ${msg}\n`);
}

// ---------------------------------------------------------------- the ripgrep baseline

const STOP = new Set(
  'a an and are as at be by can do does for from get gets how i in into is it its of on or that the this to was what when where which who why with without we our you your there their them they if then than not no up out all any each one two'.split(' '),
);

/** The words a user would grep for: the query's words of three or more letters, stop words left out. */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/[^a-z0-9_$]+/).filter((w) => w.length >= 3 && !STOP.has(w)))];
}

/**
 * ripgrep as a person would use it on a question: every query word, case-insensitive, files ranked by their
 * number of matches (ties by path); each file's hit is its line with the most distinct query words.
 */
function ripgrepRanked(dir: string): System {
  return {
    name: 'ripgrep',
    async search(query, k) {
      const words = queryWords(query);
      if (!words.length) return [];
      const args = ['-n', '-i', '-o', '-F', '--no-heading', '--no-ignore', '--hidden', '-g', '!.quarry', '-g', '!.git'];
      for (const w of words) args.push('-e', w);
      const r = spawnSync('rg', [...args, '.'], { cwd: dir, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
      const files = new Map<string, { count: number; lines: Map<number, Set<string>> }>();
      for (const line of (r.stdout ?? '').split('\n')) {
        const m = line.match(/^(?:\.\/)?(.+?):(\d+):(.*)$/);
        if (!m) continue;
        let f = files.get(m[1]);
        if (!f) files.set(m[1], (f = { count: 0, lines: new Map() }));
        f.count++;
        const n = Number(m[2]);
        let s = f.lines.get(n);
        if (!s) f.lines.set(n, (s = new Set()));
        s.add(m[3].toLowerCase());
      }
      return [...files.entries()]
        .sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]))
        .slice(0, k)
        .map(([path, f]) => {
          let best = 0;
          let bestN = -1;
          for (const [n, s] of f.lines) if (s.size > bestN || (s.size === bestN && n < best)) [best, bestN] = [n, s.size];
          return { path, startLine: best, endLine: best };
        });
    },
  };
}

// ---------------------------------------------------------------- metrics

/** Whether some line of `t` is a line the hit shows (its span less the units nested in it: bench/metrics.ts). */
export const overlaps = (h: Hit, t: EvalTarget): boolean => (t.lines ? showsLines(h, t.path, t.lines[0], t.lines[1]) : h.path === t.path);
const dcgAt = (i: number) => 1 / Math.log2(i + 2);

export interface QueryScore {
  /** File level: results reduced to distinct files in rank order; binary gain over relevant + secondary files. */
  ndcg10: number;
  /** Span level: a hit gains when it overlaps a relevant or secondary target not credited yet. */
  spanNdcg10: number;
  /** Span level, relevant targets: the first hit overlaps one. */
  p1: number;
  /** Span level, relevant targets: 1 / rank of the first hit that overlaps one (0 beyond 10). */
  mrr10: number;
}

export function scoreQuery(hits: readonly Hit[], q: Pick<EvalQuery, 'relevant' | 'secondary'>): QueryScore {
  const top = hits.slice(0, K);
  const all = [...q.relevant, ...q.secondary];
  const targetFiles = new Set(all.map((t) => t.path));
  const files: string[] = [];
  for (const h of hits) {
    if (!files.includes(h.path)) files.push(h.path);
    if (files.length === K) break;
  }
  let dcg = 0;
  files.forEach((f, i) => {
    if (targetFiles.has(f)) dcg += dcgAt(i);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(targetFiles.size, K); i++) idcg += dcgAt(i);
  const credited = new Set<number>();
  let sdcg = 0;
  top.forEach((h, i) => {
    const j = all.findIndex((t, ti) => !credited.has(ti) && overlaps(h, t));
    if (j >= 0) {
      credited.add(j);
      sdcg += dcgAt(i);
    }
  });
  let sidcg = 0;
  for (let i = 0; i < Math.min(all.length, K); i++) sidcg += dcgAt(i);
  const first = top.findIndex((h) => q.relevant.some((t) => overlaps(h, t)));
  return { ndcg10: idcg ? dcg / idcg : 0, spanNdcg10: sidcg ? sdcg / sidcg : 0, p1: first === 0 ? 1 : 0, mrr10: first >= 0 ? 1 / (first + 1) : 0 };
}

interface Cell {
  n: number;
  ndcg10: number;
  ndcg10CI: [number, number];
  spanNdcg10: number;
  p1: number;
  mrr10: number;
  mrr10CI: [number, number];
}

function cell(scores: QueryScore[]): Cell {
  const mean = (f: (s: QueryScore) => number) => (scores.length ? scores.reduce((a, s) => a + f(s), 0) / scores.length : NaN);
  return {
    n: scores.length,
    ndcg10: mean((s) => s.ndcg10),
    ndcg10CI: bootstrapCI(scores.map((s) => s.ndcg10)),
    spanNdcg10: mean((s) => s.spanNdcg10),
    p1: mean((s) => s.p1),
    mrr10: mean((s) => s.mrr10),
    mrr10CI: bootstrapCI(scores.map((s) => s.mrr10)),
  };
}

// ---------------------------------------------------------------- run

interface PerQuery {
  id: string;
  repo: string;
  category: string;
  half: 'tune' | 'report';
  scores: Record<string, QueryScore>;
  /** The top files per system (tune half only: the report half's failures are not for reading). */
  top?: Record<string, string[]>;
}

function gitHead(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'server'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim() ? '+dirty(server/)' : '';
    return head + dirty;
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const opt = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const systems = (opt('--systems')?.split(',') ?? [...ALL_SYSTEMS]) as string[];
  for (const s of systems) if (!(ALL_SYSTEMS as readonly string[]).includes(s) && !s.startsWith('quarry@')) throw new Error(`unknown system ${s} (known: ${ALL_SYSTEMS.join(', ')}, or quarry@key.path=value;key=value for a configuration variant)`);
  const half = (opt('--half') ?? 'both') as 'tune' | 'report' | 'both';
  const reindex = argv.includes('--reindex') || argv.includes('--no-index-reuse');
  const files = loadAll(opt('--repos')?.split(','));
  const frozen = existsSync(FROZEN_PATH) ? JSON.parse(readFileSync(FROZEN_PATH, 'utf8')) : null;
  const notes: string[] = [];
  if (!frozen) notes.push('no frozen.json: run `tsx bench/eval/fetch.ts` first to freeze the set');
  else if (frozen.queriesSha256 !== queriesSha256()) notes.push('the query files differ from frozen.json (queriesSha256): this run is NOT on the frozen set');
  if (systems.includes('ripgrep') && !ripgrepAvailable()) throw new Error('ripgrep (rg) is not installed: apt-get install -y ripgrep, or leave it out with --systems');

  const started = new Date();
  const perQuery: PerQuery[] = [];
  const repoInfo: Record<string, unknown> = {};
  for (const f of files) {
    const qs = f.queries.filter((q) => half === 'both' || halfOf(q.id) === half);
    if (!qs.length) continue;
    const dir = fetchRepo(f.repo);
    const sum = treeChecksum(dir);
    const fz = frozen?.repos?.[f.repo.name];
    if (fz && fz.sha256 !== sum.sha256) notes.push(`${f.repo.name}: tree checksum differs from frozen.json`);
    const config = defaultConfig();
    const t0 = performance.now();
    const indexer = await Engine.open(dir, { config });
    const summary = await indexer.index(reindex ? { full: true } : {});
    const indexMs = performance.now() - t0;
    log(`${f.repo.name}: indexed (${summary.totalFiles} files, ${summary.totalChunks} chunks, ${(indexMs / 1000).toFixed(1)} s${summary.embedding ? `, ${summary.embedding.embedded} embedded` : ''})`);
    repoInfo[f.repo.name] = { version: f.repo.version, files: sum.files, sha256: sum.sha256, chunks: summary.totalChunks, indexMs: Math.round(indexMs), embedding: summary.embedding ? { embedded: summary.embedding.embedded } : null };

    const engines: Engine[] = [indexer];
    const run: System[] = [];
    let store: ChunkStore | undefined;
    for (const s of systems) {
      if (s === 'quarry') run.push(quarrySystem(indexer, 'quarry'));
      else if (s.startsWith('quarry@')) {
        // a configuration variant of the default (tuning on the tune half): quarry@rerank.weight=0.5;ranking.x=1
        const variant = structuredClone(config) as unknown as Record<string, unknown>;
        for (const assign of s.slice('quarry@'.length).split(';')) {
          const [path, value] = assign.split('=');
          const keys = path.split('.');
          let o = variant;
          for (const k of keys.slice(0, -1)) o = o[k] as Record<string, unknown>;
          o[keys[keys.length - 1]] = JSON.parse(value);
        }
        const e = await Engine.open(dir, { config: variant as unknown as typeof config });
        engines.push(e);
        run.push(quarrySystem(e, s));
      }
      else if (s === 'quarry-no-rerank') {
        const e = await Engine.open(dir, { config, reranker: null });
        engines.push(e);
        run.push(quarrySystem(e, s));
      } else if (s === 'bm25') {
        const e = await Engine.open(dir, { config, embedding: null, reranker: null });
        engines.push(e);
        run.push(quarrySystem(e, s));
      } else if (s === 'dense') {
        const provider = await createEmbeddingProvider(config.embedding, { workspaceDir: dir });
        if (!provider) {
          notes.push(`${f.repo.name}: no embedding provider; dense skipped`);
          continue;
        }
        store = await openCurrentStore(dir);
        run.push(denseOnlySystem('dense', provider, await store.vectors(provider.id, provider.dims), store));
      } else if (s === 'ripgrep') run.push(ripgrepRanked(dir));
    }
    // what each result shows: a split class's declaration unit less its members (`overlaps`)
    const spansStore = store ?? (await openCurrentStore(dir));
    const spans = spansByPath(await spansStore.chunkSpansOf());
    if (spansStore !== store) await spansStore.close();
    for (const q of qs) {
      const pq: PerQuery = { id: q.id, repo: f.repo.name, category: q.category, half: halfOf(q.id), scores: {} };
      if (pq.half === 'tune') pq.top = {};
      for (const s of run) {
        const hits = await s.search(q.query, K);
        pq.scores[s.name] = scoreQuery(withHoles(hits, spans), q);
        if (pq.top) pq.top[s.name] = [...new Set(hits.map((h) => `${h.path}:${h.startLine}-${h.endLine}`))].slice(0, 10);
      }
      perQuery.push(pq);
    }
    for (const e of engines) await e.close();
    await store?.close();
    log(`${f.repo.name}: ${qs.length} queries × ${run.length} systems`);
  }

  // Aggregate: half × category (and "all") × system.
  const halves = half === 'both' ? (['tune', 'report'] as const) : ([half] as const);
  const table: Record<string, Record<string, Record<string, Cell>>> = {};
  const sysNames = [...new Set(perQuery.flatMap((p) => Object.keys(p.scores)))];
  for (const h of halves) {
    table[h] = {};
    for (const c of [...CATEGORIES, 'all'] as const) {
      const rows = perQuery.filter((p) => p.half === h && (c === 'all' || p.category === c));
      if (!rows.length) continue;
      table[h][c] = {};
      for (const s of sysNames) table[h][c][s] = cell(rows.map((p) => p.scores[s]!).filter(Boolean));
    }
  }
  // Per repository (all categories), to see where a figure comes from.
  const byRepo: Record<string, Record<string, Record<string, Cell>>> = {};
  for (const h of halves) {
    byRepo[h] = {};
    for (const repo of [...new Set(perQuery.map((p) => p.repo))]) {
      const rows = perQuery.filter((p) => p.half === h && p.repo === repo);
      if (!rows.length) continue;
      byRepo[h][repo] = {};
      for (const s of sysNames) byRepo[h][repo][s] = cell(rows.map((p) => p.scores[s]!).filter(Boolean));
    }
  }
  const command = `npm run eval${argv.length ? ' -- ' + argv.join(' ') : ''}`;
  const result = {
    startedAt: started.toISOString(),
    command,
    quarryCommit: gitHead(),
    frozen: frozen ? { queriesSha256: frozen.queriesSha256, queryCount: frozen.queryCount } : null,
    systems: sysNames,
    repos: repoInfo,
    notes,
    table,
    byRepo,
    perQuery,
  };
  const md = renderMarkdown(result);
  process.stdout.write(md);
  const resultsDir = join(EVAL_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  writeFileSync(join(resultsDir, `${stamp}.json`), JSON.stringify(result, null, 1) + '\n');
  writeFileSync(join(resultsDir, 'latest.json'), JSON.stringify(result, null, 1) + '\n');
  writeFileSync(join(EVAL_DIR, 'RESULTS.md'), md);
}

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');

function renderMarkdown(r: { startedAt: string; command: string; quarryCommit: string; frozen: { queriesSha256: string; queryCount: number } | null; systems: string[]; repos: Record<string, unknown>; notes: string[]; table: Record<string, Record<string, Record<string, Cell>>>; byRepo: Record<string, Record<string, Record<string, Cell>>> }): string {
  const out: string[] = [];
  out.push('# Frozen evaluation on real repositories: results', '');
  out.push(`Run ${r.startedAt} with \`${r.command}\` on Quarry ${r.quarryCommit}; query set ${r.frozen ? `${r.frozen.queriesSha256.slice(0, 16)}… (${r.frozen.queryCount} queries)` : 'not frozen'}.`);
  out.push('Method: bench/eval/README.md. NDCG@10 at file level (95% bootstrap interval), span NDCG@10, P@1 and MRR@10 at span level (relevant targets).', '');
  out.push('| repo | version | files | chunks |', '|---|---|---|---|');
  for (const [n, v] of Object.entries(r.repos) as Array<[string, { version: string; files: number; chunks?: number }]>) out.push(`| ${n} | ${v.version} | ${v.files} | ${v.chunks ?? ''} |`);
  out.push('');
  for (const n of r.notes) out.push(`> ${n}`, '');
  for (const [h, cats] of Object.entries(r.table)) {
    out.push(`## ${h} half`, '');
    out.push('| category | system | n | NDCG@10 [95% CI] | span NDCG@10 | P@1 | MRR@10 |', '|---|---|---|---|---|---|---|');
    for (const [c, syss] of Object.entries(cats)) {
      for (const s of r.systems) {
        const x = syss[s];
        if (!x) continue;
        out.push(`| ${c} | ${s} | ${x.n} | ${f2(x.ndcg10)} [${f2(x.ndcg10CI[0])}, ${f2(x.ndcg10CI[1])}] | ${f2(x.spanNdcg10)} | ${f2(x.p1)} | ${f2(x.mrr10)} |`);
      }
    }
    out.push('');
    const repos = r.byRepo[h] ?? {};
    if (Object.keys(repos).length > 1) {
      out.push(`Per repository (${h} half, all categories): NDCG@10 / MRR@10`, '');
      out.push(`| repo | n | ${r.systems.join(' | ')} |`, `|---|---|${r.systems.map(() => '---').join('|')}|`);
      for (const [repo, syss] of Object.entries(repos)) {
        const n = Object.values(syss)[0]?.n ?? 0;
        out.push(`| ${repo} | ${n} | ${r.systems.map((s) => (syss[s] ? `${f2(syss[s].ndcg10)} / ${f2(syss[s].mrr10)}` : '')).join(' | ')} |`);
      }
      out.push('');
    }
  }
  return out.join('\n');
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`eval: ${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
}
