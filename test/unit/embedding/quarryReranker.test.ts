import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FEATURE_NAMES, queryStems, rerankFeatures } from '../../../server/src/engine/embedding/rerankers/learned/features';
import { readRerankModel, scoreRow, RERANK_MODEL_FORMAT } from '../../../server/src/engine/embedding/rerankers/learned/model';
import { QuarryReranker } from '../../../server/src/engine/embedding/rerankers/quarry';
import { bundledModelDir, chooseReranker, createReranker } from '../../../server/src/engine/embedding/registry';
import { StaticEmbeddingProvider } from '../../../server/src/engine/embedding/providers/static';
import { ProviderUnavailableError } from '../../../server/src/engine/embedding/types';
import { learnedScorerStage } from '../../../server/src/engine/ranking/stages/learnedScorer';
import { stageContext } from '../../support/chunks';
import { parseQuery } from '../../../server/src/engine/ranking/query';
import type { Candidate } from '../../../server/src/engine/ranking/candidate';
import { candidate, chunk } from '../../support/chunks';

const feature = (row: Float32Array, name: (typeof FEATURE_NAMES)[number]) => row[FEATURE_NAMES.indexOf(name)]!;

const lockCheck = chunk({
  kind: 'function', name: 'isStaleLock', path: 'src/indexer/lock.ts', language: 'typescript',
  signature: 'function isStaleLock(lock: LockFile): boolean', content: 'function isStaleLock(lock: LockFile): boolean {\n  return !pidAlive(lock.pid);\n}',
  startLine: 10, endLine: 12,
});
const render = chunk({
  kind: 'method', name: 'render', container: 'Table', symbol: 'Table.render', path: 'src/cli/table.ts', language: 'typescript',
  content: 'render(rows: Row[]): string {\n  return rows.map((r) => r.cells.join(" | ")).join("\\n");\n}', startLine: 1, endLine: 40,
});
const readme = chunk({ kind: 'section', name: 'Locks', path: 'docs/locks.md', language: 'markdown', content: '## Locks\nA stale lock is removed when its process is gone.' });

function lists(): Candidate[] {
  const a = candidate(render, 3);
  a.bm25 = { score: 3, matches: [{ field: 'body', token: 'stale', tf: 1, df: 3, idf: 1.2, contribution: 3 }] };
  const b = candidate(lockCheck, 2);
  b.bm25 = { score: 2, matches: [{ field: 'name', token: 'stale', tf: 1, df: 1, idf: 2, contribution: 1.5 }, { field: 'path', token: 'lock', tf: 1, df: 2, idf: 1.5, contribution: 0.5 }] };
  b.dense = { similarity: 0.6, rank: 1 };
  const c = candidate(readme, 1);
  c.dense = { similarity: 0.4, rank: 2 };
  return [a, b, c];
}

