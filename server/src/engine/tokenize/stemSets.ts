/**
 * Sets of stems of a text (what the ranking's word-coverage checks compare: the learned scorer's features, the
 * plain-language "matches 3 of 4 words" of a result), with the two memos that keep them cheap on repeated searches.
 */
import { FUNCTION_WORDS, identifierParts, stemOf, stemTokens, words } from './codeTokenizer';

/** Memo of stems by part: a search stems thousands of repeated words; Porter2 is the cost. Bounded. */
const stems = new Map<string, string>();

/** The distinct stems of a text (the same set as `new Set(stemTokens(text))`, faster). */
export function stemSet(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of new Set(words(text))) {
    let s = stems.get(word);
    if (s === undefined) {
      if (stems.size > 200_000) stems.clear();
      // One entry per distinct word: its parts' stems, joined (a word rarely has more than three parts).
      stems.set(word, (s = identifierParts(word).map(stemOf).join(' ')));
    }
    if (!s) continue;
    if (s.includes(' ')) for (const x of s.split(' ')) out.add(x);
    else out.add(s);
  }
  return out;
}

/** A query's content stems: the lower-cased parts of its words, stemmed, without function words ("the", "how"). */
export function queryStems(text: string): Set<string> {
  const content = words(text).filter((w) => !FUNCTION_WORDS.has(w.toLowerCase())).join(' ');
  return new Set(stemTokens(content));
}

/**
 * The stems of a chunk's text, remembered by content hash (bounded): a chunk's body is its longest text, and the
 * searches of one workspace keep meeting the same candidates (stemming 50 bodies was most of the scorer's time).
 */
const BODY_STEMS = new Map<string, Set<string>>();
const MAX_BODY_STEMS = 4_096;

export function contentStems(chunk: { content: string; contentHash?: string }): Set<string> {
  const key = chunk.contentHash;
  if (!key) return stemSet(chunk.content);
  let set = BODY_STEMS.get(key);
  if (!set) {
    if (BODY_STEMS.size >= MAX_BODY_STEMS) BODY_STEMS.delete(BODY_STEMS.keys().next().value!);
    BODY_STEMS.set(key, (set = stemSet(chunk.content)));
  }
  return set;
}

