/**
 * Collects training (or evaluation) lists for Quarry's learned reranker: runs queries through the real engine with
 * its default configuration (hybrid BM25 + quarry-code, every ranking stage) and records, for the candidates the
 * rerank step would see, the reranker's features and whether each candidate is the answer.
 *
 *   npx tsx training/rerank/collect.ts --out F.jsonl --from-pairs training/.cache/pairs.jsonl   training lists
 *   npx tsx training/rerank/collect.ts --out F.jsonl --packages a,b,c   the same for named packages
 *   npx tsx training/rerank/collect.ts --out F.jsonl --bench quarry,rxjs  the benchmark's query sets (evaluation only)
 *
 * Lists are appended to F.jsonl (delete it to start over); F.jsonl.features.json names the feature columns.
 *
 * Training packages come from training/.cache/src (fetched by training/fetch-sources.mjs); only packages that
 * quarry-code held out for validation are used, so the code model's similarities are as honest on them as on code
 * it never saw. Every comment and docstring is blanked from the indexed copy, as in the benchmark.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { Engine } from '../../server/src/engine/engine';
import type { Candidate } from '../../server/src/engine/ranking/candidate';
import type { ParsedQuery } from '../../server/src/engine/ranking/query';
import type { ProviderHealth, Reranker } from '../../server/src/engine/embedding/types';
import { FEATURE_NAMES, rerankFeatures } from '../../server/src/engine/embedding/rerankers/learned/features';
import { StaticEmbeddingProvider } from '../../server/src/engine/embedding/providers/static';
import { DOCSTRING_KINDS, prepareSets, TYPE_DOC_KINDS, type BenchQuery } from '../../bench/sets';
import { loadQuestions } from '../../bench/questions';

const REPO = resolve(__dirname, '../..');

/** A reranker that changes nothing and remembers the features of the last list it saw. */
class Recorder implements Reranker {
  readonly id = 'recorder';
  readonly kind = 'local' as const;
  last: { features: Float32Array[]; candidates: Candidate[] } | undefined;
  constructor(private readonly embed: (t: string) => Float32Array) {}
  async rerank(): Promise<never> {
    throw new Error('not a text reranker');
  }
  scoreCandidates(query: ParsedQuery, candidates: readonly Candidate[]): number[] {
    this.last = { features: rerankFeatures(query, candidates, this.embed), candidates: [...candidates] };
    return candidates.map((c) => c.score);
  }
  health(): ProviderHealth {
    return { status: 'up', circuit: 'closed', lastLatencyMs: null, requests: 0, errors: 0 } as ProviderHealth;
  }
  async close(): Promise<void> {}
}

async function collect(name: string, dir: string, queries: BenchQuery[], out: string, model: StaticEmbeddingProvider): Promise<void> {
  const recorder = new Recorder((t) => model.embed(t));
  const engine = await Engine.open(dir, { reranker: recorder });
  const t0 = Date.now();
  await engine.index();
  let kept = 0;
  let found = 0;
  for (const q of queries) {
    recorder.last = undefined;
    try {
      await engine.search(q.text, { limit: 10, includeTests: true, explain: false });
    } catch {
      continue; // a docstring that is no valid query (only punctuation, say)
    }
    const seen = recorder.last as { features: Float32Array[]; candidates: Candidate[] } | undefined;
    if (!seen) continue;
    const targets = q.targets ?? [q.target];
    const labels = seen.candidates.map((c) =>
      targets.some((t) => c.chunk && t.path === c.chunk.path && c.chunk.startLine <= t.anchorLine && t.anchorLine <= c.chunk.endLine) ? 1 : 0,
    );
    kept++;
    if (labels.includes(1)) found++;
    const row = { corpus: name, set: q.set, language: q.language, query: q.text, labels, features: seen.features.map((f) => Array.from(f, (v) => Math.round(v * 1e5) / 1e5)) };
    appendFileSync(out, JSON.stringify(row) + '\n');
  }
  await engine.close();
  console.log(`${name}: ${kept} lists (${found} with the answer among the candidates) in ${Math.round((Date.now() - t0) / 1000)} s`);
}

