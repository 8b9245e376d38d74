/**
 * Agent memory through the real engine (seed 003 FR-4, FR-7, FR-2/FR-6.4): reasoning patterns recorded, searched,
 * reused, kept across full re-indexing and a damaged index; the success threshold; type filters UT-FILTER-01..06;
 * accesses raising activation across engine restarts.
 */
import assert from 'node:assert/strict';
import { rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { resolveGeneration } from '../../../server/src/engine/store/generations';
import { removeDir, tempDir, writeFiles } from '../../support/workspace';

const FILES: Record<string, string> = {
  'auth/session.py':
    'def open_session(user):\n    """Start a session for an authenticated user."""\n    return {"user": user}\n\n\nclass SessionStore:\n    """Keeps sessions in memory."""\n\n    def get(self, token):\n        return self.items.get(token)\n',
  'auth/tokens.py': 'def refresh_token(token):\n    """Exchange a refresh token for a new access token."""\n    return token[::-1]\n',
  'docs/auth.md': '# Authentication\n\n## Sessions\n\nA session starts after the password check and ends at logout.\n',
};

describe('agent memory through the engine (seed 003 FR-4, FR-7, activation)', function () {
  this.timeout(120_000);
  let root: string;
  let engine: Engine;
  beforeEach(async () => {
    root = tempDir('quarry-memory-engine-');
    writeFiles(root, FILES);
    engine = await Engine.open(root, { embedding: null, reranker: null });
    await engine.index();
  });
  afterEach(async () => {
    await engine.close();
    removeDir(root);
  });

  it('a recorded pattern is searchable at once as a reasoning chunk with its metadata; a failed one never is', async () => {
    const ok = await engine.recordPattern({ id: 'session-first', patternType: 'decomposition', description: 'Decompose login into a credential check, then open_session; test each step.', context: 'auth/session.py', successScore: 0.8 });
    assert.equal(ok.indexed, true);
    const failed = await engine.recordPattern({ id: 'guess', patternType: 'verification', description: 'Decompose by guessing the token format.', successScore: 0.3 });
    assert.equal(failed.pattern.searchable, false);
    const res = await engine.search('decompose login', { types: ['reasoning'] });
    assert.deepEqual(res.matches.map((m) => m.content.symbol), ['session-first']);
    const m = res.matches[0];
    assert.equal(m.content.kind, 'reasoning');
    assert.equal(m.file.path, '.quarry/memory/patterns.jsonl');
    assert.equal(m.content.metadata!.pattern_type, 'decomposition');
    assert.equal(m.content.metadata!.success_score, 0.8);
    assert.equal(m.content.metadata!.usage_count, 0);
    assert.ok(!m.git, 'reasoning chunks have no git history');

    await engine.reportPatternUse('session-first', true);
    const again = await engine.search('decompose login', { types: ['reasoning'] });
    assert.equal(again.matches[0].content.metadata!.usage_count, 1);
    assert.ok(Number(again.matches[0].content.metadata!.success_score) > 0.8);
    // a reuse that fails twice drops it under the threshold: it leaves the results, stays in memory
    await engine.recordPattern({ id: 'shaky', patternType: 'debugging', description: 'Decompose the login bug by bisecting commits.', successScore: 0.55 });
    await engine.reportPatternUse('shaky', false);
    const after = await engine.search('decompose login bug', { types: ['reasoning'] });
    assert.ok(!after.matches.some((x) => x.content.symbol === 'shaky'));
    assert.ok(engine.patterns().some((p) => p.id === 'shaky' && !p.searchable));
  });

  it('a pattern recorded before the workspace was ever indexed waits for the first full run', async () => {
    const fresh = tempDir('quarry-memory-fresh-');
    try {
      writeFiles(fresh, FILES);
      const e = await Engine.open(fresh, { embedding: null, reranker: null });
      try {
        const rec = await e.recordPattern({ id: 'early', patternType: 'decomposition', description: 'Refresh the token before the session expires.', successScore: 0.9 });
        assert.equal(rec.indexed, false);
        assert.match(rec.note ?? '', /no index yet/);
        assert.equal(e.hasIndex, false, 'recording did not create a patterns-only index');
        const running = e.index();
        await new Promise((r) => setTimeout(r, 5));
        const during = await e.recordPattern({ id: 'during', patternType: 'decomposition', description: 'Check the cache before the session store.', successScore: 0.8 });
        assert.equal(during.indexed, false);
        const s = await running;
        assert.ok(s.filesIndexed >= 3);
        for (let i = 0; i < 100 && !(await e.search('cache before session store', { types: ['reasoning'] })).matches.length; i++) await new Promise((r) => setTimeout(r, 20));
        assert.equal((await e.search('cache before session store', { types: ['reasoning'] })).matches[0]?.content.symbol, 'during', 'recorded during the first run: indexed right after it');
        assert.equal((await e.search('refresh token before session expires', { types: ['reasoning'] })).matches[0]?.content.symbol, 'early');
      } finally {
        await e.close();
      }
    } finally {
      removeDir(fresh);
    }
  });

  it('patterns survive a full re-index and a deleted (damaged) index', async () => {
    await engine.recordPattern({ id: 'keep-me', patternType: 'refactoring', description: 'Extract the token exchange into refresh_token before changing it.', successScore: 0.9 });
    await engine.index({ full: true });
    assert.equal((await engine.search('keep-me')).matches[0]?.content.symbol, 'keep-me');
    await engine.close();
    // the rebuilt index lives in a generation folder (store/generations.ts): remove its tables and lexical index
    const generation = resolveGeneration(join(root, '.quarry')).generation.dir;
    rmSync(join(generation, 'lancedb'), { recursive: true, force: true });
    rmSync(join(generation, 'lexical'), { recursive: true, force: true });
    engine = await Engine.open(root, { embedding: null, reranker: null });
    await engine.index();
    const res = await engine.search('extract token exchange', { types: ['reasoning'] });
    assert.equal(res.matches[0]?.content.symbol, 'keep-me');
    assert.ok(existsSync(join(root, '.quarry', 'memory', 'patterns.jsonl')));
  });

  it('UT-FILTER-01..06: exact types only, unions, case-insensitive, invalid types named, empty after filter', async () => {
    await engine.recordPattern({ id: 'session-pattern', patternType: 'implementation', description: 'Open a session only after the password check.', successScore: 0.9 });
    const kinds = async (types: string[]) => (await engine.search('session', { types })).matches.map((m) => m.content.kind);
    assert.deepEqual([...new Set(await kinds(['function']))], ['function']); // 01
    const union = new Set(await kinds(['function', 'class'])); // 02
    assert.ok(union.has('function') && union.has('class') && !union.has('method'), [...union].join());
    await assert.rejects(engine.search('session', { types: ['functon'] }), /Invalid chunk type 'functon'\. Valid types: function, method, class, code, reasoning, knowledge/); // 03
    assert.deepEqual(await kinds(['Function']), await kinds(['function'])); // 04
    const none = await engine.search('refresh', { types: ['method'] }); // 05
    assert.equal(none.matches.length, 0);
    assert.match(none.summary, /^No results/);
    const rk = new Set(await kinds(['reasoning', 'knowledge'])); // 06
    assert.deepEqual([...rk].sort(), ['reasoning', 'section']);
  });

  it('accesses raise activation, are explained, and persist across restarts', async () => {
    const before = await engine.search('session');
    const target = before.matches.find((m) => m.content.symbol === 'SessionStore')!;
    const other = before.matches.find((m) => m.content.symbol === 'open_session')!;
    assert.ok(target && other);
    const rec = await engine.recordAccess([{ chunkId: target.content.chunk_id }, { path: join(root, 'auth/session.py'), line: 9 }, { chunkId: 'nope' }, { path: 'auth/none.py', line: 1 }], 'test');
    assert.deepEqual(rec.recorded, [target.content.chunk_id], 'the chunk at line 9 is the same class');
    assert.deepEqual(rec.unknown, ['nope', 'auth/none.py:1']);
    await engine.close();
    engine = await Engine.open(root, { embedding: null, reranker: null });
    const res = await engine.search('session');
    const hit = res.matches.find((m) => m.content.symbol === 'SessionStore')!;
    assert.equal(hit.activation?.accesses, 1);
    assert.ok(hit.activation!.score > 0.7, `accessed just now: ${hit.activation!.score}`);
    assert.ok(hit.activation?.last_accessed);
    assert.match(hit.score_breakdown!.activation!.reason, /^accessed 1x, last used just now$/);
    assert.ok(hit.explanation.some((l) => /^×1\.0\d+ activation 0\.\d+ \(accessed 1x, last used just now\)$/.test(l)), hit.explanation.join('\n'));
    assert.ok(hit.score > target.score, 'activation raised its score');
  });
});
