/**
 * Quarry's own code embedding model (`quarry-code`): a static embedding table trained by `npm run train-model`
 * (training/), shipped in the repository and the extension under models/quarry-code/, and run here in plain
 * TypeScript over typed arrays — no native runtime, thousands of chunks per second on one core.
 *
 * A text's vector is the sum of its feature rows (features.ts), each row int8 × its float32 scale, weighted by
 * 1 + ln(count), L2-normalised. Id: `static:quarry-code@<first 12 hex of the table's sha256>`.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddingProvider, ProviderHealth, ProviderUnavailableError } from '../types';
import { LocalCallStats } from '../localStats';
import { featuresOf, FeatureSpec } from '../static/features';
import { ModelTable } from '../static/table';
import { KeyIndex } from '../../keyIndex';

export const STATIC_MODEL_FORMAT = 'quarry-static-embedding/1';
export const STATIC_MODEL_NAME = 'quarry-code';
/** Used when model.json carries no measured weights. */
const DEFAULT_FUSION = { identifier: 0.25, natural: 1 };

interface ModelFile {
  path: string;
  sha256: string;
}

export interface StaticModelMeta {
  format: string;
  name: string;
  version: number;
  dims: number;
  rows: number;
  buckets: number;
  maxWords: number;
  files: { table: ModelFile; scales: ModelFile };
  vocab: string[];
  /** Measured fusion weights for the dense channel, by query form (written by the benchmark, optional). */
  fusion?: { identifier?: number; natural?: number };
  training?: Record<string, unknown>;
}

/** True when `dir` holds a static model (model.json of the right format). */
export function looksLikeStaticModel(dir: string): boolean {
  try {
    const meta = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as { format?: string };
    return meta.format === STATIC_MODEL_FORMAT;
  } catch {
    return false;
  }
}

interface Arrays {
  /** Resident while indexing, read by rows otherwise (static/table.ts). */
  table: ModelTable;
  scales: Float32Array;
  spec: FeatureSpec;
}

const loaded = new Map<string, Arrays>();

function failure(dir: string, why: string): ProviderUnavailableError {
  return new ProviderUnavailableError(
    'static',
    `static: cannot load the model at ${dir} (${why}). Fix: restore models/${STATIC_MODEL_NAME}/ from the repository or extension (git checkout -- models/${STATIC_MODEL_NAME}), rebuild it with npm run train-model, or set embedding.provider to none.`,
    false,
  );
}

/** model.json, checked for format and shape (cheap: no table read). */
function parseMeta(dir: string): StaticModelMeta {
  let meta: StaticModelMeta;
  try {
    meta = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as StaticModelMeta;
  } catch (e) {
    throw failure(dir, `model.json unreadable: ${(e as Error).message}`);
  }
  if (meta.format !== STATIC_MODEL_FORMAT) throw failure(dir, `format ${JSON.stringify(meta.format)} is not ${STATIC_MODEL_FORMAT}`);
  if (!Array.isArray(meta.vocab) || meta.vocab.length + meta.buckets !== meta.rows) throw failure(dir, `vocabulary (${meta.vocab?.length}) + buckets (${meta.buckets}) != rows (${meta.rows})`);
  return meta;
}

/**
 * model.json is parsed once per process while it does not change (its 22,000-word vocabulary makes it 0.75 MB: 13–26 ms
 * a parse, and a search opened the embedding provider, the reranker's copy of the model and then the vocabulary:
 * three parses). What is kept is the model's description without the vocabulary; the vocabulary waits, parsed, for
 * the first `loadArrays`, which takes it (it then lives in the vocabulary index only).
 */
const metaCache = new Map<string, { stamp: string; meta: StaticModelMeta; vocab?: string[] }>();