/** `npm pack` of a pinned package, its `subdir` kept; prints the tarball's integrity. */
function fetchNpm(spec: string, subdir: string, target: string): void {
  const tmp = `${target}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const out = JSON.parse(execFileSync('npm', ['pack', spec, '--json', '--silent'], { cwd: tmp, encoding: 'utf8' })) as Array<{ filename: string; integrity: string }>;
  execFileSync('tar', ['-xzf', out[0]!.filename], { cwd: tmp });
  rmSync(target, { recursive: true, force: true });
  cpSync(join(tmp, 'package', subdir), target, { recursive: true });
  rmSync(tmp, { recursive: true, force: true });
  writeFileSync(`${target}.ok`, `${spec} ${out[0]!.integrity}\n`);
  console.log(`fetched ${spec} (${subdir}/), ${out[0]!.integrity}`);
}

/** Packages of quarry-code's validation split with at least 20 pairs, most pairs first. */
function heldOutPackages(pairsFile: string): string[] {
  const counts = new Map<string, number>();
  for (const line of readFileSync(pairsFile, 'utf8').split('\n')) {
    if (!line) continue;
    const p = JSON.parse(line) as { pkg: string; split: string };
    if (p.split !== 'train') counts.set(p.pkg, (counts.get(p.pkg) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n >= 20).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([p]) => p);
}

async function main(): Promise<void> {
  const opts = new Command()
    .requiredOption('--out <file>')
    .option('--from-pairs <file>', "the packages quarry-code held out for validation (pairs.jsonl's split), each with at least 20 pairs")
    .option('--packages <list>', 'training packages (training/.cache/src/<name>)')
    .option('--npm <file>', 'pinned npm packages (training/rerank/npm-packages.json), fetched into <work>/npm-src')
    .option('--bench <list>', 'benchmark corpora (bench/.cache/corpora/<name>)')
    .option('--per <n>', 'docstring queries per corpus', '300')
    .option('--types', 'training lists whose answers are documented types (classes, interfaces, traits...), not functions')
    .option('--work <dir>', 'where stripped copies and their indexes live', '/tmp/quarry-rerank')
    .parse()
    .opts();
  const model = StaticEmbeddingProvider.load(join(REPO, 'models/quarry-code'));
  if (!existsSync(opts.out)) writeFileSync(opts.out, '');
  // The feature names, in row order, for train.py (which writes them into the model).
  writeFileSync(`${opts.out}.features.json`, JSON.stringify({ features: FEATURE_NAMES }) + '\n');
  const per = Number(opts.per);
  const kinds = opts.types ? TYPE_DOC_KINDS : DOCSTRING_KINDS;
  const packages = (opts.packages ?? '').split(',').filter(Boolean);
  if (opts.fromPairs) packages.push(...heldOutPackages(opts.fromPairs));
  for (const pkg of packages) {
    const src = join(REPO, 'training/.cache/src', pkg);
    const stripped = join(opts.work, pkg);
    mkdirSync(stripped, { recursive: true });
    const prepared = await prepareSets(src, stripped, per, true, kinds);
    await collect(pkg, stripped, prepared.queries.filter((q) => q.set === 'docstring'), opts.out, model);
  }
  if (opts.npm) {
    const list = (JSON.parse(readFileSync(opts.npm, 'utf8')) as { packages: Array<{ spec: string; subdir: string }> }).packages;
    for (const { spec, subdir } of list) {
      const name = `npm-${spec.replace(/^@/, '').replace(/[/@]/g, '_')}`;
      const src = join(opts.work, 'npm-src', name);
      if (!existsSync(`${src}.ok`)) fetchNpm(spec, subdir, src);
      const stripped = join(opts.work, name);
      mkdirSync(stripped, { recursive: true });
      const prepared = await prepareSets(src, stripped, per, true, kinds);
      await collect(name, stripped, prepared.queries.filter((q) => q.set === 'docstring'), opts.out, model);
    }
  }
  for (const corpus of (opts.bench ?? '').split(',').filter(Boolean)) {
    const base = join(REPO, 'bench/.cache/corpora', corpus);
    if (!existsSync(join(base, 'src'))) {
      console.log(`${corpus}: not fetched yet (run \`npm run bench\` once); skipped`);
      continue;
    }
    const prepared = await prepareSets(join(base, 'src'), join(base, 'stripped'), per);
    const questions = loadQuestions(corpus, join(base, 'src'));
    await collect(corpus, join(base, 'stripped'), [...prepared.queries.filter((q) => q.set === 'docstring'), ...questions], opts.out, model);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