describe('quarry-rerank features', () => {
  it('one row per candidate with every named feature, in the pipeline order', () => {
    const rows = rerankFeatures(parseQuery('detect a stale lock'), lists());
    assert.equal(rows.length, 3);
    for (const r of rows) assert.equal(r.length, FEATURE_NAMES.length);
    assert.equal(new Set(FEATURE_NAMES).size, FEATURE_NAMES.length);
    assert.deepEqual(rows.map((r) => feature(r, 'rank_recip')), [1, 0.5, 1 / 3].map((v) => Math.fround(v)));
    assert.deepEqual(rows.map((r) => feature(r, 'score_rel')), [1, 2 / 3, 1 / 3].map((v) => Math.fround(v)));
  });

  it('channel features: present flags, relative scores, ranks within the list; zero when a channel did not find it', () => {
    const [a, b, c] = rerankFeatures(parseQuery('detect a stale lock'), lists());
    assert.equal(feature(a!, 'bm25_present'), 1);
    assert.equal(feature(c!, 'bm25_present'), 0);
    assert.equal(feature(b!, 'bm25_rel'), Math.fround(2 / 3));
    assert.equal(feature(b!, 'bm25_rank_recip'), 0.5);
    assert.equal(feature(a!, 'dense_present'), 0);
    assert.equal(feature(b!, 'dense_sim'), Math.fround(0.6));
    assert.equal(feature(b!, 'dense_minmax'), 1);
    assert.equal(feature(c!, 'dense_minmax'), 0);
    assert.equal(feature(c!, 'dense_rank_recip'), 0.5);
  });

  it('field shares of the keyword score and query coverage of name, path and body (stemmed, without function words)', () => {
    assert.deepEqual([...queryStems('how do we detect the stale locks')].sort(), ['detect', 'lock', 'stale']);
    const [a, b] = rerankFeatures(parseQuery('detect a stale lock'), lists());
    assert.equal(feature(a!, 'share_body'), 1);
    assert.equal(feature(b!, 'share_name'), 0.75);
    assert.equal(feature(b!, 'share_path'), 0.25);
    assert.equal(feature(b!, 'cov_name'), Math.fround(2 / 3)); // isStaleLock: stale, lock
    assert.equal(feature(b!, 'cov_path'), Math.fround(1 / 3)); // lock.ts
    assert.equal(feature(a!, 'cov_name'), 0);
    assert.equal(feature(b!, 'kind_function'), 1);
    assert.equal(feature(a!, 'kind_method'), 1);
  });

  it('body coverage is remembered by content: the same rows on a repeated search, new rows for new content', () => {
    const query = parseQuery('detect a stale lock');
    const first = rerankFeatures(query, lists());
    assert.deepEqual(rerankFeatures(query, lists()), first);
    // the same chunk id with other content (an edited file) is stemmed anew
    const edited = chunk({ ...lockCheck, content: 'return detectStale(timeout);' });
    const [row] = rerankFeatures(query, [candidate(edited, 1)]);
    assert.equal(feature(row!, 'cov_body'), Math.fround(2 / 3)); // detect, stale (no "lock" in the new body)
    assert.equal(feature(first[1]!, 'cov_body'), Math.fround(2 / 3)); // stale, lock
  });

  it('similarity features come from the code model when one is given, else stay 0', () => {
    const without = rerankFeatures(parseQuery('detect a stale lock'), lists());
    assert.ok(without.every((r) => feature(r, 'name_sim') === 0 && feature(r, 'signature_sim') === 0));
    const model = StaticEmbeddingProvider.load(join(__dirname, '..', '..', '..', 'models', 'quarry-code'));
    const [a, b] = rerankFeatures(parseQuery('detect a stale lock'), lists(), (t) => model.embed(t));
    assert.ok(feature(b!, 'name_sim') > feature(a!, 'name_sim'), `${feature(b!, 'name_sim')} vs ${feature(a!, 'name_sim')}`);
  });
});

