/**
 * One search, start to end: parse the query → retrieval (every channel, fused; retrieval/hybrid.ts) → the ranking
 * pipeline (ranking/pipeline.ts: learned scorer, seed rules, contract partitions, filters, cut-off) → top-k →
 * the result schema (present.ts). The engine facade supplies the index parts and the providers (`SearchDeps`).
 */
import type { QuarryConfig } from '../config/schema';
import type { ChunkStore } from '../store/chunkStore';
import type { LexicalIndex } from '../store/lexical/lexicalIndex';
import type { Reranker } from '../embedding/types';
import type { ActivationFacts, Candidate, SearchOptions } from '../ranking/candidate';
import type { CodeMatch, FindCodeResponseSummary, SearchStrategy } from '../api/results';
import { expandChunkTypes, parseQuery, pathMatcher } from '../ranking/query';
import { retrieve, type DenseChannel } from '../retrieval/hybrid';
import { detectIntents } from '../ranking/intents';
import { runPipeline } from '../ranking/pipeline';
import { isTestPath } from '../testPaths';
import { languageForPath, languageIdFor } from '../languages';
import { declaredMember } from '../types';
import { indexingWarning } from '../indexer/checkpoint';
import { lastQuerySegment, matchesWholeName } from '../ranking/stages/relevanceCutoff';
import type { IndexingState } from '../health';
import { queryWords } from './breakdown';
import { memberNameRange, relevances, toCodeMatch } from './present';
import { whyOf } from './why';
import { callsWithoutDeclaring } from '../ranking/stages/callersFirst';
import { includeTestsFor } from './testScope';
import { quickChunks } from '../quickWindows';

/** Seed 003 §6.4: git metadata older than a week may be stale. */
const GIT_STALE_MS = 7 * 86_400_000;

export interface SearchDeps {
  /** The workspace folder (a quick keyword pass's windows are read from its files). */
  root: string;
  quarryDir: string;
  config: QuarryConfig;
  store: ChunkStore;
  lexical: LexicalIndex;
  reranker: Reranker | null;
  /** Problems found when the index was opened (every answer repeats them). */
  problems: readonly string[];
  hasIndex: boolean;
  /** The dense channel when it can serve (a reason goes to `warnings` when not). */
  dense(warnings: string[]): Promise<DenseChannel | undefined>;
  /** Activation evidence of chunks (accesses, git history). */
  activationFacts(ids: readonly string[]): Promise<Map<string, ActivationFacts>>;
  timings: { vectorStore(ms: number): void; embedding(ms: number): void };
  /** This process's own index run, if one is going (what the indexing warning says: indexer/checkpoint.ts). */
  indexing?(): IndexingState;
  /** Declared names like `name` (the symbol table's prefix, camel-hump and fuzzy matches), best first. */
  similarNames?(name: string): Promise<string[]>;
}

/**
 * What a door asks for; omitted options take their defaults. `includeTests`: true/false, `'auto'` (only when the
 * query is about tests: MCP's default) or omitted (included, ranked below the code they test).
 */
export type SearchRequest = Partial<Omit<SearchOptions, 'includeTests'>> & { includeTests?: boolean | 'auto' };

