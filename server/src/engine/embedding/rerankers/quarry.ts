/**
 * Quarry's own reranker (`quarry-rerank`, bundled in models/): a small learned model over what retrieval and the
 * ranking stages know about each candidate (channel scores and ranks, which index fields matched, how much of the
 * query the name, signature, body and path cover, the code model's name similarity, kind and size). Trained by
 * training/rerank/ on code no benchmark uses; offline, no native runtime, well under a millisecond per candidate.
 * Id: `quarry-rerank:<name>@<version>`.
 */
import { resolve } from 'node:path';
import type { Candidate } from '../../ranking/candidate';
import type { ParsedQuery } from '../../ranking/query';
import { ProviderHealth, Reranker, RerankResult } from '../types';
import { LocalCallStats } from '../localStats';
import { StaticEmbeddingProvider } from '../providers/static';
import { rerankFeatures } from './learned/features';
import { readRerankModel, RerankModel, scoreRow } from './learned/model';

export class QuarryReranker implements Reranker {
  readonly kind = 'local' as const;
  readonly id: string;
  /** Trained on lists where BM25 and the code model both served; a one-channel search keeps its order. */
  readonly needsBothChannels = true;
  private readonly stats = new LocalCallStats();

  private constructor(
    readonly model: RerankModel,
    readonly dir: string,
    private readonly codeModel: StaticEmbeddingProvider | undefined,
  ) {
    this.id = `quarry-rerank:${model.name}@${model.version}`;
  }

  /**
   * Opens a model directory (throws a ProviderUnavailableError naming the fix). `codeModelDir`: the static code model
   * its similarity features need (lazy: its table is read on the first search); without it those features are 0.
   * `opened`: that model already open (the engine's embedding provider), used when it is the one in `codeModelDir`.
   */
  static load(dir: string, codeModelDir: string | undefined, opened?: StaticEmbeddingProvider): QuarryReranker {
    const model = readRerankModel(dir);
    const code = !codeModelDir ? undefined : opened && resolve(opened.dir) === resolve(codeModelDir) ? opened : StaticEmbeddingProvider.load(codeModelDir, { lazy: true });
    return new QuarryReranker(model, dir, code);
  }

  /**
   * The model's relevance score per candidate, in their order: its logit, the listwise score it was trained on (only
   * differences within one list mean anything). Not squashed into (0, 1): a sigmoid made the best candidates of a list,
   * whose logits differ most, 0.999… alike (a Java class and its constructors all "1"), and the learned-scorer stage
   * then took those differences for noise.
   */
  scoreCandidates(query: ParsedQuery, candidates: readonly Candidate[]): number[] {
    if (this.stats.closed) throw new Error('quarry-rerank is closed');
    const t0 = performance.now();
    this.stats.requests++;
    try {
      const code = this.codeModel;
      const rows = rerankFeatures(query, candidates, code ? (t) => this.embedName(code, t) : undefined);
      const out = rows.map((r) => scoreRow(this.model, r));
      this.stats.ok(t0);
      return out;
    } catch (e) {
      this.stats.fail(e);
      throw e;
    }
  }

  /**
   * The code model's vector of a candidate's name or signature, remembered (bounded): searches in one workspace keep
   * meeting the same declarations, and two embeddings per candidate were most of the scorer's time.
   */
  private embedName(code: StaticEmbeddingProvider, text: string): Float32Array {
    let v = this.nameVectors.get(text);
    if (!v) {
      if (this.nameVectors.size >= 4_096) this.nameVectors.clear(); // at most ~4 MB of vectors
      this.nameVectors.set(text, (v = code.embed(text)));
    }
    return v;
  }

  private readonly nameVectors = new Map<string, Float32Array>();

  /** It reads candidates, not bare texts: the rerank step calls scoreCandidates. */
  async rerank(): Promise<RerankResult[]> {
    throw new Error('quarry-rerank scores search candidates (scoreCandidates), not bare texts');
  }

  health(): ProviderHealth {
    return this.stats.health();
  }

  async close(): Promise<void> {
    this.stats.closed = true;
  }
}
