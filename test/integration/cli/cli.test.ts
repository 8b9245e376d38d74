import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { runCli, tempDir, writeFiles, removeDir } from '../../support/workspace';

describe('quarry CLI (separate processes over one on-disk index)', function () {
  this.timeout(180_000);
  let root: string;
  before(() => {
    root = tempDir();
    writeFiles(root, {
      'src/payment.ts': `/** Charges a card through the gateway. */\nexport class PaymentGateway {\n  charge(amountCents: number): boolean {\n    return amountCents > 0;\n  }\n}\n`,
      'src/refunds.py': `def issue_refund(order_id: str) -> bool:\n    """Refund an order in full."""\n    return bool(order_id)\n`,
      'tests/test_refunds.py': `from src.refunds import issue_refund\n\ndef test_issue_refund():\n    assert issue_refund("o-1")\n`,
      'notes.unknownext': 'not indexed',
    });
  });
  after(() => removeDir(root));

  it('index prints a summary with files by language, chunks by kind, skipped files', () => {
    const r = runCli(['index', '--project', root]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Files indexed by language:/);
    assert.match(r.stdout, /typescript\s+1/);
    assert.match(r.stdout, /python\s+2/);
    assert.match(r.stdout, /Chunks created by kind:/);
    assert.match(r.stdout, /\.unknownext\s+1/);
    // seed 003 FR-11: counts of the whole index by chunk type
    assert.match(r.stdout, /in the index: 3 code chunks, 0 reasoning chunks, 0 knowledge chunks; 0 errors, 0 warnings/);
  });

  it('a second index run in a new process is incremental', () => {
    const r = runCli(['index', '--project', root, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.filesIndexed, 0);
    assert.equal(s.filesUnchanged, 3);
    assert.deepEqual(s.chunkTypes, { code: 3, reasoning: 0, knowledge: 0 });
  });

  it('search --format json returns the shared result schema with the defining chunk first', () => {
    const r = runCli(['search', 'PaymentGateway', '--project', root, '--format', 'json']);
    assert.equal(r.status, 0, r.stderr);
    const res = JSON.parse(r.stdout);
    for (const k of ['matches', 'summary', 'query_intent', 'total_matches', 'total_results', 'token_count', 'execution_time_ms', 'search_strategy', 'languages_found']) {
      assert.ok(k in res, `missing ${k}`);
    }
    const m = res.matches[0];
    assert.equal(m.file.path, 'src/payment.ts');
    assert.equal(m.content.symbol, 'PaymentGateway');
    assert.deepEqual(m.span, m.content.line_range);
    assert.ok(m.content.content.includes('class PaymentGateway'));
    assert.ok(m.relevance_score > 0 && m.relevance_score <= 1);
    assert.ok(['SEMANTIC', 'SYNTACTIC', 'KEYWORD', 'FILE_PATTERN'].includes(m.match_type));
    assert.equal(res.total_results, res.matches.length);
  });

  it('--no-include-tests leaves test files out; -o markdown and table render', () => {
    const withTests = JSON.parse(runCli(['search', 'issue refund', '-p', root, '-o', 'json']).stdout);
    assert.ok(withTests.matches.some((m: { file: { path: string } }) => m.file.path.startsWith('tests/')));
    const noTests = JSON.parse(runCli(['search', 'issue refund', '-p', root, '-o', 'json', '--no-include-tests']).stdout);
    assert.ok(noTests.matches.length > 0);
    assert.ok(noTests.matches.every((m: { file: { path: string } }) => !m.file.path.startsWith('tests/')));
    const md = runCli(['search', 'issue_refund', '-p', root, '-o', 'markdown']);
    assert.match(md.stdout, /### 1\. src\/refunds\.py:1:5 — `issue_refund` \(function, lines 1-3\)/);
    assert.match(md.stdout, /```python/);
    const table = runCli(['search', 'issue_refund', '-p', root, '-l', '1']);
    assert.match(table.stdout, /^Found 1 matches/m);
    assert.match(table.stdout, /^File +\| Type +\| Name +\| Lines \| Score \| Commits +\| Last Modified$/m);
    assert.match(table.stdout, /^src\/refunds\.py:1:5 +\| function \| issue_refund +\| 1-3 +\| 1\.000 \| - \(untracked\) \| - \(untracked\)$/m);
    const preview = runCli(['search', 'issue_refund', '-p', root, '-l', '1', '--preview']);
    assert.match(preview.stdout, /^1\. src\/refunds\.py:1:5 issue_refund \(lines 1-3\)$/m);
    assert.match(preview.stdout, /^ {3}def issue_refund/m);
  });

  it('--legacy prints the compact table and --show-scores the boxed breakdown (seed 003 FR-5.5, FR-6)', () => {
    const legacy = runCli(['search', 'issue_refund', '-p', root, '-l', '2', '--legacy']);
    assert.equal(legacy.status, 0, legacy.stderr);
    assert.match(legacy.stdout, /^File\s+\| Type\s+\| Name\s+\| Lines \| Score$/m);
    assert.match(legacy.stdout, /^src\/refunds\.py:1:5\s+\| function \| issue_refund\s+\| 1-3\s+\| 1\.000$/m);
    const boxes = runCli(['search', 'issue_refund', '-p', root, '-l', '1', '--show-scores']);
    assert.match(boxes.stdout, /^┌─ refunds\.py \| function \| issue_refund \(Lines 1-3\) ─+┐$/m);
    assert.match(boxes.stdout, /│ Final Score: 1\.000/);
    assert.match(boxes.stdout, /BM25: +[\d.]+ +⭐ \(exact keyword match on "issue_refund"\)/);
    // an identifier query skips the dense channel, but the box still shows its similarity (seed 003 FR-6.1)
    assert.match(boxes.stdout, /Semantic: +-?[\d.]+ +\((very high|high|moderate|low) conceptual relevance\)/);
    assert.match(boxes.stdout, /│ Git: untracked \(not in git\)/);
    assert.match(boxes.stdout, /^└─+┘$/m);
  });

  it('no results: exit 0 with suggestions', () => {
    const r = runCli(['search', 'xyzabc123', '-p', root]);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^No relevant results found for "xyzabc123"\.$/m);
    assert.match(r.stdout, /^Searched \d+ chunks across 3 files\.$/m);
    assert.match(r.stdout, /Languages available: python, typescript/);
  });

  it('usage errors exit 2 with a message; runtime errors exit 1 naming the cause', () => {
    const empty = runCli(['search', '  ', '-p', root]);
    assert.equal(empty.status, 2);
    assert.match(empty.stderr, /Empty query/);
    const badLimit = runCli(['search', 'x', '-p', root, '--limit', 'zero']);
    assert.equal(badLimit.status, 2);
    assert.match(badLimit.stderr, /positive integer/);
    const badFormat = runCli(['search', 'x', '-p', root, '-o', 'yaml']);
    assert.equal(badFormat.status, 2);
    const missing = runCli(['search', 'x', '-p', join(root, 'nope')]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /does not exist/);
  });

  it('a second indexer is refused while one holds the lock (exit 1)', () => {
    const lock = join(root, '.quarry', 'index.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), startedAt: '2026-01-01T14:00:00.000Z' }));
    try {
      const r = runCli(['index', '-p', root]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /Indexing already in progress \(started at 2026-01-01T14:00:00.000Z/);
      const s = runCli(['search', 'PaymentGateway', '-p', root]);
      assert.equal(s.status, 0);
      assert.match(s.stdout, /indexing in progress/);
    } finally {
      writeFileSync(lock, JSON.stringify({ pid: 999999999, host: hostname(), startedAt: 'x' }));
    }
    // A lock left by a dead process is taken over.
    assert.equal(runCli(['index', '-p', root]).status, 0);
  });

  it('invalid configuration is reported key by key (exit 1)', () => {
    const other = tempDir();
    try {
      mkdirSync(join(other, '.quarry'));
      writeFileSync(join(other, '.quarry', 'config.yml'), 'bm25:\n  k1: -1\n  bogus: 3\n');
      const r = runCli(['config', '--show', '-p', other]);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /bm25\.k1: .*got -1/);
      assert.match(r.stderr, /unknown key\(s\) 'bogus'/);
    } finally {
      removeDir(other);
    }
  });

  it('status --json reports counts', () => {
    const r = runCli(['status', '-p', root, '--json']);
    assert.equal(r.status, 0);
    const s = JSON.parse(r.stdout);
    assert.equal(s.files, 3);
    assert.ok(s.chunks >= 3);
    assert.ok(s.lastIndexed);
    assert.equal(s.health.status, 'healthy');
    assert.equal(s.health.services.vector_store.status, 'up');
    const text = runCli(['status', '-p', root]);
    assert.match(text.stdout, /^Health: {7}healthy/m);
    assert.match(text.stdout, /embedding provider {2}up · static:quarry-code@[0-9a-f]{12} · breaker closed/);
  });
});
