/**
 * Search results for people at a terminal (seed 003 FR-5, FR-6, §6.3):
 * - the results table File | Type | Name | Lines | Score | Commits | Last Modified (FR-5.1), sized to the terminal;
 * - `--legacy`: the compact table without the git columns (FR-5.5);
 * - `--show-scores`: a box per result with the score breakdown (FR-6.1), 80 columns by default, at most 120;
 * - `--preview`: the code of each result under the table.
 * Colour only on a TTY, never with NO_COLOR (https://no-color.org) or TERM=dumb.
 */
import type { CodeMatch, FindCodeResponseSummary } from '../engine/api/results';
import { relativeTime } from '../engine/ranking/stages/activation';

export interface DisplayOptions {
  /** Columns available (tables) — boxes use min(120, max(80, width)). */
  width: number;
  color: boolean;
  now?: number;
}

export function terminalDisplay(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): DisplayOptions {
  const tty = !!stream.isTTY;
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return { width: tty && stream.columns ? Math.max(80, stream.columns) : 200, color: tty && !noColor && env.TERM !== 'dumb' };
}

// ── text width, truncation, colour ───────────────────────────────────────────────────────────────────────────

/** Columns a string takes in a terminal: wide emoji and CJK count 2, combining marks 0. */
export function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if ((cp >= 0x300 && cp <= 0x36f) || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f)) continue;
    if (cp === 0x2b50 || (cp >= 0x1f300 && cp <= 0x1faff) || (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xff00 && cp <= 0xff60)) w += 2;
    else w += 1;
  }
  return w;
}

/** Cuts to `max` columns with '…' at the end (or at the start, for paths). */
export function fit(s: string, max: number, from: 'end' | 'start' = 'end'): string {
  if (displayWidth(s) <= max) return s;
  if (max <= 1) return '…'.slice(0, max);
  const chars = [...s];
  let out = '';
  let w = 0;
  const seq = from === 'end' ? chars : chars.reverse();
  for (const ch of seq) {
    const cw = displayWidth(ch);
    if (w + cw > max - 1) break;
    out = from === 'end' ? out + ch : ch + out;
    w += cw;
  }
  return from === 'end' ? out + '…' : '…' + out;
}

function pad(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - displayWidth(s)));
}

const ANSI = { bold: [1, 22], dim: [2, 22], cyan: [36, 39], blue: [34, 39], magenta: [35, 39], green: [32, 39], yellow: [33, 39], gray: [90, 39] } as const;
type Style = keyof typeof ANSI;
function paint(on: boolean, style: Style, s: string): string {
  return on && s ? `\u001b[${ANSI[style][0]}m${s}\u001b[${ANSI[style][1]}m` : s;
}
const TYPE_STYLE: Record<string, Style> = { function: 'cyan', method: 'blue', class: 'magenta', know: 'green', reas: 'yellow', code: 'gray' };

// ── what each column shows ───────────────────────────────────────────────────────────────────────────────────

/** Seed 003 FR-5.2 type abbreviations. */
export function typeLabel(kind: string): string {
  if (['function', 'constructor'].includes(kind)) return 'function';
  if (kind === 'method') return 'method';
  if (['class', 'struct', 'enum', 'interface', 'protocol', 'trait', 'extension', 'impl', 'type_alias'].includes(kind)) return 'class';
  if (['section', 'text'].includes(kind)) return 'know';
  if (kind === 'reasoning') return 'reas';
  return 'code';
}

const isMemory = (m: CodeMatch) => m.content.kind === 'reasoning';
const isKnowledge = (m: CodeMatch) => typeLabel(m.content.kind) === 'know';

/** Control characters (a newline or tab in a file name) escaped, so that one row stays one line. */
export function printable(s: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f]/.test(s) ? JSON.stringify(s).slice(1, -1) : s;
}

/**
 * `path:line:col` of where a match is named (issue 18: its declaration's identifier, a section's heading title), the
 * form terminals and editors open at that position; `path:line:1` for a match without a name range.
 */
export function nameLocation(m: Pick<CodeMatch, 'file' | 'span' | 'name_range'>): string {
  const r = m.name_range as CodeMatch['name_range'] | undefined;
  return r ? `${m.file.path}:${r.line}:${r.column}` : `${m.file.path}:${m.span[0]}:1`;
}

function fileCell(m: CodeMatch): string {
  return printable(isMemory(m) ? m.content.symbol : nameLocation(m));
}