describe('quarry-rerank model file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'quarry-rerank-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const tiny = (over: Record<string, unknown> = {}) => ({
    format: RERANK_MODEL_FORMAT, name: 'tiny', version: '1', features: [...FEATURE_NAMES], embedding: 'quarry-code',
    mean: FEATURE_NAMES.map(() => 0), std: FEATURE_NAMES.map(() => 1),
    layers: [
      { weights: [FEATURE_NAMES.map((n) => (n === 'cov_name' ? 2 : 0)), FEATURE_NAMES.map((n) => (n === 'rank_recip' ? 1 : 0))], bias: [0, 0], activation: 'linear' },
      { weights: [[1, 0.5]], bias: [0.25], activation: 'linear' },
    ],
    ...over,
  });

  it('evaluates the layers on standardised features', () => {
    writeFileSync(join(dir, 'model.json'), JSON.stringify(tiny()));
    const m = readRerankModel(dir);
    const row = new Float32Array(FEATURE_NAMES.length);
    row[FEATURE_NAMES.indexOf('cov_name')] = 0.5;
    row[FEATURE_NAMES.indexOf('rank_recip')] = 1;
    assert.equal(scoreRow(m, row), 2 * 0.5 + 0.5 * 1 + 0.25);
  });

  it('refuses a missing, malformed, mismatched or inconsistent model with the file, the cause and the fix', () => {
    const refused = (pattern: RegExp) => (e: unknown) => e instanceof ProviderUnavailableError && pattern.test(e.message) && /Fix:/.test(e.message) && e.message.includes(dir);
    assert.throws(() => readRerankModel(dir), refused(/cannot read/));
    writeFileSync(join(dir, 'model.json'), '{ not json');
    assert.throws(() => readRerankModel(dir), refused(/cannot read/));
    writeFileSync(join(dir, 'model.json'), JSON.stringify(tiny({ format: 'other/1' })));
    assert.throws(() => readRerankModel(dir), refused(/is not a quarry-rerank\/1 model \(format/));
    writeFileSync(join(dir, 'model.json'), JSON.stringify(tiny({ features: ['score_rel'] })));
    assert.throws(() => readRerankModel(dir), refused(/trained on other features/));
    writeFileSync(join(dir, 'model.json'), JSON.stringify(tiny({ mean: [0] })));
    assert.throws(() => readRerankModel(dir), refused(/inconsistent shapes \(mean/));
    const t = tiny();
    (t.layers[1] as { weights: number[][] }).weights = [[1, 0.5, 3]];
    writeFileSync(join(dir, 'model.json'), JSON.stringify(t));
    assert.throws(() => readRerankModel(dir), refused(/inconsistent shapes \(layer 1 inputs/));
  });

  it('a broken configured model fails the reranker at start, by name, and auto falls back to none without one', async () => {
    writeFileSync(join(dir, 'model.json'), '{}');
    await assert.rejects(createReranker({ provider: 'quarry', quarry: { modelPath: dir } }, { env: {} }), /quarry-rerank: .*model\.json is not a quarry-rerank\/1 model/);
    const home = mkdtempSync(join(tmpdir(), 'quarry-home-'));
    try {
      assert.equal(chooseReranker({ quarry: { modelName: 'no-such-model' } }, { env: {}, home }).provider, null);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('the bundled quarry-rerank', () => {
  it('is what auto picks without a Voyage key or a cross-encoder; Voyage still wins with a key; none turns it off', async () => {
    const home = mkdtempSync(join(tmpdir(), 'quarry-home-'));
    try {
      const auto = chooseReranker({}, { env: {}, home });
      assert.equal(auto.provider, 'quarry');
      assert.equal(auto.modelPath, bundledModelDir('quarry-rerank'));
      assert.equal(chooseReranker({}, { env: { VOYAGE_API_KEY: 'k' }, home }).provider, 'voyage');
      assert.equal(chooseReranker({ provider: 'none' }, { env: {}, home }).provider, null);
      const r = await createReranker({}, { env: {}, home });
      assert.ok(r instanceof QuarryReranker);
      assert.match(r.id, /^quarry-rerank:quarry-rerank@/);
      await r.close();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('loads, names its training in model.json, and sets the base score of a list through the learned-scorer stage with one line per candidate', async () => {
    const dir = bundledModelDir('quarry-rerank')!;
    const meta = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
    assert.ok(meta.training?.lists?.train > 0, 'model.json records its training lists');
    const r = QuarryReranker.load(dir, bundledModelDir('quarry-code'));
    const cands = lists();
    const scores = r.scoreCandidates(parseQuery('detect a stale lock'), cands);
    assert.equal(scores.length, 3);
    // logits (the listwise score the model was trained on), not squashed into (0, 1)
    assert.ok(scores.every((s) => Number.isFinite(s)));
    assert.ok(scores.some((s) => s <= 0 || s >= 1), `a logit outside (0, 1) among ${scores.join(', ')}`);
    const strategy: Array<'HYBRID_SEARCH' | 'SEMANTIC_RERANK'> = ['HYBRID_SEARCH'];
    const ctx = { ...stageContext('detect a stale lock'), scorer: r, scorerOptions: { candidates: 50, weight: 1 }, effects: { strategy, warnings: [] } };
    const out = await learnedScorerStage.apply(ctx, lists());
    assert.ok(strategy.includes('SEMANTIC_RERANK'));
    assert.equal(out.length, 3);
    // the two code candidates are scored; the README section (knowledge: not what the model was trained on) is not
    for (const c of out.filter((x) => x.chunk!.kind !== 'section')) {
      assert.ok(c.explanation.some((l) => /^scorer quarry-rerank:quarry-rerank@\S+: -?[\d.]+ \(#\d of 2 scored; fusion had it #\d\) → takes the fused score of scored #\d: [\d.]+$/.test(l)), c.explanation.join('\n'));
    }
    // the scored ones trade the fused scores they held (3 and 2); the README keeps its own
    assert.deepEqual(out.filter((x) => x.chunk!.kind !== 'section').map((x) => x.score).sort(), [2, 3]);
    assert.equal(out.find((x) => x.chunk!.kind === 'section')!.score, 1);
    assert.equal(r.health().requests, 2);
    await assert.rejects(r.rerank(), /scores search candidates/);
    await r.close();
    assert.throws(() => r.scoreCandidates(parseQuery('x y'), cands), /closed/);
  });

  it('a model directory from the workspace (.quarry/models/) is found before the bundled one', () => {
    const ws = mkdtempSync(join(tmpdir(), 'quarry-ws-'));
    try {
      const own = join(ws, '.quarry', 'models', 'quarry-rerank');
      mkdirSync(own, { recursive: true });
      writeFileSync(join(own, 'model.json'), readFileSync(join(bundledModelDir('quarry-rerank')!, 'model.json')));
      assert.equal(chooseReranker({}, { env: {}, workspaceDir: ws, home: ws }).modelPath, own);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
