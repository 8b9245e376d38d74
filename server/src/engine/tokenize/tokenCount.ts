/**
 * Real token counting (OpenAI o200k_base BPE, shipped inside the gpt-tokenizer package; no download).
 * Used for chunk sizes (seed 002 FR-006/FR-039) and for response token budgets. The encoder's tables are
 * large, so they load on first use (a search that only reads stored counts never pays for them).
 */
type Counter = (text: string) => number;
let counter: Counter | undefined;

function load(): Counter {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require('gpt-tokenizer/encoding/o200k_base') as { countTokens: (text: string, opts?: { disallowedSpecial?: Set<string> }) => number };
  // Source code may contain special-token strings such as `<|endoftext|>` (ML code does): they are counted as the
  // plain text they are, never refused (refusing made whole files fail to index).
  const none = new Set<string>();
  return (text) => mod.countTokens(text, { disallowedSpecial: none });
}

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  counter ??= load();
  if (text.length > SHORT) return counter(text);
  // chunking counts every line of every file, and code repeats its short lines (`}`, `return nil`, imports): BPE once
  let n = SHORT_COUNTS.get(text);
  if (n === undefined) {
    if (SHORT_COUNTS.size >= 100_000) SHORT_COUNTS.clear();
    SHORT_COUNTS.set(text, (n = counter(text)));
  }
  return n;
}

/** Texts up to this length have their counts remembered (bounded). */
const SHORT = 160;
const SHORT_COUNTS = new Map<string, number>();

/**
 * A cheap estimate (about 3.5 characters per token for code) for hot loops that only need to know
 * whether a piece is roughly within a budget before paying for an exact count.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.5);
}
