import assert from 'node:assert/strict';
import {
  type QueryIntent,
  applyCodeIntent,
  codeIntentStage,
  detectIntents,
  informationIntentStage,
} from '../../../server/src/engine/ranking/intents';
import { runStages } from '../../../server/src/engine/ranking/candidate';
import type { SemanticClass } from '../../../server/src/engine/types';
import { ann, candidate, chunk, ctxFor, section } from './helpers';

const intent = (intentType: string, confidence = 0.72, cues = ['implement', 'add']): QueryIntent => ({
  intentType,
  confidence,
  reasoning: 'test',
  focusAreas: [],
  complexity: 'SIMPLE',
  source: 'detected',
  cues,
});

/** Seed 002 Example 1's Python codebase. */
function example1() {
  const py = (path: string, kind: 'class' | 'function', symbol: string, content: string, semanticClass: SemanticClass, startLine: number) =>
    chunk({ path, kind, symbol, content, semanticClass, startLine, language: 'python' });
  return {
    middleware: py('src/auth/middleware.py', 'class', 'AuthMiddleware', 'class AuthMiddleware:\n    """Handles authentication and authorization for requests."""\n    def __init__(self, config: AuthConfig):\n        self.config = config', 'DEFINITION_TYPE', 15),
    utils: py('src/auth/utils.py', 'function', 'authenticate_user', 'def authenticate_user(username: str, password: str) -> User | None:\n    """Authenticate user credentials and return User object."""\n    return lookup(username, password)', 'DEFINITION_CALLABLE', 10),
    tokens: py('src/auth/tokens.py', 'function', 'validate_jwt_token', 'def validate_jwt_token(token: str) -> TokenPayload:\n    """Validate JWT token and extract payload."""\n    return decode(token)', 'OPERATION_DATA', 5),
    tests: py('tests/test_auth.py', 'function', 'auth_fixtures', '@pytest.fixture\ndef auth_fixtures():\n    """authentication test fixtures: authenticate users"""\n    return make_users()', 'DEFINITION_TEST', 1),
  };
}
/** Keyword-heavy retrieval order before intents: tokens 0.78, tests 0.75, middleware 0.6133, utils 0.58. */
const example1Pool = () => {
  const e = example1();
  return [candidate(e.tokens, 0.78), candidate(e.tests, 0.75), candidate(e.middleware, 0.92 / 1.5), candidate(e.utils, 0.58)];
};
const symbols = (cs: { chunk?: { symbol: string } }[]) => cs.map((c) => c.chunk!.symbol);

