/**
 * The score breakdown of a result as tooltip Markdown (seed 003 FR-6, the same parts as the CLI's `--show-scores`
 * and MCP's `score_breakdown`). Pure: no vscode import, so it is unit-tested directly.
 */
import type { CodeMatch } from '../../server/src/lsp/protocol';

/** Escapes Markdown's special characters in plain text. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>#|]/g, (c) => '\\' + c);
}

export function breakdownMarkdown(m: Pick<CodeMatch, 'score_breakdown' | 'relevance_score'>): string {
  const b = m.score_breakdown;
  if (!b) return '';
  const lines = [`**Final score ${b.final.toFixed(3)}**`, ''];
  if (b.bm25) lines.push(`- BM25 ${b.bm25.score.toFixed(3)}${b.bm25.exact ? ' ⭐' : ''} — ${escapeMarkdown(b.bm25.reason)}`);
  if (b.semantic) lines.push(`- Semantic ${b.semantic.similarity.toFixed(3)} — ${escapeMarkdown(b.semantic.reason)}`);
  if (b.activation) lines.push(`- Activation ${b.activation.score.toFixed(3)} — ${escapeMarkdown(b.activation.reason)}`);
  if (b.git) lines.push(`- Git: ${escapeMarkdown(b.git)}`);
  return lines.join('\n') + '\n\n';
}
