/**
 * The per-result score breakdown every door shows (seed 003 FR-6): the CLI's `--show-scores` boxes, the extension's
 * tooltips and MCP's text rendering all read `CodeMatch.score_breakdown`, built here from a ranked candidate.
 *
 * - keyword (BM25, raw — FR-2.2): "exact keyword match on "term"" when a query word (3+ characters; the one that
 *   counted most in the keyword score first; function words such as "the" only when the query has nothing else) occurs
 *   as a whole word in the chunk, else "strong term overlap" when at least half of those words occur, else "partial
 *   match" (FR-6.2);
 * - semantic (cosine similarity): very high >= 0.9, high >= 0.8, moderate >= 0.7, else low conceptual relevance
 *   (FR-6.3);
 * - activation (normalised within the search): accesses, commits, last use (FR-6.4);
 * - git: "23 commits, last modified 2 days ago", "untracked", "unavailable".
 */
import type { Candidate } from '../ranking/candidate';
import type { ScoreBreakdown } from '../api/results';
import { describeActivation, relativeTime } from '../ranking/stages/activation';
import { FUNCTION_WORDS, partTokens, stemOf } from '../tokenize/codeTokenizer';

export type { ScoreBreakdown };

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** Whether the character (a UTF-16 code unit or pair) around `at` continues a word: not a whole-word boundary. */
function wordCharAt(text: string, at: number, before: boolean): boolean {
  if (at < 0 || at >= text.length) return false;
  const code = text.charCodeAt(at);
  if (code < 128) return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
  // a surrogate pair is read whole (the character before `at` ends with its low half)
  const start = before && code >= 0xdc00 && code <= 0xdfff && at > 0 ? at - 1 : at;
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(start)!));
}

/** Whether `word` occurs in `text` as a whole word (neither side a letter, digit or underscore). */
export function hasWholeWord(text: string, word: string): boolean {
  if (!word) return false;
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    if (!wordCharAt(text, at - 1, true) && !wordCharAt(text, at + word.length, false)) return true;
  }
  return false;
}

/**
 * FR-6.2's wording for the keyword channel. Whole words are found by `indexOf` and a look at the characters around
 * each occurrence (a Unicode regular expression per query word over every result's text was about 1 ms of each
 * description search through MCP on the Go tree).
 */
export function keywordReason(text: string, queryWords: readonly string[], weight?: ReadonlyMap<string, number>): { reason: string; exact: boolean } {
  const lower = text.toLowerCase();
  let words = [...new Set(queryWords.map((w) => w.toLowerCase()))];
  // the word that counted most in the keyword score first (`schedulerlike` before `implements` in "what implements SchedulerLike"), then query order
  if (weight?.size) words = words.map((w, i) => ({ w, i, x: weight.get(w) ?? 0 })).sort((a, b) => b.x - a.x || a.i - b.i).map((e) => e.w);
  // the word named is the first content word found ("limit", not "the"); only a query of function words alone names
  // one of them (a function word found whole says nothing when the query's content words are not)
  const content = words.filter((w) => !FUNCTION_WORDS.has(w));
  const counted = content.length ? content : words;
  const exact = counted.find((w) => w.length > 2 && hasWholeWord(lower, w));
  if (exact) return { reason: `exact keyword match on "${exact}"`, exact: true };
  const present = counted.filter((w) => lower.includes(w)).length;
  return { reason: present * 2 >= counted.length ? 'strong term overlap' : 'partial match', exact: false };
}

/** FR-6.3's wording for the semantic channel. */
export function semanticReason(similarity: number): string {
  if (similarity >= 0.9) return 'very high conceptual relevance';
  if (similarity >= 0.8) return 'high conceptual relevance';
  if (similarity >= 0.7) return 'moderate conceptual relevance';
  return 'low conceptual relevance';
}

export function gitSummary(git: { status: string; commits: number; lastModifiedMs: number }, now = Date.now()): string {
  if (git.status === 'untracked') return 'untracked (not in git)';
  if (git.status === 'unavailable') return 'unavailable (git failed for this file)';
  const when = git.lastModifiedMs > 0 ? `, last modified ${relativeTime(git.lastModifiedMs, now)}` : '';
  return `${git.commits} commit${git.commits === 1 ? '' : 's'}${when}`;
}

/** The query's words as the keyword channel sees them. */
export function queryWords(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/**
 * What each query word counted in the keyword score: its largest contribution in any field, as written, as one of its
 * parts or as a stem (`SchedulerLike` counts through `scheduler`, `like`, `schedul`; the `=`, `~`, `^` marks off).
 */
function wordWeights(matches: ReadonlyArray<{ token: string; contribution: number }>, words: readonly string[]): Map<string, number> {
  const byToken = new Map<string, number>();
  for (const m of matches) {
    const token = m.token.replace(/^[=~^]/, '');
    if (m.contribution > (byToken.get(token) ?? 0)) byToken.set(token, m.contribution);
  }
  const out = new Map<string, number>();
  for (const w of words) {
    const lower = w.toLowerCase();
    const parts = partTokens(w);
    const forms = new Set([lower, stemOf(lower), ...parts, ...parts.map(stemOf)]);
    let best = 0;
    for (const f of forms) best = Math.max(best, byToken.get(f) ?? 0);
    if (best > (out.get(lower) ?? 0)) out.set(lower, best);
  }
  return out;
}

export function scoreBreakdown(c: Candidate, relevance: number, words: readonly string[], now = Date.now()): ScoreBreakdown {
  const out: ScoreBreakdown = { final: relevance };
  const chunk = c.chunk;
  if (c.bm25 && chunk) {
    const { reason, exact } = keywordReason(`${chunk.symbol}\n${chunk.content}`, words, wordWeights(c.bm25.matches, words));
    out.bm25 = { score: round3(c.bm25.score), reason, exact };
  }
  if (c.dense) out.semantic = { similarity: round3(c.dense.similarity), reason: semanticReason(c.dense.similarity) };
  const a = c.activation;
  if (a && a.raw !== undefined) out.activation = { score: a.normalized ?? 0, reason: describeActivation(a, now) };
  if (a?.git) out.git = gitSummary(a.git, now);
  return out;
}

/** The breakdown on one line of plain text (MCP's text rendering): `BM25 9.5 (exact keyword match on "x"); …`. */
export function breakdownLine(b: ScoreBreakdown): string {
  const parts: string[] = [];
  if (b.bm25) parts.push(`BM25 ${b.bm25.score} (${b.bm25.reason})`);
  if (b.semantic) parts.push(`semantic ${b.semantic.similarity} (${b.semantic.reason})`);
  if (b.activation) parts.push(`activation ${b.activation.score} (${b.activation.reason})`);
  if (b.git) parts.push(`git: ${b.git}`);
  return parts.join('; ');
}
