import assert from 'node:assert/strict';
import {
  CODE_TASK_CUES,
  DEFAULT_CODE_TASK_CONFIG,
  type Cue,
  FR019_MULTIPLIERS,
  applyCodeIntent,
  complexityOf,
  confidenceOf,
  detectCodeTaskIntent,
  detectIntents,
  focusAreasOf,
  normalizeCodeTaskIntent,
} from '../../../server/src/engine/ranking/intents';
import { INTENT_TYPES } from '../../../server/src/engine/api/results';
import { candidate, chunk } from './helpers';

/** [query, expected code-task intent or null] — realistic developer queries (FR-022). */
const TABLE: ReadonlyArray<[string, string | null]> = [
  ['how does the authentication middleware work', 'UNDERSTAND'],
  ['explain the token refresh flow', 'UNDERSTAND'],
  ['what is ChunkKind', 'UNDERSTAND'],
  ['where is the lexical index built', 'UNDERSTAND'],
  ['what happens when the watcher sees a rename', 'UNDERSTAND'],
  ['implement rate limiting for the API', 'IMPLEMENT'],
  ['add a new CLI command for export', 'IMPLEMENT'],
  ['create a database connection pool', 'IMPLEMENT'],
  ['example of registering an MCP tool', 'IMPLEMENT'],
  ['build a retry wrapper around fetch', 'IMPLEMENT'],
  ['why does search not return markdown results', 'DEBUG'],
  ["why doesn't the watcher pick up new files", 'DEBUG'],
  ['TypeError: cannot read properties of undefined in parser', 'DEBUG'],
  ['index crashes on large files', 'DEBUG'],
  ['fix the failing login', 'DEBUG'],
  ['unhandled exception in the embedding worker', 'DEBUG'],
  ['bug in span merging', 'DEBUG'],
  ['search is slow on large repos', 'OPTIMIZE'],
  ['optimize embedding batch throughput', 'OPTIMIZE'],
  ['reduce memory usage of the indexer', 'OPTIMIZE'],
  ['make tokenization faster', 'OPTIMIZE'],
  ['performance bottleneck in bm25 scoring', 'OPTIMIZE'],
  ['unit tests for the bm25 scorer', 'TEST'],
  ['mock the voyage client in tests', 'TEST'],
  ['test fixtures for the workspace', 'TEST'],
  ['assert the ranking order', 'TEST'],
  ['configure the embedding provider', 'CONFIGURE'],
  ['environment variable for the API key', 'CONFIGURE'],
  ['settings for max chunk size', 'CONFIGURE'],
  ['which flag disables auto indexing', 'CONFIGURE'],
  ['document the search API', 'DOCUMENT'],
  ['update the readme quickstart', 'DOCUMENT'],
  ['add docstrings to the chunker', 'DOCUMENT'],
  // No cue, or cues too weak/contradictory: no intent (no boost).
  ['parseConfig', null],
  ['AuthMiddleware', null],
  ['lexical index', null],
  ['user session store', null],
  ['quarry', null],
  ['new', null],
  ['add tests for the watcher', 'TEST'],
  // "how is X tested" and "where are the tests for X" ask for tests: the question words do not tie them with UNDERSTAND
  ['how is the cache eviction tested', 'TEST'],
  ['how are constraint violation error codes tested', 'TEST'],
  ['where are the tests for parsing multipart bodies', 'TEST'],
  ['test that timeout errors are recognised', 'TEST'],
  // a mocking library's own vocabulary: "mock" or "stub" alone is a weak cue (the library's code is asked for)
  ['send a real network request that the mocking layer ignores', null],
  ['slow tests', null], // tie OPTIMIZE vs TEST: ambiguous, no boost
];

