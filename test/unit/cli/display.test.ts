/**
 * Seed 003 display cases UT-DISPLAY-01..10 on the rendered text of `quarry search`'s table forms (cli/display.ts):
 * alignment, git columns (tracked, untracked, unavailable), legacy mode, score boxes with box-drawing characters and
 * explanations, knowledge and reasoning rows, empty results; colour only when asked, terminal width respected.
 */
import assert from 'node:assert/strict';
import type { CodeMatch, FindCodeResponseSummary } from '../../../server/src/engine/api/results';
import { displayWidth, fit, formatSearchTable, terminalDisplay } from '../../../server/src/cli/display';

const NOW = Date.UTC(2026, 10, 21, 12);
const DAY = 86_400_000;
const plain = { width: 200, color: false, now: NOW };

function match(over: Partial<CodeMatch> & { path: string; kind: string; symbol: string }): CodeMatch {
  const { path, kind, symbol, ...rest } = over;
  return {
    file: { path, language: 'python' },
    content: { chunk_id: symbol, content: `def ${symbol}():\n    pass\n`, line_range: [45, 67], language: 'python', kind, symbol, semantic_class: 'DEFINITION_CALLABLE', doc: '', signature: '', token_count: 9 },
    span: [45, 67], name_range: { line: 45, column: 5, end_line: 45, end_column: 5 + symbol.length }, relevance_score: 0.856, score: 12.3, match_type: 'SYNTACTIC', related_symbols: [], why: '', explanation: [],
    ...rest,
  };
}

function response(matches: CodeMatch[]): FindCodeResponseSummary {
  return {
    matches, summary: `Found ${matches.length} matches`, query_intent: null, total_matches: matches.length, total_results: matches.length,
    token_count: 0, execution_time_ms: 12, search_strategy: ['HYBRID_SEARCH'], languages_found: ['python'], warnings: [], suggestions: [], searched: { chunks: 10, files: 2 },
  };
}

const tracked = match({
  path: 'aurora/auth_manager.py', kind: 'function', symbol: 'authenticate_user',
  git: { status: 'tracked', commits: 23, last_modified: new Date(NOW - 2 * DAY).toISOString() },
  explanation: ['bm25 9.5 = name:=authenticate_user 9.5', '×2 exact symbol'],
  score_breakdown: {
    final: 0.856,
    bm25: { score: 0.95, reason: 'exact keyword match on "authenticate"', exact: true },
    semantic: { similarity: 0.82, reason: 'high conceptual relevance' },
    activation: { score: 0.65, reason: 'accessed 3x, 23 commits, last used 2 days ago' },
    git: '23 commits, last modified 2 days ago',
  },
});
const untracked = match({ path: 'scratch/draft.py', kind: 'method', symbol: 'Draft.run', relevance_score: 0.7, git: { status: 'untracked', commits: null, last_modified: null } });
const unavailable = match({ path: 'lib/broken.py', kind: 'class', symbol: 'Broken', relevance_score: 0.6, git: { status: 'unavailable', commits: null, last_modified: null } });
const knowledge = match({
  path: 'logs/conversations/2025/12/oauth-impl-2025-12-15.md', kind: 'section', symbol: 'conv-oauth-impl-2025-12-15-phase3', relevance_score: 0.654,
  name_range: { line: 10, column: 4, end_line: 10, end_column: 27 },
  content: { chunk_id: 'k', content: '## Phase 3: Implementation\nRegister the app.', line_range: [10, 14], language: 'markdown', kind: 'section', symbol: 'conv-oauth-impl-2025-12-15-phase3', semantic_class: 'DOCUMENTATION_STRUCTURED', doc: '', signature: '## Phase 3: Implementation', token_count: 8, metadata: { conversation_date: '2025-12-15', phase_number: 3, phase_name: 'Implementation' } },
});
const reasoning = match({
  path: '.quarry/memory/patterns.jsonl', kind: 'reasoning', symbol: 'auth-pattern', relevance_score: 0.621,
  content: { chunk_id: 'r', content: 'implementation pattern: Auth Flow first.\n\nContext: x', line_range: [3, 3], language: 'reasoning', kind: 'reasoning', symbol: 'auth-pattern', semantic_class: 'DOCUMENTATION_STRUCTURED', doc: '', signature: '', token_count: 8, metadata: { pattern_id: 'auth-pattern', created_at: '2025-12-20T08:00:00.000Z', success_score: 0.8, usage_count: 2 } },
});

