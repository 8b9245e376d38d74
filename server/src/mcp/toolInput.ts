/**
 * The tools' argument schemas are strict: an argument a tool does not take is an error that names it, says what the
 * tool calls that setting when it is a known synonym, and lists the arguments the tool does take. With the MCP SDK's
 * default (unknown keys dropped), an agent that asked `find_code` for `limit: 3` silently got 50 matches and 10,000
 * tokens, and `find_symbol`'s `max_results` was ignored the same way. The JSON schema the tools list advertises
 * `additionalProperties: false` accordingly.
 */
import { z } from 'zod';

/** What agents call a tool's settings, by the tool's own name for them (only names a tool takes are suggested). */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  max_results: ['limit', 'top_k', 'topK', 'k', 'n', 'count', 'max', 'maxResults', 'num_results', 'size'],
  limit: ['max_results', 'top_k', 'topK', 'k', 'n', 'count', 'max', 'maxResults', 'num_results', 'size'],
  token_limit: ['tokenLimit', 'max_tokens', 'maxTokens', 'tokens'],
  include_tests: ['includeTests', 'tests', 'with_tests'],
  focus_languages: ['languages', 'language', 'lang', 'langs', 'focusLanguages'],
  query: ['q', 'text', 'search', 'pattern'],
  success_score: ['successScore', 'score'],
  pattern_type: ['patternType', 'type'],
  usage_count: ['usageCount'],
};

/**
 * The error for arguments a tool does not take (the SDK puts "Invalid arguments for tool <name>:" before it), e.g.
 * `"limit" is not an argument of this tool (use "max_results" for "limit"); its arguments are query, …`.
 */
export function unknownArgumentsMessage(unknown: readonly string[], accepted: readonly string[]): string {
  const hints: string[] = [];
  for (const key of unknown) {
    const meant = accepted.find((a) => a !== key && SYNONYMS[a]?.includes(key));
    if (meant) hints.push(`use "${meant}" for "${key}"`);
  }
  const names = unknown.map((k) => `"${k}"`).join(', ');
  const not = unknown.length === 1 ? 'is not an argument' : 'are not arguments';
  const takes = accepted.length ? `its arguments are ${accepted.join(', ')}` : 'it takes none';
  return `${names} ${not} of this tool${hints.length ? ` (${hints.join('; ')})` : ''}; ${takes}.`;
}

/** A tool's argument schema: the shape as a strict object whose unknown-key error is `unknownArgumentsMessage`. */
export function toolInput<S extends z.ZodRawShape>(shape: S) {
  const accepted = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownArgumentsMessage(issue.keys, accepted) : undefined),
  });
}
