/** Renders engine results for people (table, markdown) and machines (json). */
import type { CodeMatch, FindCodeResponseSummary } from '../engine/api/results';
import type { EngineIndexSummary } from '../engine/engine';
import type { HealthReport } from '../engine/health';
import type { IndexStatus } from '../engine/engine';
import type { SkippedRecord } from '../engine/indexer/indexer';
import { skippedForPeople } from '../engine/indexer/skippedReport';
import { formatSearchTable, nameLocation, printable, terminalDisplay } from './display';

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
  if (format === 'table') return formatSearchTable(res, query, {}, terminalDisplay());
  const out: string[] = [];
  for (const w of res.warnings) out.push(`> ⚠️ ${w}`);
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
  {
    out.push(`## Results for \`${query}\``, '', `Found ${res.total_results} matches (${res.total_matches} candidates processed in ${ms}ms)`, '');
    res.matches.forEach((m, i) => {
      const title = (m.content.symbol ? ` — \`${m.content.symbol}\`` : '') + ` (${m.content.kind}, lines ${m.span[0]}-${m.span[1]})`;
      out.push(`### ${i + 1}. ${printable(nameLocation(m))}${title}`, '');
      out.push(`relevance ${m.relevance_score.toFixed(2)} · ${m.why ? `${m.why} · ` : ''}${m.match_type} · ${m.content.semantic_class}`, '');
      out.push('```' + m.file.language, ...preview(m.content.content, 20), '```', '');
    });
    return out.join('\n');
  }
}

function table(rec: Record<string, number>): string {
  const entries = Object.entries(rec).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (!entries.length) return '  (none)';
  return entries.map(([k, v]) => `  ${k.padEnd(28)} ${String(v).padStart(7)}`).join('\n');
}

export function formatIndexSummary(s: EngineIndexSummary, totals?: { code: number; reasoning: number; knowledge: number }): string {
  const out: string[] = [];
  out.push(`Indexed ${s.root} in ${(s.durationMs / 1000).toFixed(1)}s`);
  if (s.rebuiltBecause) out.push(`  rebuilt from scratch: ${s.rebuiltBecause}`);
  if (s.resumed) out.push(`  ${s.resumed}`);
  out.push(
    `  files: ${s.filesDiscovered} discovered, ${s.filesIndexed} indexed, ${s.filesUnchanged} unchanged, ${s.filesRemoved} removed`,
  );
  out.push(`  chunks: ${s.chunksCreated} created, ${s.chunksRemoved} removed; index now holds ${s.totalChunks} chunks from ${s.totalFiles} files`);
  if (totals) {
    out.push(`  in the index: ${totals.code} code chunks, ${totals.reasoning} reasoning chunks, ${totals.knowledge} knowledge chunks; ${s.errors.length} errors, ${s.warnings.length} warnings`);
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
    for (const e of s.errors.slice(0, 20)) out.push(`  ${printable(e.path)}: ${e.operation} failed: ${e.message}`);
    if (s.errors.length > 20) out.push(`  … and ${s.errors.length - 20} more`);
  }
  if (s.git && !s.git.disabled && s.git.filesRefreshed) {
    const g = s.git;
    out.push('', `Git metadata: ${g.filesRefreshed} files refreshed in ${(g.durationMs / 1000).toFixed(1)}s (${g.tracked} tracked, ${g.untracked} untracked, ${g.unavailable} unavailable)`);
  }
  if (s.embedding) {
    const e = s.embedding;
    out.push('', `Embeddings (${e.model}): ${e.embedded} embedded in ${(e.durationMs / 1000).toFixed(1)}s, ${e.cached} already cached` + (e.missing - e.embedded > 0 ? `, ${e.missing - e.embedded} left` : ''));
    if (e.stoppedBy) out.push(`  stopped: ${e.stoppedBy}. The code stays searchable with BM25; the next \`quarry index\` continues embedding.`);
  }
  if (s.filesDiscovered === 0) out.push('', 'No files matched the known extensions. Add custom extensions in .quarry/config.yml (discovery.extraExtensions).');
  return out.join('\n');
}

/** How many skipped files the text status names (`quarry status --json` lists them all). */
export const STATUS_SKIPPED_SHOWN = 20;
/** The skipped files of the last whole-workspace run: the notable reasons first, then by path; capped. */
function skippedLines(r: SkippedRecord): string[] {
  const { files, total } = skippedForPeople(r);
  const out = ['', `Skipped files (${total}, last whole-workspace run ${r.at}; unknown extensions only counted):`];
  for (const f of files.slice(0, STATUS_SKIPPED_SHOWN)) out.push(`  ${printable(f.path)}  ${f.reason}${f.detail ? ` (${printable(f.detail)})` : ''}`);
  if (total > STATUS_SKIPPED_SHOWN) out.push(`  … and ${total - STATUS_SKIPPED_SHOWN} more; \`quarry status --json\` lists all`);
  return out;
}

export function formatStatus(s: IndexStatus, health?: HealthReport, skipped?: SkippedRecord | null): string {
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
  if (skipped?.files.length) out.push(...skippedLines(skipped));
  if (s.problems.length) out.push('', 'Problems:', ...s.problems.map((p) => `  - ${p}`));
  if (s.notes?.length) out.push('', 'Notes:', ...s.notes.map((p) => `  - ${p}`));
  return out.join('\n');
}
