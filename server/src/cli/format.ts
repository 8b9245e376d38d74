/** Renders engine results for people (table, markdown) and machines (json). */
import type { CodeMatch, FindCodeResponseSummary } from '../engine/api/results';
import type { EngineIndexSummary } from '../engine/engine';
import type { HealthReport } from '../engine/health';
import type { IndexStatus } from '../engine/engine';
import { CHUNK_TYPE_GROUPS } from '../engine/ranking/query';

export type OutputFormat = 'table' | 'json' | 'markdown';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['table', 'json', 'markdown'];

const PREVIEW_LINES = 8;

function preview(content: string, lines = PREVIEW_LINES): string[] {
  const all = content.replace(/\s+$/, '').split('\n');
  const shown = all.slice(0, lines);
  if (all.length > lines) shown.push(`… (${all.length - lines} more lines)`);
  return shown;
}

export function formatSearch(res: FindCodeResponseSummary, format: OutputFormat, query: string): string {
  if (format === 'json') return JSON.stringify(res, null, 2);
  const out: string[] = [];
  const warn = format === 'markdown' ? (w: string) => `> ⚠️ ${w}` : (w: string) => `⚠️  Warning: ${w}`;
  for (const w of res.warnings) out.push(warn(w));
  if (res.warnings.length) out.push('');
  if (!res.matches.length) {
    out.push(`Searching for: "${query}"`);
    out.push(res.summary.replace(/^No results for "[^"]*"/, 'No results found'));
    out.push('');
    out.push('Suggestions:');
    for (const s of res.suggestions) out.push(`  • ${s}`);
    return out.join('\n');
  }
  const ms = Math.round(res.execution_time_ms);
  if (format === 'markdown') {
    out.push(`## Results for \`${query}\``, '', `Found ${res.total_results} matches (${res.total_matches} candidates processed in ${ms}ms)`, '');
    res.matches.forEach((m, i) => {
      const title = m.content.symbol ? ` — \`${m.content.symbol}\` (${m.content.kind})` : ` (${m.content.kind})`;
      out.push(`### ${i + 1}. ${m.file.path}:${m.span[0]}-${m.span[1]}${title}`, '');
      out.push(`relevance ${m.relevance_score.toFixed(2)} · ${m.match_type} · ${m.content.semantic_class}`, '');
      out.push('```' + m.file.language, ...preview(m.content.content, 20), '```', '');
    });
    return out.join('\n');
  }
  out.push(`Found ${res.total_results} matches (${res.total_matches} candidates processed in ${ms}ms)`, '');
  res.matches.forEach((m, i) => {
    const sym = m.content.symbol ? ` ${m.content.symbol}` : '';
    out.push(`${i + 1}. ${m.file.path}:${m.span[0]}-${m.span[1]}${sym} (relevance: ${m.relevance_score.toFixed(2)}, type: ${m.content.semantic_class}, kind: ${m.content.kind})`);
    for (const line of preview(m.content.content)) out.push(`   ${line}`);
    out.push('');
  });
  return out.join('\n').replace(/\n+$/, '');
}

function table(rec: Record<string, number>): string {
  const entries = Object.entries(rec).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (!entries.length) return '  (none)';
  return entries.map(([k, v]) => `  ${k.padEnd(28)} ${String(v).padStart(7)}`).join('\n');
}

/**
 * Seed 003 FR-11 counts of the whole index by chunk type: knowledge = Markdown sections and text (conversation
 * logs included), code = everything else; reasoning chunks (agent memory) are not stored yet, so 0.
 */
export function chunkTypeCounts(byKind: Record<string, number>): { code: number; reasoning: number; knowledge: number } {
  const knowledge = new Set(CHUNK_TYPE_GROUPS.knowledge);
  let code = 0;
  let know = 0;
  for (const [kind, n] of Object.entries(byKind)) {
    if (knowledge.has(kind)) know += n;
    else code += n;
  }
  return { code, reasoning: 0, knowledge: know };
}

export function formatIndexSummary(s: EngineIndexSummary, totalByKind?: Record<string, number>): string {
  const out: string[] = [];
  out.push(`Indexed ${s.root} in ${(s.durationMs / 1000).toFixed(1)}s`);
  if (s.rebuiltBecause) out.push(`  rebuilt from scratch: ${s.rebuiltBecause}`);
  if (s.resumed) out.push(`  ${s.resumed}`);
  out.push(
    `  files: ${s.filesDiscovered} discovered, ${s.filesIndexed} indexed, ${s.filesUnchanged} unchanged, ${s.filesRemoved} removed`,
  );
  out.push(`  chunks: ${s.chunksCreated} created, ${s.chunksRemoved} removed; index now holds ${s.totalChunks} chunks from ${s.totalFiles} files`);
  if (totalByKind) {
    const t = chunkTypeCounts(totalByKind);
    out.push(`  in the index: ${t.code} code chunks, ${t.reasoning} reasoning chunks, ${t.knowledge} knowledge chunks; ${s.errors.length} errors, ${s.warnings.length} warnings`);
  }
  if (s.filesIndexed) out.push('', 'Files indexed by language:', table(s.filesByLanguage));
  if (s.chunksCreated) out.push('', 'Chunks created by kind:', table(s.chunksByKind));
  if (Object.keys(s.skippedByReason).length) out.push('', 'Skipped files by reason:', table(s.skippedByReason as Record<string, number>));
  const unknown = Object.entries(s.unknownExtensions).sort((a, b) => b[1] - a[1]).slice(0, 10);
  if (unknown.length) {
    out.push('', 'Other files seen, not indexed (top extensions; add more with discovery.extraExtensions in .quarry/config.yml):');
    out.push(unknown.map(([ext, n]) => `  ${(ext || '(none)').padEnd(28)} ${String(n).padStart(7)}`).join('\n'));
  }
  if (s.errors.length) {
    out.push('', `Errors (${s.errors.length}):`);
    for (const e of s.errors.slice(0, 20)) out.push(`  ${e.path}: ${e.operation} failed: ${e.message}`);
    if (s.errors.length > 20) out.push(`  … and ${s.errors.length - 20} more`);
  }
  if (s.embedding) {
    const e = s.embedding;
    out.push('', `Embeddings (${e.model}): ${e.embedded} embedded in ${(e.durationMs / 1000).toFixed(1)}s, ${e.cached} already cached` + (e.missing - e.embedded > 0 ? `, ${e.missing - e.embedded} left` : ''));
    if (e.stoppedBy) out.push(`  stopped: ${e.stoppedBy}. The code stays searchable with BM25; the next \`quarry index\` continues embedding.`);
  }
  if (s.filesDiscovered === 0) out.push('', 'No files matched the known extensions. Add custom extensions in .quarry/config.yml (discovery.extraExtensions).');
  return out.join('\n');
}

export function formatStatus(s: IndexStatus, health?: HealthReport): string {
  const out: string[] = [];
  if (health) out.push(`Health:       ${health.status}`);
  out.push(`Project:      ${s.root}`);
  out.push(`Index:        ${s.indexDir} (${(s.indexSizeBytes / 1048576).toFixed(1)} MB)`);
  out.push(`State:        ${s.indexing ? `indexing (pid ${s.indexing.pid}, started ${s.indexing.startedAt})` : s.exists ? 'idle' : 'not indexed yet (run `quarry index`)'}`);
  out.push(`Last indexed: ${s.lastIndexed ?? 'never'}${s.lastDurationMs != null ? ` (took ${(s.lastDurationMs / 1000).toFixed(1)}s)` : ''}`);
  out.push(`Files:        ${s.files}`);
  out.push(`Chunks:       ${s.chunks} (${s.conformances} conformance entries)`);
  if (s.chunks) out.push('', 'Chunks by language:', table(s.chunksByLanguage), '', 'Chunks by kind:', table(s.chunksByKind));
  if (health) {
    const sv = health.services;
    out.push('', 'Services:');
    out.push(`  vector store        ${sv.vector_store.status}${sv.vector_store.latency_ms != null ? ` (${sv.vector_store.latency_ms} ms)` : ''}`);
    out.push(`  lexical (BM25)      ${sv.sparse_embedding.status}`);
    out.push(`  embedding provider  ${sv.embedding_provider.status === 'none' ? 'none (BM25 only)' : `${sv.embedding_provider.status} · ${sv.embedding_provider.model} · breaker ${sv.embedding_provider.circuit_breaker_state}`}`);
    out.push(`  reranker            ${sv.reranking.status === 'none' ? 'none' : `${sv.reranking.status} · ${sv.reranking.model}`}`);
  }
  if (s.problems.length) out.push('', 'Problems:', ...s.problems.map((p) => `  - ${p}`));
  return out.join('\n');
}

/** Seed 003 FR-5.2 type abbreviations. */
function typeLabel(kind: string): string {
  if (['function', 'constructor'].includes(kind)) return 'function';
  if (kind === 'method') return 'method';
  if (['class', 'struct', 'enum', 'interface', 'protocol', 'trait', 'extension', 'impl', 'type_alias'].includes(kind)) return 'class';
  if (['section', 'text'].includes(kind)) return 'know';
  return 'code';
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Seed 003 FR-5.5: the compact table (File | Type | Name | Lines | Score). */
export function formatLegacy(res: FindCodeResponseSummary): string {
  const rows = res.matches.map((m) => [basename(m.file.path), typeLabel(m.content.kind), m.content.symbol || '-', `${m.span[0]}-${m.span[1]}`, m.relevance_score.toFixed(3)]);
  const head = ['File', 'Type', 'Name', 'Lines', 'Score'];
  const widths = head.map((h, i) => Math.min(40, Math.max(h.length, ...rows.map((r) => r[i].length))));
  const line = (cells: string[]) => cells.map((c, i) => (c.length > widths[i] ? c.slice(0, widths[i] - 1) + '…' : c.padEnd(widths[i]))).join(' | ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

/** Seed 003 FR-6.2: how the keyword channel matched. */
function bm25Reason(m: CodeMatch, queryWords: string[]): string {
  const text = `${m.content.content}\n${m.content.symbol}`.toLowerCase();
  const exact = queryWords.find((w) => w.length > 2 && new RegExp(`(^|[^a-z0-9_])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^a-z0-9_]|$)`).test(text));
  if (exact) return `exact keyword match on "${exact}"`;
  const present = queryWords.filter((w) => text.includes(w)).length;
  return present * 2 >= queryWords.length ? 'strong term overlap' : 'partial match';
}

/** Seed 003 FR-6.3 thresholds. */
function semanticReason(sim: number): string {
  if (sim >= 0.9) return 'very high conceptual relevance';
  if (sim >= 0.8) return 'high conceptual relevance';
  if (sim >= 0.7) return 'moderate conceptual relevance';
  return 'low conceptual relevance';
}

/**
 * Seed 003 FR-6: a box per result with the final score and each channel's part (box-drawing characters, width
 * from the terminal, 80 by default, at most 120), then every ranking effect from the explanation.
 */
export function formatShowScores(res: FindCodeResponseSummary, query: string, width = Math.min(120, Math.max(60, process.stdout.columns || 80))): string {
  const words = query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const inner = width - 4;
  const fit = (s: string) => (s.length > inner ? s.slice(0, inner - 1) + '…' : s.padEnd(inner));
  const out: string[] = [];
  for (const m of res.matches) {
    const title = `─ ${basename(m.file.path)} | ${typeLabel(m.content.kind)} | ${m.content.symbol || '-'} (Lines ${m.span[0]}-${m.span[1]}) `;
    out.push(`┌${title.length > width - 2 ? title.slice(0, width - 3) + '…' : title}${'─'.repeat(Math.max(0, width - 2 - title.length))}┐`);
    const body: string[] = [`Final Score: ${m.relevance_score.toFixed(3)} (raw ${m.score})`];
    const bm25 = m.explanation.find((l) => l.startsWith('bm25 '));
    const dense = m.explanation.map((l) => l.match(/dense ([\d.]+)/) ?? l.match(/cos ([\d.]+)/)).find(Boolean);
    const channels: string[] = [];
    if (bm25) channels.push(`BM25:     ${bm25.match(/^bm25 ([\d.]+)/)![1].padEnd(8)} (${bm25Reason(m, words)})`);
    if (dense) channels.push(`Semantic: ${Number(dense[1]).toFixed(3).padEnd(8)} (${semanticReason(Number(dense[1]))})`);
    channels.forEach((c, i) => body.push(`  ${i === channels.length - 1 ? '└─' : '├─'} ${c}`));
    const effects = m.explanation.filter((l) => !l.startsWith('bm25 '));
    if (effects.length) body.push('Ranking:');
    effects.forEach((e, i) => body.push(`  ${i === effects.length - 1 ? '└─' : '├─'} ${e}`));
    for (const b of body) out.push(`│ ${fit(b)} │`);
    out.push(`└${'─'.repeat(width - 2)}┘`);
  }
  return out.join('\n');
}