function nameCell(m: CodeMatch): string {
  if (isMemory(m)) return titleOf(m) || m.content.symbol || '-';
  if (isKnowledge(m)) return headingOf(m) || m.content.symbol || '-';
  return m.matched_symbol || m.content.symbol || '-';
}

function titleOf(m: CodeMatch): string {
  return m.content.signature || firstLine(m.content.content.replace(/^[\w-]+ pattern: /, ''));
}

function headingOf(m: CodeMatch): string {
  const meta = m.content.metadata;
  if (meta?.phase_name !== undefined) return `Phase ${meta.phase_number}: ${meta.phase_name}`.replace(/: $/, '');
  return m.content.signature.replace(/^#+\s*/, '') || '';
}

function firstLine(s: string): string {
  const line = s.split('\n')[0] ?? '';
  return line.length > 60 ? line.slice(0, 59) + '…' : line;
}

function linesCell(m: CodeMatch): string {
  return isMemory(m) || isKnowledge(m) ? '-' : `${m.span[0]}-${m.span[1]}`;
}

/** FR-5.3. */
function commitsCell(m: CodeMatch): string {
  if (isMemory(m) || isKnowledge(m) || !m.git) return '-';
  if (m.git.status === 'untracked') return '- (untracked)';
  if (m.git.status === 'unavailable') return '- (unavailable)';
  return String(m.git.commits ?? 0);
}

/** FR-5.4. */
function modifiedCell(m: CodeMatch, now: number): string {
  const meta = m.content.metadata;
  if (isMemory(m)) return String(meta?.created_at ?? '').slice(0, 10) || '-';
  if (isKnowledge(m)) return String(meta?.conversation_date ?? '') || '-';
  if (!m.git) return '-';
  if (m.git.status === 'untracked') return '- (untracked)';
  if (m.git.status === 'unavailable') return '- (unavailable)';
  return m.git.last_modified ? relativeTime(Date.parse(m.git.last_modified), now) : '-';
}

// ── tables ───────────────────────────────────────────────────────────────────────────────────────────────────

interface Column {
  head: string;
  cell(m: CodeMatch): string;
  /** Shrinks first when the table is too wide (from the start for paths). */
  shrink?: 'start' | 'end';
  min?: number;
}

function renderTable(matches: readonly CodeMatch[], columns: Column[], opts: DisplayOptions): string {
  const rows = matches.map((m) => columns.map((c) => c.cell(m)));
  const widths = columns.map((c, i) => Math.max(displayWidth(c.head), ...rows.map((r) => displayWidth(r[i]))));
  const sep = 3 * (columns.length - 1);
  // too wide: take columns from the shrinkable ones, the widest first, down to their minimum
  for (let over = widths.reduce((a, b) => a + b, 0) + sep - opts.width; over > 0; ) {
    let widest = -1;
    columns.forEach((c, i) => {
      if (c.shrink && widths[i] > (c.min ?? 12) && (widest < 0 || widths[i] > widths[widest])) widest = i;
    });
    if (widest < 0) break;
    const take = Math.min(over, widths[widest] - (columns[widest].min ?? 12));
    widths[widest] -= take;
    over -= take;
  }
  const line = (cells: string[], style?: (s: string, i: number) => string) =>
    cells
      .map((c, i) => {
        const cut = displayWidth(c) > widths[i] ? fit(c, widths[i], columns[i].shrink ?? 'end') : c;
        const padded = i === cells.length - 1 ? cut : pad(cut, widths[i]);
        return style ? style(padded, i) : padded;
      })
      .join(' | ')
      .trimEnd();
  const typeCol = columns.findIndex((c) => c.head === 'Type');
  const out = [line(columns.map((c) => c.head), (s) => paint(opts.color, 'bold', s))];
  out.push(widths.map((w) => '-'.repeat(w)).join('-+-'));
  for (const r of rows) out.push(line(r, (s, i) => (i === typeCol ? paint(opts.color, TYPE_STYLE[r[i]] ?? 'gray', s) : s)));
  return out.join('\n');
}

function baseColumns(): Column[] {
  return [
    { head: 'File', cell: fileCell, shrink: 'start', min: 16 },
    { head: 'Type', cell: (m) => typeLabel(m.content.kind) },
    { head: 'Name', cell: nameCell, shrink: 'end', min: 12 },
    { head: 'Lines', cell: linesCell },
    { head: 'Score', cell: (m) => m.relevance_score.toFixed(3) },
  ];
}

/** FR-5.1: the results table with the git columns. */
export function formatResultsTable(res: FindCodeResponseSummary, opts: DisplayOptions): string {
  const now = opts.now ?? Date.now();
  return renderTable(res.matches, [...baseColumns(), { head: 'Commits', cell: commitsCell }, { head: 'Last Modified', cell: (m) => modifiedCell(m, now) }], opts);
}

/** FR-5.5: the compact table (File | Type | Name | Lines | Score). */
export function formatLegacy(res: FindCodeResponseSummary, opts: DisplayOptions): string {
  return renderTable(res.matches, baseColumns(), opts);
}

// ── score boxes ──────────────────────────────────────────────────────────────────────────────────────────────

/** FR-6.1: one box per result; the ranking effects (boosts, demotions) follow the channels. */
export function formatShowScores(res: FindCodeResponseSummary, opts: DisplayOptions): string {
  const width = Math.min(120, Math.max(80, opts.width));
  const inner = width - 4;
  const out: string[] = [];
  for (const m of res.matches) {
    const lines = linesCell(m) === '-' ? '' : ` (Lines ${m.span[0]}-${m.span[1]})`;
    const title = fit(`─ ${printable(isMemory(m) ? m.content.symbol : basename(m.file.path))} | ${typeLabel(m.content.kind)} | ${nameCell(m)}${lines} `, width - 2);
    out.push(`┌${title}${'─'.repeat(Math.max(0, width - 2 - displayWidth(title)))}┐`);
    const b = m.score_breakdown;
    const body: string[] = [`Final Score: ${(b?.final ?? m.relevance_score).toFixed(3)}`];
    const channels: string[] = [];
    const value = (x: number) => pad(x.toFixed(3), 8);
    if (b?.bm25) channels.push(`BM25:       ${value(b.bm25.score)} ${b.bm25.exact ? '⭐' : '  '} (${b.bm25.reason})`);
    if (b?.semantic) channels.push(`Semantic:   ${value(b.semantic.similarity)}    (${b.semantic.reason})`);
    if (b?.activation) channels.push(`Activation: ${value(b.activation.score)}    (${b.activation.reason})`);
    channels.forEach((c, i) => body.push(`  ${i === channels.length - 1 ? '└─' : '├─'} ${c}`));
    if (b?.git) body.push(`Git: ${b.git}`);
    const effects = m.explanation.filter((l) => !l.startsWith('bm25 '));
    if (effects.length) body.push('Ranking:');
    effects.forEach((e, i) => body.push(`  ${i === effects.length - 1 ? '└─' : '├─'} ${e}`));
    for (const l of body) out.push(`│ ${pad(fit(l, inner), inner)} │`);
    out.push(`└${'─'.repeat(width - 2)}┘`);
  }
  return out.join('\n');
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

// ── the whole answer ─────────────────────────────────────────────────────────────────────────────────────────

export interface TableView {
  legacy?: boolean;
  showScores?: boolean;
  preview?: boolean;
}

const PREVIEW_LINES = 8;

/** What `quarry search` prints in table form (no results: the message and suggestions, UT-DISPLAY-10). */
export function formatSearchTable(res: FindCodeResponseSummary, query: string, view: TableView, opts: DisplayOptions): string {
  const out: string[] = [];
  for (const w of res.warnings) out.push(paint(opts.color, 'yellow', `⚠️  Warning: ${w}`));
  if (res.warnings.length) out.push('');
  if (!res.matches.length) {
    out.push(`No relevant results found for "${query}".`);
    out.push(`Searched ${res.searched.chunks} chunks across ${res.searched.files} files.`);
    out.push('', 'Suggestions:', ...res.suggestions.map((s) => `  • ${s}`));
    return out.join('\n');
  }
  const ms = Math.round(res.execution_time_ms);
  out.push(`Found ${res.total_results} matches (${res.total_matches} candidates processed in ${ms}ms)`, '');
  if (!view.showScores || view.legacy) out.push(view.legacy ? formatLegacy(res, opts) : formatResultsTable(res, opts));
  if (view.showScores) {
    if (view.legacy) out.push('');
    out.push(formatShowScores(res, opts));
  }
  if (view.preview) {
    res.matches.forEach((m, i) => {
      out.push('', paint(opts.color, 'bold', `${i + 1}. ${printable(nameLocation(m))}${m.content.symbol ? ` ${m.content.symbol}` : ''} (lines ${m.span[0]}-${m.span[1]})`));
      const all = m.content.content.replace(/\s+$/, '').split('\n');
      for (const l of all.slice(0, PREVIEW_LINES)) out.push(`   ${l}`);
      if (all.length > PREVIEW_LINES) out.push(`   … (${all.length - PREVIEW_LINES} more lines)`);
    });
  }
  return out.join('\n');
}
