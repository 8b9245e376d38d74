/**
 * A local cross-encoder reranker (e.g. Xenova/ms-marco-MiniLM-L-6-v2): a sequence-classification model with one
 * logit, run on (query, document) pairs from a LOCAL directory through @huggingface/transformers. The score is the
 * raw logit (higher is more relevant). Id: `cross-encoder:<dir name>@<sha256(model file)[:12]>`.
 */
import { ProviderHealth, Reranker, RerankResult } from '../types';
import { LocalCallStats } from '../localStats';
import { CrossEncoderRerankConfig, CrossEncoderRerankConfigSchema } from '../config';
import { loadConfiguredModel, ResolvedModelDir } from '../localModel';

export class CrossEncoderReranker implements Reranker {
  readonly kind = 'local' as const;
  private readonly stats = new LocalCallStats();
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly id: string,
    readonly maxInputTokens: number,
    readonly modelDir: ResolvedModelDir,
    private readonly cfg: CrossEncoderRerankConfig,
    private readonly tokenizer: any,
    private readonly model: any,
  ) {}

  static async load(config: Partial<CrossEncoderRerankConfig>): Promise<CrossEncoderReranker> {
    const cfg = CrossEncoderRerankConfigSchema.parse(config);
    const { resolved, tokenizer, model, hash, maxInputTokens } = await loadConfiguredModel(
      cfg, 'sequence-classification', 'cross-encoder', 'rerank.crossEncoder.modelPath',
    );
    return new CrossEncoderReranker(`cross-encoder:${resolved.name}@${hash}`, maxInputTokens, resolved, cfg, tokenizer, model);
  }

  async rerank(query: string, documents: string[], topK: number, signal?: AbortSignal): Promise<RerankResult[]> {
    if (this.stats.closed) throw new Error('cross-encoder reranker is closed');
    if (documents.length === 0 || topK <= 0) return [];
    const scores = new Array<number>(documents.length);
    for (let s = 0; s < documents.length; s += this.cfg.batchSize) {
      signal?.throwIfAborted();
      const docs = documents.slice(s, s + this.cfg.batchSize);
      const out = await this.serial(() => this.score(query, docs));
      out.forEach((v, k) => (scores[s + k] = v));
    }
    return scores
      .map((score, index) => ({ index, score }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, topK);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.queue.then(fn, fn);
    this.queue = p.catch(() => undefined);
    return p;
  }

  private async score(query: string, docs: string[]): Promise<number[]> {
    const t0 = performance.now();
    this.stats.requests++;
    try {
      const inputs = this.tokenizer(
        docs.map(() => query || ' '),
        { text_pair: docs.map((d) => d || ' '), padding: true, truncation: true, max_length: this.maxInputTokens },
      );
      const { logits } = await this.model(inputs);
      const [batch, labels] = logits.dims as number[];
      const data = logits.data as Float32Array;
      // One logit: the relevance. Two (binary classifier): the "relevant" logit minus the other.
      const out = Array.from({ length: batch! }, (_, b) => (labels === 1 ? data[b]! : data[b * labels! + labels! - 1]! - data[b * labels!]!));
      for (const t of Object.values(inputs) as any[]) t?.dispose?.();
      logits.dispose?.();
      this.stats.ok(t0);
      return out;
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