describe('intents/stages: code-task intent stage (seed 002 FR-019, FR-026)', () => {
  it('Example 1: "how to authenticate users" --intent understand ranks AuthMiddleware 0.92, authenticate_user 0.87, JWT 0.78, fixtures last', () => {
    const out = codeIntentStage().apply(ctxFor('how to authenticate users', 'understand'), example1Pool());
    assert.deepEqual(symbols(out), ['AuthMiddleware', 'authenticate_user', 'validate_jwt_token', 'auth_fixtures']);
    assert.deepEqual(out.map((c) => Math.round(c.score * 100) / 100), [0.92, 0.87, 0.78, 0.75]);
    assert.deepEqual(out[0].explanation, ['intent UNDERSTAND (explicit) ×1.5 for DEFINITION_TYPE']);
    assert.deepEqual(out[3].explanation, [], 'no effect, no line');
    assert.deepEqual(ann(out[0]).codeTask, { intent: 'UNDERSTAND', confidence: 1, factor: 1.5, rule: 'UNDERSTAND DEFINITION_* ×1.5 (FR-019)' });
  });

  it('FR-019 validation: IMPLEMENT + "authentication" puts AuthMiddleware (DEFINITION_TYPE) in the top 3', () => {
    const e = example1();
    const noise = Array.from({ length: 6 }, (_, i) =>
      candidate(chunk({ path: `src/auth/flow${i}.py`, kind: 'code', content: `if authenticated_${i}:\n    log("authentication ok")`, semanticClass: 'FLOW_BRANCHING', language: 'python' }), 0.8 - i * 0.01),
    );
    const pool = [...noise, candidate(e.middleware, 0.65), candidate(e.tests, 0.7)];
    const out = codeIntentStage().apply(ctxFor('authentication', 'implement'), pool);
    assert.ok(symbols(out).slice(0, 3).includes('AuthMiddleware'), symbols(out).join(', '));
  });

  it('each FR-019 intent multiplies exactly its classes, with one explanation line per effect', () => {
    const classes: SemanticClass[] = ['DEFINITION_TYPE', 'DEFINITION_TEST', 'BOUNDARY_ERROR', 'FLOW_BRANCHING', 'OPERATION_INVOCATION', 'DOCUMENTATION_STRUCTURED'];
    const table: Record<string, number[]> = {
      UNDERSTAND: [1.5, 1.0, 1, 1, 1, 1],
      IMPLEMENT: [1.3, 1.3, 1.3, 1, 1, 1],
      DEBUG: [1, 1, 1, 1.4, 1.4, 1],
      TEST: [1, 2.0, 1, 1, 1, 1],
      OPTIMIZE: [1, 1, 1, 1, 1, 1],
    };
    for (const [it, factors] of Object.entries(table)) {
      const cs = classes.map((cls, i) => candidate(chunk({ path: `src/m${i}.ts`, kind: 'function', symbol: `f${i}`, content: `function f${i}() {}`, semanticClass: cls }), 1));
      applyCodeIntent(cs, intent(it));
      cs.forEach((c, i) => {
        assert.ok(Math.abs(c.score - factors[i]) < 1e-9, `${it} × ${classes[i]}: ${c.score}`);
        assert.equal(c.explanation.length, factors[i] === 1 ? 0 : 1);
      });
    }
    const c = candidate(chunk({ path: 'src/a.ts', kind: 'class', symbol: 'A', content: 'class A {}', semanticClass: 'DEFINITION_TYPE' }), 1);
    applyCodeIntent([c], intent('IMPLEMENT'));
    assert.deepEqual(c.explanation, ['intent IMPLEMENT (0.72: "implement", "add") ×1.3 for DEFINITION_TYPE']);
  });

  it('code intents leave document/knowledge chunks alone (section, text, markdown)', () => {
    const md = candidate(section('docs/auth.md', 'Auth > Overview', 'How authentication works.', 1), 1);
    const txt = candidate(chunk({ path: 'notes/auth.txt', kind: 'text', content: 'authentication notes', semanticClass: 'DEFINITION_DATA' }), 1);
    const mdCode = candidate(chunk({ path: 'docs/x.md', kind: 'code', content: 'x', semanticClass: 'DEFINITION_TYPE', language: 'markdown' }), 1);
    const noChunk = { id: 'x', path: 'src/x.ts', score: 1, explanation: [] as string[] };
    applyCodeIntent([md, txt, mdCode, noChunk], intent('UNDERSTAND', 1));
    for (const c of [md, txt, mdCode, noChunk]) assert.deepEqual([c.score, c.explanation.length], [1, 0]);
  });

  it('no effect without an intent, below the confidence threshold, or for an unknown intent', () => {
    for (const it of [null, intent('IMPLEMENT', 0.3), intent('BRAINSTORM', 0.9)]) {
      const pool = example1Pool();
      const out = applyCodeIntent(pool, it);
      assert.deepEqual(out.map((c) => c.score), [0.78, 0.75, 0.92 / 1.5, 0.58]);
      assert.ok(out.every((c) => c.explanation.length === 0));
    }
    // Through the stage: an unknown explicit --intent is ignored (FR-028), a cue-less query has no intent.
    const out = codeIntentStage().apply(ctxFor('AuthMiddleware', 'brainstorm'), example1Pool());
    assert.deepEqual(symbols(out), ['validate_jwt_token', 'auth_fixtures', 'AuthMiddleware', 'authenticate_user']);
    assert.ok(out.every((c) => c.explanation.length === 0));
  });

  it('detects from the query when the pipeline attached no intent; an attached intent wins', () => {
    const detected = codeIntentStage().apply(ctxFor('how does authentication work'), example1Pool());
    assert.equal(symbols(detected)[0], 'AuthMiddleware');
    assert.match(detected[0].explanation[0], /^intent UNDERSTAND \(0\.\d+: "how does", "work"\) ×1\.5 for DEFINITION_TYPE$/);
    const attached = codeIntentStage().apply(ctxFor('how does authentication work', null, { codeTask: intent('TEST', 0.9, ['test']), information: null }), example1Pool());
    assert.equal(symbols(attached)[0], 'auth_fixtures');
    assert.ok(Math.abs(attached[0].score - 1.5) < 1e-9);
  });

  it('optional ImportanceScores × AgentTask factor: off by default, explainable when on', () => {
    const off = applyCodeIntent(example1Pool(), intent('UNDERSTAND', 1));
    assert.ok(off.every((c) => !c.explanation.some((l) => l.includes('importance'))));
    const on = applyCodeIntent(example1Pool(), intent('UNDERSTAND', 1), { importanceWeight: 0.5 });
    const mw = on.find((c) => c.chunk!.symbol === 'AuthMiddleware')!;
    const tests = on.find((c) => c.chunk!.symbol === 'auth_fixtures')!;
    assert.match(mw.explanation[0], /×1\.5 for DEFINITION_TYPE × importance 1\.\d+ \(SEARCH 0\.\d+\)/);
    assert.ok(mw.score > 0.92, 'a high-discovery class gains under SEARCH');
    assert.ok(tests.score < 0.75, 'a low-discovery class loses under SEARCH');
  });

  it('deterministic and stable: equal scores keep their input order', () => {
    const mk = () => ['a', 'b', 'c', 'd'].map((s) => candidate(chunk({ path: `src/${s}.ts`, kind: 'function', symbol: s, content: `function ${s}() {}`, semanticClass: 'DEFINITION_CALLABLE' }), 1));
    const x = applyCodeIntent(mk(), intent('UNDERSTAND'));
    const y = applyCodeIntent(mk(), intent('UNDERSTAND'));
    assert.deepEqual(symbols(x), ['a', 'b', 'c', 'd']);
    assert.deepEqual(x.map((c) => [c.score, c.explanation]), y.map((c) => [c.score, c.explanation]));
  });
});