const rowsOf = (text: string) => {
  const lines = text.split('\n');
  const rule = lines.findIndex((l) => /^-+(-\+-+)+$/.test(l));
  return { head: lines[rule - 1], rule: lines[rule], rows: lines.slice(rule + 1).filter((l) => l.includes(' | ')) };
};
const cells = (row: string) => row.split(' | ').map((c) => c.trim());

describe('search result display (seed 003 UT-DISPLAY-01..10)', () => {
  it('UT-DISPLAY-01: the seven columns align', () => {
    const out = formatSearchTable(response([tracked, untracked, unavailable, knowledge, reasoning]), 'auth', {}, plain);
    const { head, rule, rows } = rowsOf(out);
    assert.deepEqual(cells(head), ['File', 'Type', 'Name', 'Lines', 'Score', 'Commits', 'Last Modified']);
    const bars = (l: string) => [...l.matchAll(/ \| /g)].map((m) => m.index);
    for (const r of rows) assert.deepEqual(bars(r), bars(head), r);
    assert.deepEqual([...rule.matchAll(/-\+-/g)].map((m) => m.index! ), bars(head));
  });

  it('UT-DISPLAY-02: a tracked file shows its commit count and a relative time', () => {
    const row = cells(rowsOf(formatSearchTable(response([tracked]), 'auth', {}, plain)).rows[0]);
    assert.deepEqual(row, ['aurora/auth_manager.py:45:5', 'function', 'authenticate_user', '45-67', '0.856', '23', '2 days ago']);
  });

  it('UT-DISPLAY-03/04: untracked and unavailable in both git columns', () => {
    const { rows } = rowsOf(formatSearchTable(response([untracked, unavailable]), 'x', {}, plain));
    assert.deepEqual(cells(rows[0]).slice(5), ['- (untracked)', '- (untracked)']);
    assert.deepEqual(cells(rows[1]).slice(5), ['- (unavailable)', '- (unavailable)']);
  });

  it('UT-DISPLAY-05: --legacy hides the git columns', () => {
    const out = formatSearchTable(response([tracked]), 'auth', { legacy: true }, plain);
    const { head, rows } = rowsOf(out);
    assert.deepEqual(cells(head), ['File', 'Type', 'Name', 'Lines', 'Score']);
    assert.deepEqual(cells(rows[0]), ['aurora/auth_manager.py:45:5', 'function', 'authenticate_user', '45-67', '0.856']);
  });

  it('UT-DISPLAY-06/07: --show-scores draws boxes with the FR-6 explanations, sized 80..120 columns', () => {
    const out = formatSearchTable(response([tracked]), 'authenticate', { showScores: true }, { ...plain, width: 100 });
    for (const ch of ['┌', '┐', '└', '┘', '│', '├─', '└─']) assert.ok(out.includes(ch), ch);
    assert.match(out, /┌─ auth_manager\.py \| function \| authenticate_user \(Lines 45-67\) ─+┐/);
    assert.match(out, /│ Final Score: 0\.856 +│/);
    assert.match(out, /├─ BM25: +0\.950 +⭐ \(exact keyword match on "authenticate"\)/);
    assert.match(out, /├─ Semantic: +0\.820 +\(high conceptual relevance\)/);
    assert.match(out, /└─ Activation: 0\.650 +\(accessed 3x, 23 commits, last used 2 days ago\)/);
    assert.match(out, /│ Git: 23 commits, last modified 2 days ago +│/);
    const boxLines = out.split('\n').filter((l) => /^[┌│└]/.test(l));
    for (const l of boxLines) assert.equal(displayWidth(l), 100, l);
    const narrow = formatSearchTable(response([tracked]), 'authenticate', { showScores: true }, { ...plain, width: 40 });
    for (const l of narrow.split('\n').filter((x) => /^[┌│└]/.test(x))) assert.equal(displayWidth(l), 80, 'at least 80 columns');
    const wide = formatSearchTable(response([tracked]), 'authenticate', { showScores: true }, { ...plain, width: 300 });
    for (const l of wide.split('\n').filter((x) => /^[┌│└]/.test(x))) assert.equal(displayWidth(l), 120, 'at most 120 columns');
  });

  it('FR-6.5: --show-scores works with --legacy', () => {
    const out = formatSearchTable(response([tracked]), 'authenticate', { showScores: true, legacy: true }, plain);
    assert.deepEqual(cells(rowsOf(out).head), ['File', 'Type', 'Name', 'Lines', 'Score']);
    assert.match(out, /┌─ auth_manager\.py/);
  });

  it('UT-DISPLAY-08/09: knowledge rows show know, no lines and the conversation date; reasoning rows reas and the creation date', () => {
    const { rows } = rowsOf(formatSearchTable(response([knowledge, reasoning]), 'oauth', {}, plain));
    assert.deepEqual(cells(rows[0]), ['logs/conversations/2025/12/oauth-impl-2025-12-15.md:10:4', 'know', 'Phase 3: Implementation', '-', '0.654', '-', '2025-12-15']);
    assert.deepEqual(cells(rows[1]), ['auth-pattern', 'reas', 'Auth Flow first.', '-', '0.621', '-', '2025-12-20']);
  });

  it('UT-DISPLAY-10: no results shows the message and suggestions', () => {
    const empty = { ...response([]), summary: 'No results for "xyzabc123" (searched 10 chunks across 2 files).', suggestions: ['Try fewer or broader terms.'] };
    const out = formatSearchTable(empty, 'xyzabc123', {}, plain);
    assert.match(out, /^No relevant results found for "xyzabc123"\.$/m);
    assert.match(out, /Suggestions:\n  • Try fewer or broader terms\./);
  });

  it('fits the terminal: long paths lose their start, names their end', () => {
    const long = match({ path: 'a/very/deep/folder/structure/with/many/levels/and/a/long/file_name_here.py', kind: 'function', symbol: 'a_function_with_a_really_long_descriptive_name_indeed' });
    const out = formatSearchTable(response([long]), 'x', {}, { ...plain, width: 80 });
    const { rows } = rowsOf(out);
    assert.ok(displayWidth(rows[0]) <= 80, rows[0]);
    assert.match(cells(rows[0])[0], /^…/);
    assert.match(cells(rows[0])[2], /…$/);
    assert.equal(fit('abcdef', 4), 'abc…');
    assert.equal(fit('abcdef', 4, 'start'), '…def');
  });

  it('colour only on a TTY without NO_COLOR, and never for TERM=dumb', () => {
    const tty = { isTTY: true, columns: 100 } as unknown as NodeJS.WriteStream;
    const pipe = { isTTY: false } as unknown as NodeJS.WriteStream;
    assert.deepEqual(terminalDisplay(tty, {}), { width: 100, color: true });
    assert.equal(terminalDisplay(tty, { NO_COLOR: '1' }).color, false);
    assert.equal(terminalDisplay(tty, { NO_COLOR: '' }).color, true, 'an empty NO_COLOR does not count (no-color.org)');
    assert.equal(terminalDisplay(tty, { TERM: 'dumb' }).color, false);
    assert.equal(terminalDisplay(pipe, {}).color, false);
    const coloured = formatSearchTable(response([tracked]), 'auth', {}, { ...plain, color: true });
    assert.match(coloured, /\u001b\[1mFile/);
    assert.doesNotMatch(formatSearchTable(response([tracked]), 'auth', {}, plain), /\u001b\[/);
  });
});
