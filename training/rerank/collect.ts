/**
 * Collects training (or evaluation) lists for Quarry's learned reranker: runs queries through the real engine with
 * its default configuration (hybrid BM25 + quarry-code, every ranking stage) and records, for the candidates the
 * rerank step would see, the reranker's features and whether each candidate is the answer.
 *
 *   npx tsx training/rerank/collect.ts --out F.jsonl --from-pairs training/.cache/pairs.jsonl   training lists
 *   npx tsx training/rerank/collect.ts --out F.jsonl --packages a,b,c   the same for named packages
 *   npx tsx training/rerank/collect.ts --out F.jsonl --bench quarry,rxjs  the benchmark's query sets (evaluation only)
 *   ... --debian training/rerank/debian-packages.json   pinned Debian packages (Python, Go, Rust, Ruby, PHP sources)
 *   ... --styles docstring,types,implements,kind        which query styles (default: docstring)
 *
 * Query styles (every label comes from the code, never picked by hand):
 *   docstring   a documented function's first doc sentence → that function
 *   types       a documented type's first doc sentence → that type
 *   kind        the same sentences with the declaration kind named: "interface that …", "function that …"
 *   implements  "what implements X", "classes that implement X", "X implementations", … for every X that a type of
 *               the package conforms to (the chunker's conformances) → every implementer
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
import { anchorLine, DOCSTRING_KINDS, firstSentence, prepareSets, TYPE_DOC_KINDS, type BenchQuery } from '../../bench/sets';
import { loadQuestions } from '../../bench/questions';
import { sample } from '../../bench/metrics';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { relative } from 'node:path';
import { chunkFile } from '../../server/src/engine/chunking';
import { defaultConfig } from '../../server/src/engine/config/schema';
import { languageForPath } from '../../server/src/engine/languages';
import type { Chunk } from '../../server/src/engine/types';

/** A query with its answers; `set` names its style (docstring, types, kind, implements, question). */
type TrainQuery = Omit<BenchQuery, 'set'> & { set: string };

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

