/**
 * A sentence-embedding model from a LOCAL directory (Hugging Face layout with an ONNX export, e.g.
 * Xenova/all-MiniLM-L6-v2 or bge-small) through @huggingface/transformers on onnxruntime-node: tokenise with the
 * model's own tokenizer.json, run the encoder, mean- (or CLS-) pool over the attention mask, L2-normalise.
 * Offline by default (`allowRemoteModels: false`). Model id: `onnx:<dir name>@<sha256(model file)[:12]>`.
 */
import { EmbeddingProvider, ProviderHealth } from '../types';
import { LocalCallStats } from '../localStats';
import { OnnxEmbeddingConfig, OnnxEmbeddingConfigSchema } from '../config';
import { loadConfiguredModel, ResolvedModelDir } from '../localModel';
import { normalize } from '../vector';

export class OnnxEmbeddingProvider implements EmbeddingProvider {
  readonly kind = 'local' as const;
  private readonly stats = new LocalCallStats();
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly id: string,
    readonly dims: number,
    readonly maxInputTokens: number,
    readonly modelDir: ResolvedModelDir,
    private readonly cfg: OnnxEmbeddingConfig,
    private readonly tokenizer: any,
    private readonly model: any,
  ) {}

  /** Loads the model in `config.modelPath` (required here; the registry resolves conventional locations). */
  static async load(config: Partial<OnnxEmbeddingConfig>): Promise<OnnxEmbeddingProvider> {
    const cfg = OnnxEmbeddingConfigSchema.parse(config);
    const { resolved, tokenizer, model, hash, maxInputTokens } = await loadConfiguredModel(
      cfg, 'feature-extraction', 'onnx', 'embedding.onnx.modelPath to a local model directory',
    );
    const probe = new OnnxEmbeddingProvider('', 0, maxInputTokens, resolved, cfg, tokenizer, model);
    const [v] = await probe.forward(['probe']);
    return new OnnxEmbeddingProvider(`onnx:${resolved.name}@${hash}`, v!.length, maxInputTokens, resolved, cfg, tokenizer, model);
  }

  async embedDocuments(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return this.embed(texts.map((t) => this.cfg.documentPrefix + t), signal);
  }

  async embedQuery(text: string, signal?: AbortSignal): Promise<Float32Array> {
    const [v] = await this.embed([this.cfg.queryPrefix + text], signal);
    return v!;
  }

  private async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (this.stats.closed) throw new Error('onnx provider is closed');
    if (texts.length === 0) return [];
    // Batches of similar length waste less on padding.
    const order = texts.map((_, i) => i);
    if (this.cfg.batchSize > 1) order.sort((a, b) => texts[a]!.length - texts[b]!.length);
    const out = new Array<Float32Array>(texts.length);
    for (let s = 0; s < order.length; s += this.cfg.batchSize) {
      signal?.throwIfAborted();
      const idx = order.slice(s, s + this.cfg.batchSize);
      const vecs = await this.serial(() => this.forward(idx.map((i) => texts[i]!)));
      idx.forEach((i, k) => (out[i] = vecs[k]!));
    }
    return out;
  }

  /** One forward pass at a time: onnxruntime sessions are not meant to be driven concurrently from JS here. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.queue.then(fn, fn);
    this.queue = p.catch(() => undefined);
    return p;
  }

  private async forward(texts: string[]): Promise<Float32Array[]> {
    const t0 = performance.now();
    this.stats.requests++;
    try {
      const inputs = this.tokenizer(texts.map((t) => t || ' '), { padding: true, truncation: true, max_length: this.maxInputTokens });
      const output = await this.model(inputs);
      const hidden = output.last_hidden_state ?? output.token_embeddings ?? Object.values(output)[0];
      const [batch, seq, dims] = hidden.dims as number[];
      const data = hidden.data as Float32Array;
      const mask = inputs.attention_mask.data as BigInt64Array | number[];
      const vecs: Float32Array[] = [];
      for (let b = 0; b < batch!; b++) {
        const v = new Float32Array(dims!);
        if (this.cfg.pooling === 'cls') {
          v.set(data.subarray(b * seq! * dims!, b * seq! * dims! + dims!));
        } else {
          let n = 0;
          for (let t = 0; t < seq!; t++) {
            if (Number(mask[b * seq! + t]) === 0) continue;
            n++;
            const off = (b * seq! + t) * dims!;
            for (let d = 0; d < dims!; d++) v[d]! += data[off + d]!;
          }
          if (n > 0) for (let d = 0; d < dims!; d++) v[d]! /= n;
        }
        vecs.push(normalize(v));
      }
      for (const t of Object.values(inputs) as any[]) t?.dispose?.();
      for (const t of Object.values(output) as any[]) t?.dispose?.();
      this.stats.ok(t0);
      return vecs;
    } catch (err) {
      this.stats.fail(err);
      throw err;
    }
  }

  health(): ProviderHealth {
    return this.stats.health();
  }

  async close(): Promise<void> {
    if (this.stats.closed) return;
    this.stats.closed = true;
    await this.queue;
    await this.model?.dispose?.();
  }
}