describe('intents/stages: both vocabularies in one pipeline (PRODUCT.md, seed 004 with seed 002)', () => {
  it('a query carries both intents; each applies where it fits', () => {
    const d = detectIntents('what is the difference between AuthMiddleware and authenticate_user');
    assert.equal(d.codeTask?.intentType, 'UNDERSTAND');
    assert.equal(d.information?.intent, 'COMPARISON');
    const e = example1();
    const cmp = section('docs/auth.md', 'Auth > Middleware vs function', '## Middleware vs function\nAuthMiddleware versus authenticate_user: the difference is where the check runs.', 40);
    const other = section('docs/auth.md', 'Auth > Setup', '## Setup\nInstall the package and set AUTH_SECRET.', 10);
    const pool = [candidate(e.tokens, 0.78), candidate(other, 0.65), candidate(e.middleware, 0.6), candidate(cmp, 0.6), candidate(e.tests, 0.5)];
    const out = runStages([informationIntentStage(), codeIntentStage()], ctxFor('what is the difference between AuthMiddleware and authenticate_user', null, d), pool);
    const byId = new Map(out.map((c) => [c.chunk!.symbol, c]));
    // Code chunk: multiplied, no information bonus.
    assert.ok(Math.abs(byId.get('AuthMiddleware')!.score - 0.9) < 1e-9);
    assert.equal(ann(byId.get('AuthMiddleware')!).intentBonus, 0);
    // Document chunk: bonus, no multiplier.
    const c = byId.get('Auth > Middleware vs function')!;
    assert.equal(ann(c).intentBonus, 0.3);
    assert.equal(ann(c).codeTask, undefined);
    assert.equal(c.explanation.length, 1);
    // AuthMiddleware 0.6 × 1.5 = 0.9 leads; the comparison section (0.6) gains 0.3 × range (0.78 − 0.5) = 0.084
    // on the score scale and overtakes the more similar Setup section (0.65); the test fixture stays last.
    assert.ok(Math.abs(c.score - (0.6 + 0.3 * (0.78 - 0.5))) < 1e-9, `${c.score}`);
    assert.deepEqual(symbols(out), ['AuthMiddleware', 'validate_jwt_token', 'Auth > Middleware vs function', 'Auth > Setup', 'auth_fixtures']);
    for (let i = 1; i < out.length; i++) assert.ok(out[i - 1].score >= out[i].score);
  });

  it('both stages run 100 candidates in < 100 ms', () => {
    const e = example1();
    const bases = [e.middleware, e.utils, e.tokens, e.tests, section('docs/eval.md', 'Eval > Results', 'Reached 81% (n = 40): good.', 100)];
    const pool = () => Array.from({ length: 100 }, (_, i) => candidate({ ...bases[i % bases.length], id: `c${i}` }, (i * 7919) % 100 / 100));
    const stages = [informationIntentStage(), codeIntentStage()];
    const ctx = ctxFor('what are the results of the authentication tests', 'test');
    runStages(stages, ctx, pool()); // warm-up
    const t0 = performance.now();
    runStages(stages, ctxFor('what are the results of the authentication tests', 'test'), pool());
    const ms = performance.now() - t0;
    assert.ok(ms < 100, `${ms.toFixed(2)} ms`);
  });
});
