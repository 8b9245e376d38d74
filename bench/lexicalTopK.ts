/**
 * Lexical top-k benchmark (issue 21): the BM25 index alone (`LexicalIndex.search`, MaxScore pruning) beside the
 * exhaustive reference (`searchExhaustive`, every posting of every term scored), in the same run, on real code.
 *
 *   npm run bench:lexical -- [--sizes 100000,1000000] [--rounds 3] [--k 100] [--mode both|pruned|exhaustive]
 *
 * Corpus: Debian's golang-1.19-src 1.19.8-2 (the pinned tree of `bench/scale.ts`, cached in bench/.cache/scale/),
 * discovered and chunked as `quarry index` does (default configuration) and tokenized by `lexicalDocForChunk`; the
 * documents are cached in bench/.cache/lexical/. A size above the tree's ~70k chunks replicates its documents
 * (copy r lives under `rN/`, so its path field differs). Each size's index is built once and cached: batches of
 * 25,000 documents, one commit each (the index's own merge policy applies), then 1% of the paths re-indexed (their
 * old documents deleted in place, as an edit does).
 *
 * Queries, tokenized as the engine tokenizes each form (`parseQuery` + `lexicalTerms`, default field weights):
 * 40 exported Go func/type names of the tree (identifier form) and 40 first sentences of its doc comments plus the
 * 12 descriptions of bench/scale.ts (natural form), accept = not a test path (the default of every search), top
 * k = 100 (what `retrieve` asks for at limit 10: max(3 × limit, stage1TopK)). Each query runs both ways in every
 * round, in alternating order; the pruned answer must equal the exhaustive one (ids, scores, explanations, count).
 * `--mode pruned` (or `exhaustive`) runs one side only, for `node --cpu-prof`.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { discover } from '../server/src/engine/discovery/walk';
import { chunkFile, initChunking } from '../server/src/engine/chunking/index';
import { CHUNKER_VERSION } from '../server/src/engine/chunking/version';
import { ChunkingConfigSchema, DiscoveryConfigSchema, QuarryConfigSchema } from '../server/src/engine/config/schema';
import { LEXICAL_ANALYZER, lexicalDocForChunk } from '../server/src/engine/indexer/lexicalDoc';
import { LexicalIndex, type LexicalHit } from '../server/src/engine/store/lexical/lexicalIndex';
import { FIELDS, type LexicalDoc } from '../server/src/engine/store/lexical/segment';
import { lexicalTerms, parseQuery } from '../server/src/engine/ranking/query';
import { isTestPath } from '../server/src/engine/testPaths';
import { partTokens } from '../server/src/engine/tokenize/codeTokenizer';
import { latency, prng, sample, type LatencyReport } from './metrics';
import { fetchGo119 } from './goTree';

/** The repository root (the nearest folder up with a package.json: this file may also run bundled elsewhere below it). */
const REPO = (() => {
  let d = __dirname;
  while (!existsSync(join(d, 'package.json')) && dirname(d) !== d) d = dirname(d);
  return d;
})();
const SCALE_CACHE = join(REPO, 'bench', '.cache', 'scale');
const CACHE = join(REPO, 'bench', '.cache', 'lexical');
const DESCRIPTIONS = [
  'parse an HTTP request header', 'compute a sha256 checksum of a file', 'read a gzip compressed stream',
  'format a time as RFC3339', 'split a string by whitespace', 'open a TCP connection with a timeout',
  'sort a slice with a custom comparison', 'decode JSON into a struct', 'walk a directory tree recursively',
  'escape HTML special characters', 'generate a random number', 'encode bytes as base64',
];
const BATCH = 25_000;

interface Args {
  sizes: number[];
  rounds: number;
  k: number;
  mode: 'both' | 'pruned' | 'exhaustive';
}