export async function runSearch(deps: SearchDeps, query: string, opts: SearchRequest): Promise<FindCodeResponseSummary> {
  const started = performance.now();
  const parsed = parseQuery(query, opts.intent ?? null);
  const intent = detectIntents(parsed.text, opts.intent ?? null);
  const options: SearchOptions = {
    limit: Math.max(1, Math.min(opts.limit ?? 10, 1000)),
    includeTests: includeTestsFor(opts.includeTests, parsed, intent),
    // ids or their common aliases (`ts`, `py`, `golang`); an unknown name is kept (its search says what is indexed)
    languages: opts.languages?.length ? opts.languages.map((l) => languageIdFor(l) ?? l.toLowerCase()) : undefined,
    intent: opts.intent ?? null,
    types: opts.types?.length ? expandChunkTypes(opts.types, '--type') : undefined,
    explain: opts.explain ?? true,
    disabledStages: opts.disabledStages,
    completeScores: opts.completeScores,
  };
  const { config, store, lexical } = deps;
  // the response's file count, asked now so that LanceDB answers it while the search runs (awaited at the end)
  const fileCount = store.fileCount();
  fileCount.catch(() => undefined);
  const warnings: string[] = [...deps.problems];
  const indexing = indexingWarning(deps.quarryDir, deps.indexing?.());
  if (indexing) warnings.push(indexing);

  const languagesWanted = [...(options.languages ?? []), ...parsed.filters.languages];
  const pathOk = pathMatcher(parsed.filters.paths);
  const accept = (path: string): boolean => {
    if (!options.includeTests && isTestPath(path)) return false;
    if (!pathOk(path)) return false;
    if (languagesWanted.length) {
      const lang = languageForPath(path, config.discovery.extraExtensions)?.id;
      if (!lang || !languagesWanted.includes(lang)) return false;
    }
    return true;
  };
  const dense = await deps.dense(warnings);
  // Activation evidence, read once per chunk and search (staged fusion asks for its candidates, the stages for all).
  const factsSeen = new Map<string, ActivationFacts>();
  const activation = async (ids: readonly string[]): Promise<Map<string, ActivationFacts>> => {
    const missing = ids.filter((id) => !factsSeen.has(id));
    if (missing.length) for (const [id, f] of await deps.activationFacts(missing)) factsSeen.set(id, f);
    return new Map(ids.map((id) => [id, factsSeen.get(id)!]));
  };
  const retrieved = await retrieve(
    {
      lexical, store, dense, bm25: config.bm25, retrieval: config.retrieval, timings: deps.timings,
      quickWindows: (ids) => quickChunks(deps.root, ids, (path) => languageForPath(path, config.discovery.extraExtensions)?.id),
      activationOf: async (ids) => new Map([...(await activation(ids))].filter(([, f]) => f.raw !== undefined).map(([id, f]) => [id, f.raw!])),
    },
    parsed,
    options.limit,
    accept,
  );
  warnings.push(...retrieved.warnings);
  const matched = retrieved.matched;
  const facts = await activation(retrieved.candidates.map((c) => c.id));
  for (const c of retrieved.candidates) c.activation = facts.get(c.id);
  const strategy: SearchStrategy[] = [...retrieved.strategy];
  const ranked = await runPipeline(
    {
      query: parsed, options, ranking: config.ranking, intent,
      stats: { identifierOccurrences: (identifier: string, cap: number) => lexical.termOccurrences('ident', identifier.toLowerCase(), cap) },
      stagedActivation: !!dense && config.retrieval.fusion === 'staged',
      scorer: deps.reranker,
      scorerOptions: { candidates: config.rerank.candidates, weight: config.rerank.weight, keepFusedBest: config.rerank.keepFusedBest, keepKeywordBest: config.rerank.keepKeywordBest },
      effects: { strategy, warnings },
    },
    retrieved.candidates,
    new Set(options.disabledStages ?? []),
  );
  const top = ranked.slice(0, options.limit);
  if (options.completeScores && dense) await addSimilarities(dense, parsed.text, top, warnings);
  const gitAge = Math.max(0, ...top.map((c) => (c.activation?.git?.computedAt ? Date.now() - c.activation.git.computedAt : 0)));
  if (gitAge > GIT_STALE_MS) warnings.push(`Git metadata may be stale: computed ${Math.floor(gitAge / 86_400_000)} days ago; run \`quarry index\` to refresh commits and last-modified times.`);
  const words = queryWords(parsed.text);
  const relevance = relevances(top);
  const matches: CodeMatch[] = top.map((c, i) => toCodeMatch(c, relevance[i], options.explain !== false, words));
  top.forEach((c, i) => {
    const member = parsed.form === 'identifier' ? declaredMember(c.chunk!, parsed.text) : undefined;
    if (member) {
      matches[i].matched_symbol = member;
      // open at the member's own name (issue 18), not its container's
      matches[i].name_range = memberNameRange(c.chunk!, member) ?? matches[i].name_range;
    }
    matches[i].why = whyOf(c, parsed, words, member);
  });

  if (parsed.form === 'identifier' && top.length && deps.similarNames && !top.some((c) => matchesWholeName(c, parsed.text))) {
    // a typo or a partial name: nothing below holds it whole (their "why" says they share parts of it); when declared
    // names are near it, say which (a name nothing resembles gets no warning: the index is not at fault)
    const name = lastQuerySegment(parsed.text);
    const near = (await deps.similarNames(name).catch(() => [] as string[])).filter((n) => n.toLowerCase() !== name.toLowerCase()).slice(0, 3);
    if (near.length) warnings.push(`Nothing in the index is named "${name}". Did you mean ${near.map((n) => `\`${n}\``).join(', ')}?`);
  }
  if (parsed.target?.relation === 'callers' && top.length) {
    // "who calls X" where nothing among the results refers to X: say so rather than let word matches pass for callers
    const name = lastQuerySegment(parsed.target.name);
    const calls = (c: Candidate) => callsWithoutDeclaring(c, name);
    if (!top.some(calls)) warnings.push(`No code among the results calls or refers to \`${parsed.target.name}\`${options.includeTests ? '' : ' outside test files'}: what follows is its definition and code that shares words with the question.`);
  }
  const languages = [...new Set(matches.map((m) => m.file.language))].sort();
  const counts = { chunks: lexical.documentCount, files: await fileCount };
  const suggestions = matches.length ? [] : await noResultSuggestions(store, parsed.text, options);
  if (!deps.hasIndex && lexical.documentCount === 0) warnings.push('No index yet: run `quarry index` first.');
  const summary = matches.length
    ? `Found ${matches.length} match${matches.length === 1 ? '' : 'es'} for "${parsed.text}" in ${new Set(matches.map((m) => m.file.path)).size} file(s)` +
      (languages.length ? ` (${languages.join(', ')})` : '') + `; ${matched} candidate chunk(s) matched.`
    : `No results for "${parsed.text}" (searched ${counts.chunks} chunks across ${counts.files} files).`;
  const elapsed = Math.round((performance.now() - started) * 100) / 100;
  return {
    matches,
    summary: summary.slice(0, 1000),
    query_intent: intent.codeTask?.intentType ?? intent.information?.intent ?? null,
    total_matches: matched,
    total_results: matches.length,
    token_count: matches.reduce((n, m) => n + m.content.token_count, 0),
    execution_time_ms: elapsed,
    search_strategy: [...new Set(strategy)],
    languages_found: languages,
    warnings: [...new Set(warnings)],
    suggestions,
    searched: counts,
  };
}