describe('intents/codeTask: heuristic IntentType detection (seed 002 FR-022)', () => {
  for (const [query, expected] of TABLE) {
    it(`"${query}" → ${expected ?? 'null'}`, () => {
      const got = detectCodeTaskIntent(query);
      assert.equal(got?.intentType ?? null, expected, got ? got.reasoning : 'no intent');
      if (got) {
        assert.ok(got.confidence >= DEFAULT_CODE_TASK_CONFIG.minConfidence && got.confidence <= 1, `confidence ${got.confidence}`);
        assert.equal(got.source, 'detected');
        assert.ok(got.cues.length > 0);
        for (const cue of got.cues) assert.ok(got.reasoning.includes(`"${cue}"`), `reasoning names cue ${cue}: ${got.reasoning}`);
        assert.ok(['SIMPLE', 'MODERATE', 'COMPLEX'].includes(got.complexity));
      }
    });
  }

  it('the table covers every IntentType and at least 30 queries', () => {
    assert.ok(TABLE.length >= 30);
    for (const t of INTENT_TYPES) assert.ok(TABLE.some(([, e]) => e === t), t);
    assert.ok(TABLE.filter(([, e]) => e === null).length >= 5);
  });

  it('every IntentType has cue rows', () => {
    for (const t of INTENT_TYPES) assert.ok(CODE_TASK_CUES.some((c) => c.intent === t), t);
  });

  it('confidence grows with cue strength and shrinks with a close runner-up', () => {
    const one = detectCodeTaskIntent('search is slow')!;
    const two = detectCodeTaskIntent('search is slow, optimize the performance')!;
    assert.ok(two.confidence > one.confidence, `${two.confidence} > ${one.confidence}`);
    assert.ok(confidenceOf(1, 0) > confidenceOf(1, 0.8));
    assert.ok(confidenceOf(1, 1) <= 0.4, 'an exact tie is never confident');
    assert.equal(confidenceOf(0, 0), 0);
    for (let b = 0.1; b < 10; b += 0.7) for (let s = 0; s <= b; s += 0.3) {
      const c = confidenceOf(b, s);
      assert.ok(c >= 0 && c <= 1);
    }
  });

  it('reasoning names the winning cues and the runner-up', () => {
    const got = detectCodeTaskIntent('fix the slow query that crashes')!;
    assert.equal(got.intentType, 'DEBUG');
    assert.match(got.reasoning, /"fix"/);
    assert.match(got.reasoning, /"crash"/);
    assert.match(got.reasoning, /runner-up OPTIMIZE \("slow"\)/);
  });

  it('threshold is configurable (default 0.4)', () => {
    assert.equal(DEFAULT_CODE_TASK_CONFIG.minConfidence, 0.4);
    const q = 'where is the lexical index built'; // UNDERSTAND ≈ 0.57
    assert.equal(detectCodeTaskIntent(q)?.intentType, 'UNDERSTAND');
    assert.equal(detectCodeTaskIntent(q, null, { minConfidence: 0.9 }), null);
  });

  it('focus areas are the content words; complexity follows words and clauses', () => {
    assert.deepEqual(focusAreasOf('how does the authentication middleware work'), ['authentication', 'middleware']);
    assert.deepEqual(focusAreasOf('why does parseConfig throw on empty files'), ['parseConfig', 'throw', 'empty']);
    assert.equal(complexityOf('bug in span merging'), 'SIMPLE');
    assert.equal(complexityOf('why does the watcher miss renames when the index is rebuilding'), 'MODERATE');
    assert.equal(
      complexityOf('when a file is renamed and the index is stale, the watcher re-chunks it, but the embeddings are not refreshed'),
      'COMPLEX',
    );
    const q = detectCodeTaskIntent('how does the authentication middleware work')!;
    assert.deepEqual(q.focusAreas, ['authentication', 'middleware']);
    assert.equal(q.complexity, 'SIMPLE');
  });

  describe('explicit intent', () => {
    it('overrides detection with confidence 1, case-insensitive', () => {
      for (const e of ['understand', 'Understand', 'UNDERSTAND', ' understand ']) {
        const got = detectCodeTaskIntent('fix the crash in the parser', e)!;
        assert.equal(got.intentType, 'UNDERSTAND');
        assert.equal(got.confidence, 1);
        assert.equal(got.source, 'explicit');
        assert.match(got.reasoning, /explicit/);
      }
      // Even a query with no cue at all.
      assert.equal(detectCodeTaskIntent('AuthMiddleware', 'implement')?.intentType, 'IMPLEMENT');
    });

    it('FR-028: an unknown explicit string is accepted and ignored (never an error)', () => {
      assert.doesNotThrow(() => detectCodeTaskIntent('AuthMiddleware', 'refactor-everything'));
      assert.equal(detectCodeTaskIntent('AuthMiddleware', 'refactor-everything'), null, 'no cue + unknown explicit = no intent');
      const d = detectCodeTaskIntent('fix the crash in the parser', 'brainstorm')!;
      assert.equal(d.intentType, 'DEBUG', 'as if none was given');
      assert.equal(d.source, 'detected');
      assert.match(d.reasoning, /unknown explicit intent "brainstorm" ignored/);
      assert.equal(normalizeCodeTaskIntent('brainstorm'), null);
      assert.equal(normalizeCodeTaskIntent(''), null);
      assert.equal(normalizeCodeTaskIntent(undefined), null);
      const both = detectIntents('AuthMiddleware', 'brainstorm');
      assert.deepEqual(both, { codeTask: null, information: null });
    });

    it('FR-028: a new intent added as data (intent list + cue row + multiplier row) works without code changes', () => {
      const intents = [...INTENT_TYPES, 'REVIEW'];
      const cues: Cue[] = [...CODE_TASK_CUES, { intent: 'REVIEW', pattern: /\breview\w*/, weight: 1, label: 'review' }];
      const explicit = detectCodeTaskIntent('AuthMiddleware', 'review', { intents, cues })!;
      assert.deepEqual([explicit.intentType, explicit.confidence], ['REVIEW', 1]);
      const detected = detectCodeTaskIntent('review the session handling', null, { intents, cues })!;
      assert.equal(detected.intentType, 'REVIEW');
      // Without the new rows the same inputs are accepted and ignored.
      assert.equal(detectCodeTaskIntent('AuthMiddleware', 'review'), null);
      // And the stage applies a multiplier row for it.
      const c = candidate(chunk({ path: 'src/auth.ts', kind: 'class', symbol: 'Auth', content: 'class Auth {}', semanticClass: 'DEFINITION_TYPE' }), 2);
      applyCodeIntent([c], explicit, { rules: [...FR019_MULTIPLIERS, { intent: 'REVIEW', match: 'DEFINITION_*', factor: 1.1, source: 'test' }] });
      assert.ok(Math.abs(c.score - 2.2) < 1e-9);
      assert.match(c.explanation[0], /intent REVIEW \(explicit\) ×1\.1 for DEFINITION_TYPE/);
    });
  });
});