function parseArgs(argv: string[]): Args {
  const args: Args = { sizes: [100_000], rounds: 3, k: 100, mode: 'both' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--sizes') args.sizes = value().split(',').map((s) => Number(s.replace(/k$/i, '000').replace(/m$/i, '000000')));
    else if (a === '--rounds') args.rounds = Number(value());
    else if (a === '--k') args.k = Number(value());
    else if (a === '--mode') args.mode = value() as Args['mode'];
    else throw new Error(`unknown argument ${a}`);
  }
  if (args.sizes.some((n) => !(n > 0)) || !(args.rounds > 0) || !(args.k > 0) || !['both', 'pruned', 'exhaustive'].includes(args.mode)) {
    throw new Error('usage: bench/lexicalTopK.ts [--sizes 100000,1000000] [--rounds 3] [--k 100] [--mode both|pruned|exhaustive]');
  }
  return args;
}

interface Corpus {
  /** Chunks of the tree. */
  size: number;
  /** Its documents (read from the cache when an index must be built). */
  docs: () => Promise<LexicalDoc[]>;
  identifiers: string[];
  sentences: string[];
}

const corpusKey = `go119-c${CHUNKER_VERSION}-${createHash('sha256').update(LEXICAL_ANALYZER).digest('hex').slice(0, 8)}`;

