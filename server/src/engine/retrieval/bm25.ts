/**
 * Okapi BM25 (seed 003 FR-1.2 with the non-negative IDF of its Appendix B):
 *
 *   score(Q, D) = Σ_{q ∈ Q} IDF(q) · f(q, D)·(k1 + 1) / (f(q, D) + k1·(1 − b + b·|D|/avgdl))
 *   IDF(q)      = ln(1 + (N − n(q) + 0.5) / (n(q) + 0.5))
 *
 * FR-1.2's `log((N − n + 0.5)/(n + 0.5 + 1))` and UT-BM25-08's `log((N − n + 0.5)/(n + 0.5))` go negative
 * for terms in more than half the documents, which would make a matching document score below a
 * non-matching one; Appendix B's `+ 1` inside the log keeps every IDF positive (PRODUCT.md).
 */
import { tokenize } from '../tokenize/codeTokenizer';

export interface Bm25Params {
  k1: number;
  b: number;
}

export const DEFAULT_BM25: Bm25Params = { k1: 1.5, b: 0.75 };

/** Non-negative IDF for a term present in `n` of `N` documents. */
export function idf(N: number, n: number): number {
  return Math.log(1 + (N - n + 0.5) / (n + 0.5));
}

/** The saturated, length-normalised term-frequency factor of one term in one document. */
export function tfWeight(tf: number, docLength: number, avgDocLength: number, p: Bm25Params): number {
  if (tf <= 0) return 0;
  const norm = avgDocLength > 0 ? docLength / avgDocLength : 1;
  return (tf * (p.k1 + 1)) / (tf + p.k1 * (1 - p.b + p.b * norm));
}

/** One term's contribution: IDF × tf factor. */
export function termScore(N: number, n: number, tf: number, docLength: number, avgDocLength: number, p: Bm25Params): number {
  return idf(N, n) * tfWeight(tf, docLength, avgDocLength, p);
}

/**
 * A small self-contained scorer over in-memory documents, with seed 003's `BM25Scorer` interface
 * (build_index / score / idf). The engine's persistent index (lexicalIndex.ts) uses the same functions.
 */
export class Bm25Scorer {
  readonly idf = new Map<string, number>();
  private readonly df = new Map<string, number>();
  private N = 0;
  private avgdl = 0;

  constructor(private readonly params: Bm25Params = DEFAULT_BM25, private readonly tokenizer: (t: string) => string[] = tokenize) {}

  buildIndex(docs: ReadonlyArray<readonly [id: string, text: string]>): void {
    this.df.clear();
    this.idf.clear();
    this.N = docs.length;
    let total = 0;
    for (const [, text] of docs) {
      const terms = this.tokenizer(text);
      total += terms.length;
      for (const t of new Set(terms)) this.df.set(t, (this.df.get(t) ?? 0) + 1);
    }
    this.avgdl = this.N ? total / this.N : 0;
    for (const [t, n] of this.df) this.idf.set(t, idf(this.N, n));
  }

  /** BM25 of `query` against a document's text, using the corpus statistics of `buildIndex`. */
  score(query: string, docText: string): number {
    const docTerms = this.tokenizer(docText);
    const tf = new Map<string, number>();
    for (const t of docTerms) tf.set(t, (tf.get(t) ?? 0) + 1);
    let s = 0;
    for (const q of this.tokenizer(query)) {
      const f = tf.get(q) ?? 0;
      if (!f) continue;
      s += termScore(this.N, this.df.get(q) ?? 0, f, docTerms.length, this.avgdl, this.params);
    }
    return s;
  }
}
