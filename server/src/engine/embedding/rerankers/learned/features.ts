/**
 * The features of Quarry's learned reranker (`quarry-rerank`): one fixed-length vector per (query, candidate),
 * computed from what retrieval and the ranking stages already know about the candidate (its channel scores and
 * ranks, which index fields its keyword matches fell in) plus a few cheap looks at the chunk itself (how much of the
 * query its name, signature, body and path cover; how close its name is to the query in the code model's space;
 * its kind and size). Training (training/rerank/) and run time share this file, so a model is only ever fed the
 * features it was trained on; `FEATURE_NAMES` is written into the model and checked when it loads.
 */
import type { Candidate } from '../../../ranking/candidate';
import type { ParsedQuery } from '../../../ranking/query';
import { words } from '../../../tokenize/codeTokenizer';
import { contentStems, queryStems, stemSet } from '../../../tokenize/stemSets';
import { isTestPath } from '../../../testPaths';
import { dot } from '../../vector';

export const FEATURE_NAMES = [
  'score_rel', 'score_minmax', 'rank_recip', 'rank_log',
  'bm25_present', 'bm25_rel', 'bm25_rank_recip',
  'dense_present', 'dense_sim', 'dense_minmax', 'dense_rank_recip',
  'share_name', 'share_symbols', 'share_ident', 'share_body', 'share_path', 'share_stem',
  'cov_name', 'cov_signature', 'cov_body', 'cov_path', 'cov_any',
  'name_sim', 'signature_sim',
  'kind_function', 'kind_method', 'kind_type', 'kind_code', 'kind_knowledge', 'kind_reasoning',
  'lines_log', 'is_test', 'query_words_log',
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

/** A text embedder in the same space as the query vector (Quarry's static code model: microseconds a call). */
export type Embed = (text: string) => Float32Array;

const TYPE_KINDS = new Set(['class', 'struct', 'enum', 'interface', 'protocol', 'trait', 'extension', 'impl', 'type_alias']);
const CODE_KINDS = new Set(['code', 'variable', 'module', 'namespace']);

/** The query's content stems (tokenize/stemSets.ts; the ranking stages compare with the same set). */
export { queryStems } from '../../../tokenize/stemSets';

function coverage(query: Set<string>, ...have: Array<Set<string>>): number {
  if (!query.size) return 0;
  let n = 0;
  for (const s of query) if (have.some((h) => h.has(s))) n++;
  return n / query.size;
}

/** Ranks (1-based) of the candidates by a value, absent values last. */
function ranksBy(values: Array<number | undefined>): number[] {
  const order = values.map((v, i) => ({ v, i })).filter((x) => x.v !== undefined).sort((a, b) => b.v! - a.v! || a.i - b.i);
  const ranks = new Array<number>(values.length).fill(0);
  order.forEach((x, r) => (ranks[x.i] = r + 1));
  return ranks;
}

const minmax = (v: number, lo: number, hi: number) => (hi > lo ? (v - lo) / (hi - lo) : 1);

/**
 * One feature row per candidate, in the candidates' current (pipeline) order. `embed` is optional: without it the
 * similarity features are 0 (the model then leans on the rest).
 */
export function rerankFeatures(query: ParsedQuery, candidates: readonly Candidate[], embed?: Embed): Float32Array[] {
  const n = candidates.length;
  const wanted = queryStems(query.text);
  const qvec = embed ? embed(query.text) : undefined;
  const scores = candidates.map((c) => c.score);
  const sHi = Math.max(...scores);
  const sLo = Math.min(...scores);
  const bm25 = candidates.map((c) => c.bm25?.score);
  const bHi = Math.max(0, ...bm25.map((b) => b ?? 0));
  const bRank = ranksBy(bm25);
  const dense = candidates.map((c) => c.dense?.similarity);
  const present = dense.filter((d): d is number => d !== undefined);
  const dHi = present.length ? Math.max(...present) : 0;
  const dLo = present.length ? Math.min(...present) : 0;
  const dRank = ranksBy(dense);
  const queryWords = words(query.text).length;
  return candidates.map((c, i) => {
    const f = new Float32Array(FEATURE_NAMES.length);
    let k = 0;
    const put = (v: number) => (f[k++] = Number.isFinite(v) ? v : 0);
    const chunk = c.chunk;
    put(sHi > 0 ? c.score / sHi : 0);
    put(minmax(c.score, sLo, sHi));
    put(1 / (i + 1));
    put(Math.log(i + 1) / Math.log(Math.max(2, n)));
    put(c.bm25 ? 1 : 0);
    put(c.bm25 && bHi > 0 ? c.bm25.score / bHi : 0);
    put(bRank[i] ? 1 / bRank[i]! : 0);
    put(c.dense ? 1 : 0);
    put(c.dense?.similarity ?? 0);
    put(c.dense ? minmax(c.dense.similarity, dLo, dHi) : 0);
    put(dRank[i] ? 1 / dRank[i]! : 0);
    const share: Record<string, number> = { name: 0, symbols: 0, ident: 0, body: 0, path: 0, stem: 0 };
    let total = 0;
    for (const m of c.bm25?.matches ?? []) {
      share[m.field] = (share[m.field] ?? 0) + m.contribution;
      total += m.contribution;
    }
    for (const field of ['name', 'symbols', 'ident', 'body', 'path', 'stem']) put(total > 0 ? share[field]! / total : 0);
    const nameText = chunk ? [chunk.container, chunk.name].filter(Boolean).join(' ') : '';
    const signature = chunk ? chunk.signature || chunk.content.split('\n', 1)[0]! : '';
    const nameStems = stemSet(nameText);
    const pathStems = stemSet(c.path);
    const bodyStems = chunk ? contentStems(chunk) : new Set<string>();
    put(coverage(wanted, nameStems));
    put(coverage(wanted, stemSet(signature)));
    put(coverage(wanted, bodyStems));
    put(coverage(wanted, pathStems));
    put(chunk ? coverage(wanted, nameStems, pathStems, bodyStems) : 0);
    put(qvec && nameText ? dot(qvec, embed!(nameText)) : 0);
    put(qvec && signature ? dot(qvec, embed!(signature)) : 0);
    const kind = chunk?.kind ?? 'code';
    put(kind === 'function' || kind === 'constructor' ? 1 : 0);
    put(kind === 'method' ? 1 : 0);
    put(TYPE_KINDS.has(kind) ? 1 : 0);
    put(CODE_KINDS.has(kind) ? 1 : 0);
    put(kind === 'section' || kind === 'text' ? 1 : 0);
    put(kind === 'reasoning' ? 1 : 0);
    put(chunk ? Math.log(chunk.endLine - chunk.startLine + 1) : 0);
    put(isTestPath(c.path) ? 1 : 0);
    put(Math.log(1 + queryWords));
    return f;
  });
}