/** The dense channel's similarity for shown results it did not score (seed 003 FR-6.1's Semantic line for every result). */
async function addSimilarities(dense: DenseChannel, query: string, shown: Candidate[], warnings: string[]): Promise<void> {
  const missing = shown.filter((c) => !c.dense && c.chunk);
  if (!missing.length) return;
  try {
    const q = await dense.provider.embedQuery(query);
    const vectors = await dense.vectors.vectorsOf([...new Set(missing.map((c) => c.chunk!.contentHash))]);
    for (const c of missing) {
      const v = vectors.get(c.chunk!.contentHash);
      if (!v) continue;
      let s = 0;
      for (let i = 0; i < v.length; i++) s += v[i] * q[i];
      c.dense = { similarity: s, rank: 0 };
    }
  } catch (e) {
    warnings.push(`Semantic scores could not be computed for every result (${dense.provider.id}: ${(e as Error).message}).`);
  }
}

async function noResultSuggestions(store: ChunkStore, text: string, options: SearchOptions): Promise<string[]> {
  const { byLanguage } = await store.breakdown();
  const langs = Object.keys(byLanguage).sort();
  const out: string[] = [];
  if (options.languages) out.push(`No chunks matched in ${options.languages.join(', ')}; drop the language filter to search everything.`);
  if (!options.includeTests) out.push('Test files were excluded; include them with --include-tests.');
  out.push(langs.length ? `Languages available: ${langs.join(', ')}` : 'The index is empty: run `quarry index` in the project folder.');
  if (text.split(/\s+/).length > 1) out.push('Try fewer or broader terms, or an identifier that appears in the code.');
  else out.push('Check the spelling, or try a broader term.');
  out.push('Check indexed file types: quarry config --show');
  return out;
}