function readMeta(dir: string): StaticModelMeta {
  let stamp = '';
  try {
    const st = statSync(join(dir, 'model.json'));
    stamp = `${st.size}:${st.mtimeMs}`;
  } catch {
    /* parseMeta names the failure */
  }
  const hit = metaCache.get(dir);
  if (hit && stamp && hit.stamp === stamp) return hit.meta;
  const { vocab, ...rest } = parseMeta(dir);
  const meta: StaticModelMeta = { ...rest, vocab: [] };
  metaCache.set(dir, { stamp, meta, vocab });
  return meta;
}

/** The vocabulary read with model.json, handed over once (else model.json is read again). */
function takeVocab(dir: string): string[] {
  const hit = metaCache.get(dir);
  if (hit?.vocab) {
    const vocab = hit.vocab;
    hit.vocab = undefined;
    return vocab;
  }
  return parseMeta(dir).vocab;
}

/**
 * The table (verified against model.json's size and sha256, read when needed: static/table.ts), the scales and the
 * vocabulary; once per process.
 */
function loadArrays(dir: string, meta: StaticModelMeta): Arrays {
  const key = `${dir}\0${meta.files.table.sha256}\0${meta.files.scales.sha256}`;
  const cached = loaded.get(key);
  if (cached && sameSizes(dir, meta)) return cached;
  /** Checks the file's size and (unless a stamp says it was done) its sha256; the path. */
  const verify = (f: ModelFile, bytes: number): string => {
    const p = join(dir, f.path);
    if (!existsSync(p)) throw failure(dir, `${f.path} is missing`);
    const size = statSync(p).size;
    if (size !== bytes) throw failure(dir, `${f.path} has ${size} bytes, expected ${bytes} (truncated or from another model)`);
    const stamp = verifiedStamp(p, f.sha256);
    if (stamp && existsSync(stamp)) return p;
    const sha = sha256OfFile(p);
    if (sha !== f.sha256) throw failure(dir, `${f.path} checksum ${sha.slice(0, 12)} differs from model.json's ${f.sha256.slice(0, 12)} (corrupted)`);
    if (stamp) markVerified(stamp);
    return p;
  };
  const table = new ModelTable(verify(meta.files.table, meta.rows * meta.dims), meta.rows, meta.dims);
  const s = readFileSync(verify(meta.files.scales, meta.rows * 4));
  // An aligned copy (Buffer offsets need not be 4-aligned); the file is little-endian like every platform Node runs on.
  const scales = new Float32Array(s.buffer.slice(s.byteOffset, s.byteOffset + s.length));
  // the providers keep model.json without its vocabulary (22,000 words; the engine's and the reranker's would each
  // hold a copy): the one copy is this map, from the vocabulary `readMeta` parsed and left for it
  const vocab = meta.vocab.length ? meta.vocab : takeVocab(dir);
  const arrays = { table, scales, spec: { vocab: KeyIndex.ofStrings(vocab), buckets: meta.buckets, maxWords: meta.maxWords } };
  loaded.set(key, arrays);
  return arrays;
}

/** A file's sha256, read a megabyte at a time (the table is not held for it). */
function sha256OfFile(path: string): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null)) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * A model file whose checksum was verified once is not hashed again by later processes (each CLI search would pay
 * ~0.3 s for the 24 MB table): a stamp in the temp folder names the file's path, size, modification time and expected
 * sha256, so any rewrite of the file (a different mtime or size) is verified anew.
 */
function verifiedStamp(path: string, sha256: string): string | undefined {
  try {
    const st = statSync(path);
    const key = createHash('sha256').update(`${path}\0${st.size}\0${st.mtimeMs}\0${st.ino}\0${sha256}`).digest('hex').slice(0, 32);
    return join(tmpdir(), `quarry-model-verified-${key}`);
  } catch {
    return undefined;
  }
}

function markVerified(stamp: string): void {
  try {
    writeFileSync(stamp, '');
  } catch {
    /* a read-only temp folder: verify again next time */
  }
}

