/**
 * The pattern log (`.quarry/memory/patterns.jsonl`, memory/patterns.ts) as reasoning chunks (seed 003 FR-4):
 * one chunk per searchable pattern (success_score >= 0.5), kind `reasoning`, source `memory`.
 *
 * - content = description and context (what is embedded and matched, FR-4.2); the pattern type leads as a label;
 * - symbol = the pattern id (an identifier search for it finds it), name = a short title from the description,
 *   container = the pattern type;
 * - metadata (FR-4.3): pattern_id, pattern_type, success_score, usage_count, created_at, updated_at;
 * - position = the line of the record event that holds the pattern's current fields.
 */
import type { ChunkDraft, SourceText } from './common';
import { parsePatternLog } from '../memory/patterns';

/** The description's first sentence, at most 10 words. */
export function patternTitle(description: string): string {
  const first = description.split(/(?<=[.!?])\s|\n/)[0] ?? description;
  const words = first.replace(/[.!?:]+$/, '').split(/\s+/).filter(Boolean);
  return words.length > 10 ? words.slice(0, 10).join(' ') + '…' : words.join(' ');
}

export function chunkPatternLog(src: SourceText): ChunkDraft[] {
  const out: ChunkDraft[] = [];
  for (const p of parsePatternLog(src.text).values()) {
    if (!p.searchable) continue;
    const content = `${p.patternType} pattern: ${p.description}` + (p.context ? `\n\nContext: ${p.context}` : '');
    out.push({
      kind: 'reasoning',
      symbol: p.id,
      name: patternTitle(p.description),
      container: p.patternType,
      symbols: [],
      references: [],
      conformances: [],
      doc: '',
      signature: '',
      semanticClass: 'DOCUMENTATION_STRUCTURED',
      source: 'memory',
      start: p.start,
      end: p.end,
      content,
      metadata: {
        pattern_id: p.id,
        pattern_type: p.patternType,
        success_score: p.successScore,
        usage_count: p.usageCount,
        created_at: p.createdAt,
        updated_at: p.updatedAt,
      },
    });
  }
  return out;
}
