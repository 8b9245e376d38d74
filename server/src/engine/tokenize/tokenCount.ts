/**
 * Real token counting (OpenAI o200k_base BPE, shipped inside the gpt-tokenizer package; no download).
 * Used for chunk sizes (seed 002 FR-006/FR-039) and for response token budgets.
 */
import { countTokens as bpeCount } from 'gpt-tokenizer/encoding/o200k_base';

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return bpeCount(text);
}

/**
 * A cheap upper-bound-ish estimate (about 3.5 characters per token for code) for hot loops that only
 * need to know whether a piece is roughly within a budget before paying for an exact count.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.5);
}
