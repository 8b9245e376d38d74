/**
 * The pattern log (seed 003 FR-4): validation with errors that name the field, ids, the fold of record / use /
 * forget events, the success-score threshold, torn lines, concurrent appends from several processes, compaction,
 * and the reasoning chunks the log becomes.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { PatternError, PatternLog, parsePatternLog, patternIdFor, recordEvent, PATTERNS_PATH } from '../../../server/src/engine/memory/patterns';
import { chunkFile } from '../../../server/src/engine/chunking';
import { ChunkingConfigSchema } from '../../../server/src/engine/config/schema';
import { removeDir, tempDir } from '../../support/workspace';

const chunking = ChunkingConfigSchema.parse({});

describe('pattern log (reasoning chunks, seed 003 FR-4)', () => {
  let root: string;
  beforeEach(() => (root = tempDir('quarry-patterns-')));
  afterEach(() => removeDir(root));

  it('rejects bad input with the field, the problem and a fix', () => {
    const base = { patternType: 'decomposition', description: 'Split the task', successScore: 0.8 };
    assert.throws(() => recordEvent({ ...base, description: '  ' }), (e: Error) => e instanceof PatternError && /"description" is empty/.test(e.message));
    assert.throws(() => recordEvent({ ...base, successScore: 1.5 }), /"success_score" must be a number from 0 to 1 \(got 1\.5\)/);
    assert.throws(() => recordEvent({ ...base, successScore: Number.NaN }), /"success_score" must be a number from 0 to 1/);
    assert.throws(() => recordEvent({ ...base, usageCount: -1 }), /"usage_count" must be a whole number >= 0/);
    assert.throws(() => recordEvent({ ...base, id: '../etc/passwd' }), /id "\.\.\/etc\/passwd" is not valid/);
    assert.throws(() => recordEvent({ ...base, patternType: '' }), /"pattern_type" is empty/);
    assert.throws(() => recordEvent({ ...base, description: 'x'.repeat(4001) }), /limit is 4000/);
  });

  it('derives a readable, stable id from the description', () => {
    const id = patternIdFor('Split the query into sub-questions, then answer each', 'decomposition');
    assert.match(id, /^split-the-query-into-sub-questions-[0-9a-f]{6}$/);
    assert.equal(patternIdFor('Split the query into sub-questions, then answer each', 'decomposition'), id);
    assert.notEqual(patternIdFor('Split the query into sub-questions, then answer each', 'verification'), id);
  });

  it('folds records, reuses and forgets; only success_score >= 0.5 is searchable', () => {
    const log = new PatternLog(root);
    const a = log.record({ id: 'auth-pattern', patternType: 'decomposition', description: 'Authenticate first, then authorize', successScore: 0.8 });
    assert.equal(a.usageCount, 0);
    assert.equal(a.searchable, true);
    const failed = log.record({ patternType: 'verification', description: 'Guess the config format', successScore: 0.2 });
    assert.equal(failed.searchable, false, 'FR-4.4: failed attempts are kept but not indexed');
    const used = log.reportUse('auth-pattern', true);
    assert.equal(used.usageCount, 1);
    assert.equal(used.successScore, Math.round((0.8 + (1 - 0.8) / 3) * 1e4) / 1e4);
    const again = log.reportUse('auth-pattern', false);
    assert.equal(again.usageCount, 2);
    assert.ok(again.successScore < used.successScore);
    const plain = log.reportUse('auth-pattern');
    assert.equal(plain.usageCount, 3);
    assert.equal(plain.successScore, again.successScore, 'a reuse without an outcome leaves the score');
    assert.equal(plain.createdAt, a.createdAt);
    // a revision keeps the creation time and the usage count it states
    const revised = log.record({ id: 'auth-pattern', patternType: 'decomposition', description: 'Authenticate, then authorize each request', successScore: 0.9, usageCount: 3 });
    assert.equal(revised.createdAt, a.createdAt);
    assert.equal(revised.description, 'Authenticate, then authorize each request');
    assert.throws(() => log.reportUse('nope'), /no pattern with id "nope"/);
    assert.equal(log.forget(failed.id), true);
    assert.equal(log.forget(failed.id), false);
    assert.deepEqual(log.list().map((p) => p.id), ['auth-pattern']);
  });

  it('skips a torn last line (a killed writer) and the next append starts on a fresh line', () => {
    const log = new PatternLog(root);
    log.record({ id: 'one', patternType: 'debugging', description: 'Bisect the failing commit', successScore: 0.9 });
    appendFileSync(log.path, '{"op":"record","id":"half","descr');
    assert.deepEqual(log.list().map((p) => p.id), ['one']);
    log.record({ id: 'two', patternType: 'debugging', description: 'Reproduce with the smallest input', successScore: 0.7 });
    assert.deepEqual(log.list().map((p) => p.id), ['one', 'two']);
    const lines = readFileSync(log.path, 'utf8').split('\n');
    assert.equal(lines[1], '{"op":"record","id":"half","descr', 'the torn line stays (nothing is lost) on its own line');
  });

  it('keeps every event when several processes append at once', async function () {
    this.timeout(60_000);
    const script = `
      const { PatternLog } = require(${JSON.stringify(join(process.cwd(), 'server/src/engine/memory/patterns.ts'))});
      const log = new PatternLog(process.argv[1]);
      for (let i = 0; i < 40; i++) log.record({ id: 'p' + process.argv[2] + '-' + i, patternType: 't', description: 'pattern ' + i, successScore: 0.6 });
    `;
    await Promise.all(
      [0, 1, 2, 3, 4, 5, 6, 7].map(
        (n) =>
          new Promise<void>((resolve, reject) => {
            const p = spawn(process.execPath, ['-r', 'tsx/cjs', '-e', script, root, String(n)], { stdio: ['ignore', 'ignore', 'inherit'] });
            p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${n} exited ${code}`))));
          }),
      ),
    );
    const ids = new PatternLog(root).list().map((p) => p.id);
    assert.equal(ids.length, 8 * 40);
    assert.equal(new Set(ids).size, 8 * 40);
  });

  it('compacts a large log without losing patterns or their counts', () => {
    const log = new PatternLog(root);
    log.record({ id: 'busy', patternType: 'refactoring', description: 'Extract a function before changing it', successScore: 0.7 });
    const use = JSON.stringify({ op: 'use', id: 'busy', at: new Date().toISOString() }) + '\n';
    appendFileSync(log.path, use.repeat(5000));
    const before = statSync(log.path).size;
    const p = log.reportUse('busy', true);
    assert.equal(p.usageCount, 5001);
    assert.ok(statSync(log.path).size < before / 10, 'compacted');
    const after = log.get('busy')!;
    assert.equal(after.usageCount, 5001);
    assert.equal(after.successScore, p.successScore);
  });

  it('becomes one reasoning chunk per searchable pattern, with FR-4.3 metadata', async () => {
    const log = new PatternLog(root);
    log.record({ id: 'auth-pattern', patternType: 'decomposition', description: 'Auth flow: validate the token, then load the user.', context: 'auth_manager.py authenticate_user', successScore: 0.85, usageCount: 2 });
    log.record({ id: 'bad', patternType: 'verification', description: 'Skip the tests', successScore: 0.1 });
    const text = readFileSync(log.path, 'utf8');
    const chunks = await chunkFile({ path: PATTERNS_PATH, language: 'reasoning', content: text }, chunking);
    assert.equal(chunks.length, 1);
    const c = chunks[0];
    assert.equal(c.kind, 'reasoning');
    assert.equal(c.source, 'memory');
    assert.equal(c.symbol, 'auth-pattern');
    assert.equal(c.name, 'Auth flow: validate the token, then load the user');
    assert.equal(c.container, 'decomposition');
    assert.equal(c.startLine, 1);
    assert.match(c.content, /^decomposition pattern: Auth flow: validate the token, then load the user\.\n\nContext: auth_manager\.py authenticate_user$/);
    assert.deepEqual(Object.keys(c.metadata!).sort(), ['created_at', 'pattern_id', 'pattern_type', 'success_score', 'updated_at', 'usage_count']);
    assert.equal(c.metadata!.success_score, 0.85);
    assert.equal(c.metadata!.usage_count, 2);
    // the chunk id is stable across revisions (path + kind + symbol)
    log.reportUse('auth-pattern', true);
    const again = await chunkFile({ path: PATTERNS_PATH, language: 'reasoning', content: readFileSync(log.path, 'utf8') }, chunking);
    assert.equal(again[0].id, c.id);
    assert.equal(again[0].metadata!.usage_count, 3);
    // garbage in the log loses nothing else
    writeFileSync(join(root, 'x.jsonl'), 'not json\n');
    assert.equal(parsePatternLog('not json\n[1,2]\n{"op":"use","id":"ghost"}\n').size, 0);
  });
});