/** The tree's documents (cached as JSON lines), its exported names and doc-comment first sentences. */
async function corpus(): Promise<Corpus> {
  const docsPath = join(CACHE, `${corpusKey}.docs.jsonl`);
  const metaPath = join(CACHE, `${corpusKey}.meta.json`);
  if (!existsSync(docsPath) || !existsSync(metaPath)) {
    const root = await fetchGo119(SCALE_CACHE);
    mkdirSync(CACHE, { recursive: true });
    console.error('chunking the Go tree (once)…');
    await initChunking();
    const { files } = await discover(root, DiscoveryConfigSchema.parse({}));
    const chunking = ChunkingConfigSchema.parse({});
    const out = createWriteStream(`${docsPath}.tmp`);
    const names = new Set<string>();
    const sentences = new Set<string>();
    let n = 0;
    for (const f of files) {
      const text = readFileSync(f.absPath, 'utf8');
      if (f.path.endsWith('.go') && !f.path.includes('testdata/')) {
        for (const m of text.matchAll(/^(?:func(?: \([^)]*\))?|type) ([A-Z][A-Za-z0-9]{5,})/gm)) names.add(m[1]);
      }
      for (const chunk of await chunkFile({ path: f.path, language: f.language, content: text }, chunking)) {
        const d = lexicalDocForChunk(chunk);
        if (!out.write(JSON.stringify([d.id, d.path, ...FIELDS.map((k) => d.fields[k])]) + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
        n++;
        // "Reader implements buffering for an io.Reader object." → "implements buffering for an io.Reader object"
        const first = /^\s*(?:\/\/\s*)?([A-Z]\w*)\s+((?:[a-z]\w*[ ,])[^.\n]{15,80})\./.exec(chunk.doc ?? '');
        if (first && !isTestPath(f.path)) sentences.add(first[2].trim());
      }
    }
    await new Promise<void>((r, j) => out.end((e?: Error) => (e ? j(e) : r())));
    execFileSync('mv', [`${docsPath}.tmp`, docsPath]);
    writeFileSync(metaPath, JSON.stringify({ docs: n, identifiers: [...names].sort(), sentences: [...sentences].sort() }));
  }
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { docs: number; identifiers: string[]; sentences: string[] };
  let docs: LexicalDoc[] | undefined;
  const load = async () => {
    if (docs) return docs;
    docs = [];
    for await (const line of createInterface({ input: createReadStream(docsPath) })) {
      const [id, path, ...f] = JSON.parse(line) as [string, string, ...string[][]];
      docs.push({ id, path, fields: Object.fromEntries(FIELDS.map((k, i) => [k, f[i]])) as LexicalDoc['fields'] });
    }
    return docs;
  };
  return { size: meta.docs, docs: load, identifiers: sample(meta.identifiers, 40, 21), sentences: sample(meta.sentences, 40, 22) };
}

/** Document `i` of a corpus replicated to any size: copy r > 0 lives under `r<r>/`. */
function replica(docs: LexicalDoc[], i: number): LexicalDoc {
  const r = Math.floor(i / docs.length);
  const d = docs[i % docs.length];
  if (!r) return d;
  const path = `r${r}/${d.path}`;
  return { id: `r${r}/${d.id}`, path, fields: { ...d.fields, path: partTokens(path) } };
}

async function openIndex(corpus: Corpus, size: number): Promise<LexicalIndex> {
  const dir = join(CACHE, `${corpusKey}-n${size}`);
  const stamp = join(dir, 'bench-complete');
  if (existsSync(stamp)) {
    try {
      return LexicalIndex.open(dir, LEXICAL_ANALYZER);
    } catch (e) {
      console.error(`cached index unusable (${(e as Error).message}); rebuilding`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  console.error(`building a lexical index of ${size} documents (once)…`);
  const docs = await corpus.docs();
  const ix = LexicalIndex.open(dir, LEXICAL_ANALYZER);
  for (let at = 0; at < size; at += BATCH) {
    const batch: LexicalDoc[] = [];
    for (let i = at; i < Math.min(size, at + BATCH); i++) batch.push(replica(docs, i));
    ix.add(batch);
    await ix.commit();
  }
  // An edit pass: 1% of the paths re-indexed (old documents deleted in place, new ones in a new segment).
  const byPath = new Map<string, LexicalDoc[]>();
  for (let i = 0; i < size; i++) {
    const d = replica(docs, i);
    let list = byPath.get(d.path);
    if (!list) byPath.set(d.path, (list = []));
    list.push(d);
  }
  const edited = sample([...byPath.keys()].sort(), Math.ceil(byPath.size / 100), 5);
  ix.removePaths(edited);
  ix.add(edited.flatMap((p) => byPath.get(p)!));
  await ix.commit();
  writeFileSync(stamp, '');
  return ix;
}

type Answer = { hits: LexicalHit[]; matched: number };

/** Where two answers' hits differ (ids, paths, scores, explanations), or undefined. */
function sameHits(a: Answer, b: Answer): string | undefined {
  if (a.hits.length !== b.hits.length) return `${a.hits.length} vs ${b.hits.length} hits`;
  for (let i = 0; i < a.hits.length; i++) {
    const x = a.hits[i];
    const y = b.hits[i];
    if (x.id !== y.id || x.score !== y.score || x.path !== y.path) return `#${i + 1}: ${x.id} ${x.score} vs ${y.id} ${y.score}`;
    if (JSON.stringify(x.matches) !== JSON.stringify(y.matches)) return `#${i + 1} ${x.id}: explanations differ`;
  }
  return undefined;
}

const fmt = (x: number) => x.toFixed(1);

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const source = await corpus();
  const { identifiers, sentences } = source;
  const cfg = QuarryConfigSchema.parse({}).bm25;
  const accept = (path: string) => !isTestPath(path);
  const sets = [
    { name: 'identifiers', texts: identifiers },
    { name: 'descriptions', texts: [...sentences, ...DESCRIPTIONS] },
  ].map((s) => ({ ...s, terms: s.texts.map((t) => lexicalTerms(parseQuery(t), cfg.fieldWeights, cfg.functionWordWeight)) }));
  const rows: string[] = [];
  const counts: string[] = [];
  rows.push(`Run: ${new Date().toISOString()} · \`npm run bench:lexical -- --sizes ${args.sizes.join(',')} --rounds ${args.rounds} --k ${args.k}\` · ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load ${loadavg()[0].toFixed(1)} at start; corpus ${source.size} chunks of Go 1.19.`);
  rows.push('');
  rows.push('| chunks | segments | queries | exhaustive p50 | exhaustive p95 | pruned p50 | pruned p95 | p50 ratio | p95 ratio | equal |');
  rows.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const size of args.sizes) {
    const t1 = performance.now();
    const ix = await openIndex(source, size);
    console.error(`${size}: ${ix.documentCount} live documents in ${ix.segmentCount} segment(s), opened in ${((performance.now() - t1) / 1000).toFixed(1)} s (${((t1 - t0) / 1000).toFixed(1)} s before); rounds…`);
    const times = { pruned: new Map<string, number[]>(), exhaustive: new Map<string, number[]>() };
    let unequal = 0;
    let checked = 0;
    let countsExact = 0;
    const countErrors: number[] = [];
    const run = (mode: 'pruned' | 'exhaustive', terms: (typeof sets)[number]['terms'][number]) => {
      const t = performance.now();
      const res = mode === 'pruned' ? ix.search(terms, args.k, cfg, accept) : ix.searchExhaustive(terms, args.k, cfg, accept);
      return { ms: performance.now() - t, res };
    };
    // Warm: every query once each way (term lookups, bounds and caches filled, JIT warm). The pruned side's times
    // here are those of a first sight of each query's terms (score bounds and samples computed on the way).
    const first: number[] = [];
    for (const s of sets) {
      for (const terms of s.terms) {
        for (const m of ['pruned', 'exhaustive'] as const) {
          if (args.mode !== 'both' && args.mode !== m) continue;
          const { ms } = run(m, terms);
          if (m === 'pruned') first.push(ms);
        }
      }
    }
    for (let round = 0; round < args.rounds; round++) {
      for (const s of sets) {
        s.terms.forEach((terms, qi) => {
          const order: Array<'pruned' | 'exhaustive'> = (round + qi) % 2 ? ['pruned', 'exhaustive'] : ['exhaustive', 'pruned'];
          const got: Partial<Record<'pruned' | 'exhaustive', Answer>> = {};
          for (const m of order) {
            if (args.mode !== 'both' && args.mode !== m) continue;
            const { ms, res } = run(m, terms);
            got[m] = res;
            const list = times[m].get(s.name) ?? [];
            list.push(ms);
            times[m].set(s.name, list);
          }
          if (got.pruned && got.exhaustive) {
            checked++;
            const diff = sameHits(got.pruned, got.exhaustive);
            if (diff) {
              unequal++;
              if (unequal <= 5) console.error(`UNEQUAL (${s.name} "${s.texts[qi]}"): ${diff}`);
            }
            if (round === 0) {
              const exact = got.exhaustive.matched;
              if (got.pruned.matched === exact) countsExact++;
              countErrors.push(exact ? Math.abs(got.pruned.matched - exact) / exact : got.pruned.matched ? 1 : 0);
            }
          }
        });
      }
    }
    for (const s of [...sets.map((x) => x.name), 'all']) {
      const of = (m: 'pruned' | 'exhaustive'): LatencyReport | undefined => {
        const ms = s === 'all' ? [...times[m].values()].flat() : times[m].get(s);
        return ms?.length ? latency(ms) : undefined;
      };
      const e = of('exhaustive');
      const p = of('pruned');
      const cell = (r: LatencyReport | undefined, k: 'p50' | 'p95') => (r ? fmt(r[k]) : '–');
      const ratio = (k: 'p50' | 'p95') => (e && p ? `${(e[k] / p[k]).toFixed(1)}×` : '–');
      const n = s === 'all' ? sets.reduce((a, x) => a + x.texts.length, 0) : sets.find((x) => x.name === s)!.texts.length;
      rows.push(
        `| ${size.toLocaleString('en-US')} | ${ix.segmentCount} | ${s} (${n}) | ${cell(e, 'p50')} | ${cell(e, 'p95')} | ${cell(p, 'p50')} | ${cell(p, 'p95')} | ${ratio('p50')} | ${ratio('p95')} | ${s === 'all' ? (checked ? `${checked - unequal}/${checked}` : '–') : ''} |`,
      );
    }
    if (first.length) {
      const f = latency(first);
      counts.push(`${size.toLocaleString('en-US')} chunks: first sight of each query after opening the index (pruned; its terms' score bounds and samples computed on the way, the JIT cold): p50 ${fmt(f.p50)} ms, p95 ${fmt(f.p95)} ms.`);
    }
    if (countErrors.length) {
      const e = latency(countErrors);
      counts.push(`${size.toLocaleString('en-US')} chunks: match count exact for ${countsExact}/${countErrors.length} queries; relative error of the estimate p50 ${(e.p50 * 100).toFixed(1)}%, p95 ${(e.p95 * 100).toFixed(1)}%, max ${(Math.max(...countErrors) * 100).toFixed(1)}%.`);
    }
    if (unequal) process.exitCode = 1;
  }
  rows.push('');
  rows.push(`Times in ms per query (\`LexicalIndex.search\` in process, warm, top ${args.k}, accept = not a test path), ${args.rounds} rounds; "equal": pruned hits identical to the exhaustive ones (ids, paths, scores, explanations) over all rounds.`);
  for (const c of counts) rows.push(`- ${c}`);
  console.log(rows.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