async function collect(name: string, dir: string, queries: TrainQuery[], out: string, model: StaticEmbeddingProvider): Promise<void> {
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

const KIND_WORD: Record<string, string> = {
  class: 'class', struct: 'struct', enum: 'enum', interface: 'interface', protocol: 'protocol', trait: 'trait', type_alias: 'type',
  function: 'function', method: 'method',
};
const TYPE_KINDS = new Set([...TYPE_DOC_KINDS, 'extension', 'impl']);
const IMPLEMENTS_FORMS = [
  (x: string) => `what implements ${x}`,
  (x: string) => `classes that implement ${x}`,
  (x: string) => `${x} implementations`,
  (x: string) => `implementations of ${x}`,
  (x: string) => `which types extend ${x}`,
  (x: string) => `subclasses of ${x}`,
  (x: string) => `types that conform to ${x}`,
  (x: string) => `implements ${x}`,
];
/** Names too generic to ask about (every class is an object). */
const GENERIC_BASES = new Set(['object', 'any', 'self', 'generic', 'protocol', 'abc', 'base']);

const hashOf = (s: string) => createHash('sha1').update(s).digest().readUInt32BE(0);
const lcFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s);
function bare(name: string): string {
  const parts = name.replace(/[<\[(].*$/, '').split(/\.|::|\\/);
  return (parts[parts.length - 1] ?? '').trim();
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.quarry' || e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(relative(dir, p).split('\\').join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** A documented unit's query sentence, or undefined when its doc makes no usable query. */
function docQuery(c: Chunk): string | undefined {
  if (!c.doc) return undefined;
  const raw = firstSentence(c.doc);
  const q = (raw.match(/"/g)?.length ?? 0) % 2 ? raw.replace(/"/g, ' ').replace(/\s+/g, ' ').trim() : raw;
  const n = q.split(/\s+/).length;
  return n >= 3 && n <= 30 && q.length <= 200 && !/^(todo|deprecated|see |copyright)/i.test(q) ? q : undefined;
}

/**
 * The types, kind and implements styles of one package, from its original sources (chunked as the engine does);
 * answers are located on the stripped copy (same lines). `per` caps each style.
 */
async function styledQueries(src: string, stripped: string, styles: Set<string>, per: number): Promise<TrainQuery[]> {
  const cfg = defaultConfig().chunking;
  const chunks: Chunk[] = [];
  for (const f of sourceFiles(src)) {
    const lang = languageForPath(f);
    if (!lang?.grammar) continue;
    let text: string;
    try {
      text = readFileSync(join(src, f), 'utf8');
    } catch {
      continue;
    }
    if (text.length > 1_000_000) continue;
    try {
      chunks.push(...(await chunkFile({ path: f, language: lang.id, content: text }, cfg)));
    } catch {
      continue;
    }
  }
  const texts = new Map<string, string>();
  const target = (c: Chunk) => {
    let t = texts.get(c.path);
    if (t === undefined) texts.set(c.path, (t = existsSync(join(stripped, c.path)) ? readFileSync(join(stripped, c.path), 'utf8') : ''));
    return { path: c.path, anchorLine: anchorLine(t, c.startLine, c.endLine, c.name || c.symbol || 'x'), symbol: c.symbol };
  };
  const out: TrainQuery[] = [];
  const push = (set: string, text: string, c: Chunk, targets: Chunk[]) => {
    const ts = targets.map(target);
    out.push({ set, text, language: c.language, split: 'train', target: ts[0]!, targets: ts });
  };
  if (styles.has('types')) {
    const typed = chunks.filter((c) => TYPE_DOC_KINDS.has(c.kind) && c.name && docQuery(c));
    for (const c of sample(typed, per, 31)) push('types', docQuery(c)!, c, [c]);
  }
  if (styles.has('kind')) {
    const named = chunks.filter((c) => KIND_WORD[c.kind] && c.name && docQuery(c));
    // types first (they are what kind words usually ask for), then functions and methods
    const types = sample(named.filter((c) => TYPE_DOC_KINDS.has(c.kind)), Math.ceil(per / 2), 37);
    const fns = sample(named.filter((c) => !TYPE_DOC_KINDS.has(c.kind)), per - types.length, 41);
    for (const c of [...types, ...fns]) {
      const kw = KIND_WORD[c.kind]!;
      const q = lcFirst(docQuery(c)!);
      const h = hashOf(c.id);
      const text = h % 3 === 0 ? `${kw} that ${q}` : h % 3 === 1 ? `which ${kw} ${q}` : `the ${kw} for ${q}`;
      push('kind', text, c, [c]);
    }
  }
  if (styles.has('implements')) {
    const implementers = new Map<string, Chunk[]>();
    for (const c of chunks) {
      if (!TYPE_KINDS.has(c.kind)) continue;
      for (const x of new Set(c.conformances.map(bare))) {
        if (x.length < 3 || GENERIC_BASES.has(x.toLowerCase()) || !/^[A-Za-z_]/.test(x)) continue;
        const list = implementers.get(x) ?? implementers.set(x, []).get(x)!;
        list.push(c);
      }
    }
    const names = [...implementers].filter(([, cs]) => cs.length <= 25).map(([x]) => x).sort();
    for (const x of sample(names, per, 43)) {
      const cs = implementers.get(x)!;
      const form = IMPLEMENTS_FORMS[hashOf(x) % IMPLEMENTS_FORMS.length]!;
      push('implements', form(x), cs[0]!, cs);
    }
  }
  return out;
}

/** The queries of every style asked for, over a package's original sources and its stripped copy (written here). */
async function packageQueries(src: string, stripped: string, styles: Set<string>, per: number): Promise<TrainQuery[]> {
  mkdirSync(stripped, { recursive: true });
  const prepared = await prepareSets(src, stripped, per, true, DOCSTRING_KINDS);
  const out: TrainQuery[] = styles.has('docstring') ? prepared.queries.filter((q) => q.set === 'docstring') : [];
  return [...out, ...(await styledQueries(src, stripped, styles, per))];
}

/**
 * `apt-get download` of a pinned Debian package (version and, once known, the .deb's sha256 checked), unpacked with
 * only source files kept; the licence stanzas of its machine-readable copyright file must all be permissive.
 */
function fetchDebian(e: { package: string; version: string; sha256?: string }, target: string, permissive: Set<string>): boolean {
  const tmp = `${target}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  execFileSync('apt-get', ['download', `${e.package}=${e.version}`], { cwd: tmp, stdio: 'ignore' });
  const deb = readdirSync(tmp).find((f) => f.endsWith('.deb'))!;
  const digest = createHash('sha256').update(readFileSync(join(tmp, deb))).digest('hex');
  if (e.sha256 && e.sha256 !== digest) throw new Error(`${deb}: sha256 ${digest} differs from the pinned ${e.sha256}`);
  execFileSync('dpkg-deb', ['-x', join(tmp, deb), join(tmp, 'x')]);
  const copyright = join(tmp, 'x/usr/share/doc', e.package, 'copyright');
  const licences = existsSync(copyright) ? debianLicences(readFileSync(copyright, 'utf8')) : [];
  const isPermissive = (l: string) => permissive.has(l.trim().toLowerCase().replace(/\+$/, ''));
  // "A or B": either will do; "A and B": both must be permissive
  const ok = licences.length > 0 && licences.every((l) => l.split(/\s+or\s+|\s*\|\s*/i).some((alt) => alt.split(/\s+and\s+/i).every(isPermissive)));
  rmSync(target, { recursive: true, force: true });
  if (ok) {
    keepSources(join(tmp, 'x'));
    cpSync(join(tmp, 'x'), target, { recursive: true });
    writeFileSync(`${target}.ok`, `${e.package}=${e.version} sha256:${digest} ${[...new Set(licences)].join('; ')}\n`);
  }
  rmSync(tmp, { recursive: true, force: true });
  console.log(`${ok ? 'fetched' : 'left out (licence)'} ${e.package}=${e.version} sha256:${digest} [${[...new Set(licences)].join('; ')}]`);
  return ok;
}

/** Licences of a DEP-5 copyright file's stanzas that cover upstream code (not only debian/). */
function debianLicences(text: string): string[] {
  const out: string[] = [];
  for (const stanza of text.split(/\n\s*\n/)) {
    const files = stanza.match(/^Files:\s*(.+(?:\n[ \t].+)*)/m)?.[1];
    const licence = stanza.match(/^License:\s*(.+)$/m)?.[1];
    if (!files || !licence) continue;
    if (files.split(/\s+/).filter(Boolean).every((f) => f.startsWith('debian/'))) continue;
    out.push(licence.trim());
  }
  return out;
}

const SOURCE_EXT = /\.(py|go|rs|rb|php|js|mjs|cjs|ts|tsx|jsx)$/;
function keepSources(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isSymbolicLink()) rmSync(p, { force: true });
    else if (e.isDirectory()) keepSources(p);
    else if (!SOURCE_EXT.test(e.name) || e.name.endsWith('.d.ts') || e.name.endsWith('.min.js')) rmSync(p, { force: true });
  }
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
    .option('--types', 'training lists whose answers are documented types (classes, interfaces, traits...), not functions (= --styles types)')
    .option('--styles <list>', 'query styles: docstring, types, kind, implements', 'docstring')
    .option('--debian <file>', 'pinned Debian packages (training/rerank/debian-packages.json), fetched into <work>/deb-src')
    .option('--work <dir>', 'where stripped copies and their indexes live', '/tmp/quarry-rerank')
    .parse()
    .opts();
  const model = StaticEmbeddingProvider.load(join(REPO, 'models/quarry-code'));
  if (!existsSync(opts.out)) writeFileSync(opts.out, '');
  // The feature names, in row order, for train.py (which writes them into the model).
  writeFileSync(`${opts.out}.features.json`, JSON.stringify({ features: FEATURE_NAMES }) + '\n');
  const per = Number(opts.per);
  const styles = new Set<string>(opts.types ? ['types'] : String(opts.styles).split(',').filter(Boolean));
  const packages = (opts.packages ?? '').split(',').filter(Boolean);
  if (opts.fromPairs) packages.push(...heldOutPackages(opts.fromPairs));
  for (const pkg of packages) {
    const src = join(REPO, 'training/.cache/src', pkg);
    const stripped = join(opts.work, pkg);
    await collect(pkg, stripped, await packageQueries(src, stripped, styles, per), opts.out, model);
  }
  if (opts.debian) {
    const permissive = new Set((JSON.parse(readFileSync(join(REPO, 'training/sources.json'), 'utf8')) as { permissiveLicences: string[] }).permissiveLicences);
    const list = (JSON.parse(readFileSync(opts.debian, 'utf8')) as { packages: Array<{ package: string; version: string; sha256?: string }> }).packages;
    for (const e of list) {
      const name = `deb-${e.package}`;
      const src = join(opts.work, 'deb-src', name);
      try {
        if (!existsSync(`${src}.ok`) && !fetchDebian(e, src, permissive)) continue;
      } catch (err) {
        console.log(`${e.package}: not fetched (${(err as Error).message.split('\n')[0]})`);
        continue;
      }
      const stripped = join(opts.work, name);
      await collect(name, stripped, await packageQueries(src, stripped, styles, per), opts.out, model);
    }
  }
  if (opts.npm) {
    const list = (JSON.parse(readFileSync(opts.npm, 'utf8')) as { packages: Array<{ spec: string; subdir: string }> }).packages;
    for (const { spec, subdir } of list) {
      const name = `npm-${spec.replace(/^@/, '').replace(/[/@]/g, '_')}`;
      const src = join(opts.work, 'npm-src', name);
      if (!existsSync(`${src}.ok`)) fetchNpm(spec, subdir, src);
      const stripped = join(opts.work, name);
      await collect(name, stripped, await packageQueries(src, stripped, styles, per), opts.out, model);
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