/** A cached artifact is reused only while its files keep their sizes (a damaged copy is re-verified). */
function sameSizes(dir: string, meta: StaticModelMeta): boolean {
  try {
    return statSync(join(dir, meta.files.table.path)).size === meta.rows * meta.dims && statSync(join(dir, meta.files.scales.path)).size === meta.rows * 4;
  } catch {
    return false;
  }
}

/** Batches of at least this many texts are indexing's: the table keeps more rows (static/table.ts). */
const INDEXING_BATCH = 32;

/** Scales `v` to unit length in place (a zero vector stays zero). */
function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let j = 0; j < v.length; j++) n += v[j]! * v[j]!;
  n = Math.sqrt(n);
  if (n > 0) for (let j = 0; j < v.length; j++) v[j]! /= n;
  return v;
}

export class StaticEmbeddingProvider implements EmbeddingProvider {
  readonly id: string;
  readonly dims: number;
  readonly maxInputTokens: number;
  readonly kind = 'local' as const;
  readonly embedsWhileIndexing = true;
  readonly fusionWeights: { identifier: number; natural: number };
  /** Measured: unrelated or made-up queries reach 0.2-0.5 against real code, answered questions mostly 0.4-0.7. */
  readonly minFallbackSimilarity = 0.45;
  private readonly stats = new LocalCallStats();
  private arrays: Arrays | undefined;

  private constructor(
    /** model.json as read, but for its vocabulary (`vocab` is empty: the words are the loaded spec's map). */
    readonly meta: StaticModelMeta,
    readonly dir: string,
  ) {
    this.dims = meta.dims;
    this.maxInputTokens = meta.maxWords;
    this.id = `static:${meta.name}@${meta.files.table.sha256.slice(0, 12)}`;
    this.fusionWeights = { identifier: meta.fusion?.identifier ?? DEFAULT_FUSION.identifier, natural: meta.fusion?.natural ?? DEFAULT_FUSION.natural };
  }

  /**
   * Opens a model directory; throws a ProviderUnavailableError naming the fix. `lazy`: only model.json is read now,
   * the table (24 MB) on the first embedding — a search whose query never needs a vector (a bare identifier with its
   * definition) never pays for it; a damaged table then fails that call, which the caller reports as a degraded mode.
   * The arrays are read once per process and shared (they are never written).
   */
  static load(dir: string, options: { lazy?: boolean } = {}): StaticEmbeddingProvider {
    const p = new StaticEmbeddingProvider(readMeta(dir), dir);
    if (!options.lazy) p.weights();
    return p;
  }

  private weights(): Arrays {
    return (this.arrays ??= loadArrays(this.dir, this.meta));
  }

  /** The vector of one text (synchronous; microseconds to a millisecond): its feature rows' weighted sum, normalised. */
  embed(text: string): Float32Array {
    const { table, scales, spec } = this.weights();
    const { rows, weights } = featuresOf(text, spec);
    return normalize(table.weightedSum(rows, weights, scales));
  }

  async embedDocuments(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.stats.closed) throw new Error('static provider is closed');
    const t0 = performance.now();
    this.stats.requests++;
    const out: Float32Array[] = [];
    try {
      // indexing's batches keep more of the table's rows; a search's few texts a few
      if (texts.length >= INDEXING_BATCH) this.weights().table.forIndexing();
      for (let i = 0; i < texts.length; i++) {
        // Yield every 64 texts (a few ms) so a long batch never holds up requests in the same process.
        if (i % 64 === 63) {
          signal?.throwIfAborted();
          await new Promise((r) => setImmediate(r));
        }
        out.push(this.embed(texts[i]!));
      }
    } catch (e) {
      this.stats.fail(e);
      throw e;
    }
    this.stats.ok(t0);
    return out;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [v] = await this.embedDocuments([text]);
    return v!;
  }

  health(): ProviderHealth {
    return this.stats.health();
  }

  async close(): Promise<void> {
    this.stats.closed = true;
  }
}
