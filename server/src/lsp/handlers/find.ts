/**
 * `codeSearch/find`: searches the named folder (or every folder, once each is searchable) and merges the folders'
 * results into one `FindResult` (by score, relevance relative to the best, warnings tagged with their folder).
 */
import { CancellationToken, ErrorCodes, LSPErrorCodes, ResponseError } from 'vscode-languageserver';
import type { FindCodeResponseSummary, SearchStrategy } from '../../engine/api/results';
import type { ServerContext } from '../context';
import { Folder, selectFolders } from '../folder';
import { matchLocation } from '../locations';
import type { FindParams, FindResult, LocatedMatch } from '../protocol';
import { checkCancel, untilCancelled } from '../requestGuard';
import { flushBuffers } from '../documentSync';

export async function findCode(ctx: ServerContext, params: FindParams, token: CancellationToken): Promise<FindResult> {
  if (!params || typeof params.query !== 'string' || !params.query.trim()) throw new ResponseError(ErrorCodes.InvalidParams, 'codeSearch/find needs a non-empty "query" string.');
  if (params.limit !== undefined && (!Number.isInteger(params.limit) || params.limit < 1)) throw new ResponseError(ErrorCodes.InvalidParams, '"limit" must be a positive integer.');
  const targets = selectFolders(ctx.folders, params.folder);
  if (!targets.length) throw new ResponseError(LSPErrorCodes.RequestFailed, 'No workspace folder is open: open a folder to search it.');
  await untilCancelled(Promise.all(targets.map((f) => f.ready)), token);
  const limit = params.limit ?? 10;
  const results: Array<{ f: Folder; res: FindCodeResponseSummary }> = [];
  const problems: string[] = [];
  for (const f of targets) {
    checkCancel(token);
    if (!f.engine) {
      problems.push(`${f.name}: ${f.error ?? 'not open'}`);
      continue;
    }
    await flushBuffers(ctx, f); // the search sees the edits made before it
    const res = await f.engine.search(params.query, {
      limit,
      includeTests: params.includeTests,
      languages: params.languages,
      types: params.types,
      intent: params.intent ?? null,
      explain: params.explain,
    });
    results.push({ f, res });
  }
  checkCancel(token);
  if (!results.length) throw new ResponseError(LSPErrorCodes.RequestFailed, `No workspace folder could be searched: ${problems.join('; ')}`);
  return mergeResults(results, limit, problems, targets.length > 1);
}

/** One folder's result as is (with locations); several folders' merged by score, cut to `limit`. */
function mergeResults(results: Array<{ f: Folder; res: FindCodeResponseSummary }>, limit: number, problems: string[], multi: boolean): FindResult {
  const all: LocatedMatch[] = [];
  for (const { f, res } of results) for (const m of res.matches) all.push({ ...m, location: matchLocation(f, m), folder: f.uri });
  if (results.length === 1) {
    const { res } = results[0];
    return { ...res, matches: all, locations: all.map((m) => m.location), warnings: [...res.warnings, ...problems] };
  }
  all.sort((a, b) => b.score - a.score);
  const matches = all.slice(0, limit);
  const best = Math.max(0, ...matches.map((m) => m.score));
  for (const m of matches) m.relevance_score = best > 0 ? Math.round((m.score / best) * 10000) / 10000 : 0;
  const sum = (k: 'total_matches' | 'execution_time_ms') => results.reduce((n, r) => n + r.res[k], 0);
  const languages = [...new Set(matches.map((m) => m.file.language))].sort();
  const strategy = [...new Set(results.flatMap((r) => r.res.search_strategy))] as SearchStrategy[];
  const searched = { chunks: results.reduce((n, r) => n + r.res.searched.chunks, 0), files: results.reduce((n, r) => n + r.res.searched.files, 0) };
  const tag = (f: Folder, s: string) => (multi ? `${f.name}: ${s}` : s);
  return {
    matches,
    locations: matches.map((m) => m.location),
    summary: (matches.length
      ? `Found ${matches.length} match${matches.length === 1 ? '' : 'es'} in ${new Set(matches.map((m) => `${m.folder}|${m.file.path}`)).size} file(s) across ${results.length} folders` +
        (languages.length ? ` (${languages.join(', ')})` : '') + `; ${sum('total_matches')} candidate chunk(s) matched.`
      : `No results (searched ${searched.chunks} chunks across ${searched.files} files in ${results.length} folders).`
    ).slice(0, 1000),
    query_intent: results.find((r) => r.res.query_intent)?.res.query_intent ?? null,
    total_matches: sum('total_matches'),
    total_results: matches.length,
    token_count: matches.reduce((n, m) => n + m.content.token_count, 0),
    execution_time_ms: Math.round(sum('execution_time_ms') * 100) / 100,
    search_strategy: strategy,
    languages_found: languages,
    warnings: [...new Set(results.flatMap((r) => r.res.warnings.map((w) => tag(r.f, w))))].concat(problems),
    suggestions: matches.length ? [] : [...new Set(results.flatMap((r) => r.res.suggestions))],
    searched,
  };
}
