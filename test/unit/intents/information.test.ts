import assert from 'node:assert/strict';
import {
  INFO_CUES,
  INFO_INTENTS,
  INFO_RULES,
  type InfoIntent,
  type InfoIntentRule,
  applyInformationIntent,
  candidatePoolSize,
  detectInformationIntent,
  infoBonus,
  informationIntentStage,
  informationRerank,
} from '../../../server/src/engine/ranking/intents';
import type { Candidate } from '../../../server/src/engine/ranking/candidate';
import { ann, candidate, chunk, ctxFor, section } from './helpers';

const rule = (intent: string): InfoIntentRule => INFO_RULES.find((r) => r.intent === intent)!;
const intentOf = (intent: string, confidence = 0.8): InfoIntent => ({ intent, confidence, reasoning: 'test', source: 'detected', cues: ['test'], rule: rule(intent) });
const doc = (text: string, sectionPath = '', startLine = 200) => ({ text, section: sectionPath, startLine });

/** A knowledge base: an evaluation write-up split by headings (as chunkMarkdown does), plus a code chunk. */
const EVAL = 'docs/evaluation.md';
function corpus() {
  return {
    abstract: section(EVAL, 'Retrieval Evaluation > Abstract', '## Abstract\nWe study how hybrid retrieval ranks code and prose for developer questions.', 3),
    intro: section(EVAL, 'Retrieval Evaluation > Introduction', '## Introduction\nCode search helps developers find where behaviour lives in a large repository.', 8),
    method: section(EVAL, 'Retrieval Evaluation > Method', '## Method\nThe pipeline has one step per channel: the lexical algorithm scores fields with BM25, then dense vectors.', 60),
    results: section(EVAL, 'Retrieval Evaluation > Results', '## Results\nHybrid retrieval reached 81% precision at 5 on 40 queries, up from 67% for BM25 alone.', 120),
    comparison: section(EVAL, 'Retrieval Evaluation > Discussion', '## Discussion\nCompared with dense-only search, the difference is largest for identifiers: BM25 vs embeddings.', 160),
    usage: section('docs/api.md', 'API > find_code', '## find_code\nCall it as `find_code(query="parse config", max_results=5)`: it returns matches.', 210),
    prose: section('docs/notes.md', 'Notes > Background', '## Background\nThe team prefers small modules and short functions with clear names.', 240),
    code: chunk({ path: 'src/search.ts', kind: 'function', symbol: 'search', content: 'export function search(q: string) {\n  return run(q, 10);\n}', semanticClass: 'DEFINITION_CALLABLE', startLine: 4 }),
  };
}

describe('intents/information: seed 004 intent-aware re-ranking', () => {
  describe('query detection (intent_info)', () => {
    const TABLE: ReadonlyArray<[string, string | null]> = [
      ['what are the results of the evaluation', 'RESULT'],
      ['how much faster is hybrid search in percent', 'RESULT'],
      ['precision metrics of the benchmark', 'RESULT'],
      ['which algorithm does the chunker use', 'METHOD'],
      ['methodology of the evaluation', 'METHOD'],
      ['steps of the indexing pipeline', 'METHOD'],
      ['how to use the find_code api', 'API_USAGE'],
      ['find_code() parameters', 'API_USAGE'],
      ['usage example for quarry search', 'API_USAGE'],
      ['what is a semantic class', 'DEFINITION'],
      ['define activation score', 'DEFINITION'],
      ['compare bm25 versus dense retrieval', 'COMPARISON'],
      ['difference between section and text chunks', 'COMPARISON'],
      ['bm25 vs splade', 'COMPARISON'],
      ['AuthMiddleware', null],
      ['lexical index', null],
      ['reduce memory usage of the indexer', null],
    ];
    for (const [q, expected] of TABLE) {
      it(`"${q}" → ${expected ?? 'null'}`, () => {
        const got = detectInformationIntent(q);
        assert.equal(got?.intent ?? null, expected, got?.reasoning);
        if (got) {
          assert.ok(got.confidence >= 0.4 && got.confidence <= 1);
          assert.ok(got.rule, 'the intent carries its rule');
          assert.match(got.reasoning, /cues "/);
        }
      });
    }
    it('every information intent has cues and a rule row', () => {
      for (const t of INFO_INTENTS) {
        assert.ok(INFO_CUES.some((c) => c.intent === t), t);
        assert.equal(rule(t).intent, t);
        assert.deepEqual([rule(t).minBonus, rule(t).maxBonus], [0.1, 0.3]);
      }
    });
    it('an explicit information intent (case-insensitive) wins with confidence 1; unknown ones are ignored', () => {
      const got = detectInformationIntent('AuthMiddleware', 'comparison')!;
      assert.deepEqual([got.intent, got.confidence, got.source], ['COMPARISON', 1, 'explicit']);
      assert.equal(detectInformationIntent('AuthMiddleware', 'gossip'), null);
    });
  });

  describe('§2 heuristics (bonus per rule, range +0.1..+0.3)', () => {
    it('§2.1 RESULT: section "Results", digits, "%"', () => {
      const r = rule('RESULT');
      assert.equal(infoBonus(r, doc('Precision went up.', 'Paper > Results')).bonus, 0.15);
      assert.equal(infoBonus(r, doc('We indexed 40 repositories.')).bonus, 0.1, 'digits alone earn the minimum');
      assert.equal(infoBonus(r, doc('Most of the gain, in %, came from names.')).bonus, 0.1);
      assert.equal(infoBonus(r, doc('Reached 81% precision.', 'Paper > Results')).bonus, 0.3);
      assert.equal(infoBonus(r, doc('No numbers here.', 'Paper > Related work')).bonus, 0);
      const b = infoBonus(r, doc('Reached 81% precision.', 'Paper > Results'));
      assert.deepEqual(b.fired, ['section "Results" +0.15', 'digits +0.05', '"%" +0.1']);
    });
    it('§2.2 METHOD: section "Method", keywords algorithm / pipeline / step', () => {
      const r = rule('METHOD');
      assert.equal(infoBonus(r, doc('We describe the system.', 'Paper > Methods')).bonus, 0.15);
      assert.equal(infoBonus(r, doc('The algorithm is simple.')).bonus, 0.1);
      assert.equal(infoBonus(r, doc('Each step of the pipeline runs the algorithm.')).bonus, 0.15);
      assert.equal(infoBonus(r, doc('Each step of the pipeline runs the algorithm.', 'Paper > Method')).bonus, 0.3);
      assert.equal(infoBonus(r, doc('Nothing procedural.', 'Paper > Results')).bonus, 0);
    });
    it('§2.3 API_USAGE: code-like symbols; more symbols, higher bonus', () => {
      const r = rule('API_USAGE');
      const one = infoBonus(r, doc('Set limit = 5 for fewer results')).bonus;
      const two = infoBonus(r, doc('Call search(query) to run it')).bonus;
      const all = infoBonus(r, doc('result = search(query="x", limit: 5)')).bonus;
      assert.equal(one, 0.1);
      assert.ok(two > one && all > two, `${one} < ${two} < ${all}`);
      assert.equal(all, 0.3);
      assert.equal(infoBonus(r, doc('Plain prose without any symbols')).bonus, 0);
    });
    it('§2.4 DEFINITION: section "Abstract"/"Introduction", early section', () => {
      const r = rule('DEFINITION');
      assert.equal(infoBonus(r, doc('We study search.', 'Paper > Abstract')).bonus, 0.2);
      assert.equal(infoBonus(r, doc('We study search.', 'Paper > 1. Introduction')).bonus, 0.2, 'numbered headings count');
      assert.equal(infoBonus(r, doc('We study search.', 'Paper > Abstract', 3)).bonus, 0.3);
      assert.equal(infoBonus(r, doc('Some early text.', 'Paper > Setup', 12)).bonus, 0.1, 'an early section alone earns the minimum');
      assert.equal(infoBonus(r, doc('Late text.', 'Paper > Appendix', 400)).bonus, 0);
      assert.equal(infoBonus(r, doc('Late text.', 'Paper > Introduction of caching', 400)).bonus, 0, 'the section must BE Abstract/Introduction');
    });
    it('§2.5 COMPARISON: keywords compare / difference / versus / vs, case-insensitive', () => {
      const r = rule('COMPARISON');
      assert.equal(infoBonus(r, doc('We COMPARE the two stores.')).bonus, 0.1);
      assert.equal(infoBonus(r, doc('The Difference is small.')).bonus, 0.1);
      assert.equal(infoBonus(r, doc('BM25 Versus dense.')).bonus, 0.1);
      assert.equal(infoBonus(r, doc('BM25 VS dense, a difference we compare below.')).bonus, 0.3);
      assert.equal(infoBonus(r, doc('Nothing to contrast here.')).bonus, 0);
    });
    it('every bonus lies in {0} ∪ [0.1, 0.3]', () => {
      const texts = ['', 'x', '81% = (a): b', 'algorithm pipeline step', 'compare difference versus vs', 'plain'];
      const sections = ['', 'Paper > Results', 'Paper > Method', 'Paper > Abstract'];
      for (const r of INFO_RULES) for (const t of texts) for (const s of sections) for (const line of [1, 500]) {
        const b = infoBonus(r, doc(t, s, line)).bonus;
        assert.ok(b === 0 || (b >= 0.1 && b <= 0.3), `${r.intent} ${b}`);
      }
    });
  });

  describe('§1 re-ranking and output', () => {
    it('§1.1 the candidate pool is 2 × top_k', () => {
      assert.equal(candidatePoolSize(5), 10);
      assert.equal(candidatePoolSize(50), 100);
    });

    it('§1.2 + US-1: final = similarity + bonus, re-sorted, top_k returned; a less similar Results chunk overtakes', () => {
      const k = corpus();
      // Given a pool of 2 × top_k (top_k = 2) whose best similarity is plain prose,
      const pool = [candidate(k.prose, 10), candidate(k.results, 9), candidate(k.method, 8.5), candidate(k.abstract, 6)];
      // When a RESULT query re-ranks it,
      const out = informationRerank(pool, detectInformationIntent('what were the results of the evaluation'), 2);
      // Then the Results section comes first and only top_k come back.
      assert.deepEqual(out.map((c) => c.chunk!.symbol), ['Retrieval Evaluation > Results', 'Notes > Background']);
      const r = ann(out[0]);
      assert.equal(r.similarityScore, 0.75); // (9 − 6) / (10 − 6)
      assert.equal(r.intentBonus, 0.3);
      assert.equal(r.finalScore, 1.05);
      assert.ok(Math.abs(r.finalScore! - (r.similarityScore! + r.intentBonus!)) < 1e-9);
      assert.ok(Math.abs(out[0].score - (9 + 0.3 * 4)) < 1e-9, 'the bonus is applied on the score scale (bonus × range)');
      for (let i = 1; i < out.length; i++) assert.ok(out[i - 1].score >= out[i].score);
    });

    it('§1.3 + NFR-2: every result reports score, similarity_score, intent_bonus and the rule with its components', () => {
      const k = corpus();
      const out = applyInformationIntent([candidate(k.results, 8), candidate(k.prose, 4), candidate(k.code, 6)], intentOf('RESULT'));
      for (const c of out) {
        const a = ann(c);
        assert.equal(typeof a.similarityScore, 'number');
        assert.equal(typeof a.intentBonus, 'number');
        assert.equal(typeof a.finalScore, 'number');
        assert.equal(a.infoIntent, 'RESULT');
        assert.ok(c.chunk!.content.length > 0 && c.chunk!.path, 'text and metadata travel on the chunk');
      }
      const res = ann(out[0]);
      assert.equal(res.rule, 'RESULT: section "Results" +0.15, digits +0.05, "%" +0.1');
      assert.equal(out[0].explanation.length, 1);
      assert.match(out[0].explanation[0], /^intent RESULT \(0\.8: "test"\) \+0\.3 \[section "Results" \+0\.15, digits \+0\.05, "%" \+0\.1\] on similarity 1 → 1\.3$/);
      const prose = out.find((c) => c.chunk === k.prose)!;
      assert.deepEqual([ann(prose).intentBonus, ann(prose).rule, prose.explanation.length], [0, null, 0]);
    });

    it('information intents apply to document/knowledge chunks only (code chunks keep their score)', () => {
      const k = corpus();
      const code = candidate(chunk({ path: 'src/metrics.ts', kind: 'function', symbol: 'percent', content: 'const pct = (a: number) => `${a * 100}%`; // Results', semanticClass: 'DEFINITION_CALLABLE' }), 5);
      const text = candidate(chunk({ path: 'notes/results.txt', kind: 'text', content: 'Run 3: 92% of queries answered.' }), 5);
      const out = applyInformationIntent([code, text, candidate(k.prose, 1)], intentOf('RESULT'));
      assert.equal(code.score, 5);
      assert.equal(ann(code).intentBonus, 0);
      assert.ok(text.score > 5, 'a plain-text window is a knowledge chunk');
      assert.equal(out[0], text);
    });

    it('§2.6 unknown or low-confidence intent: no bonus, pure similarity ranking', () => {
      const k = corpus();
      const make = () => [candidate(k.prose, 10), candidate(k.results, 8), candidate(k.comparison, 7)];
      const order = (cs: Candidate[]) => cs.map((c) => c.chunk!.symbol);
      const expected = order(make());
      for (const intent of [null, detectInformationIntent('AuthMiddleware'), intentOf('RESULT', 0.2), { ...intentOf('RESULT'), intent: 'MOOD', rule: null }]) {
        const cs = make();
        const out = applyInformationIntent(cs, intent);
        assert.deepEqual(order(out), expected);
        assert.deepEqual(out.map((c) => c.score), [10, 8, 7]);
        for (const c of out) assert.deepEqual([ann(c).intentBonus, c.explanation.length], [0, 0]);
      }
    });

    it('every intent type has a measurable impact on ranking', () => {
      const k = corpus();
      const cases: Array<[string, keyof ReturnType<typeof corpus>]> = [
        ['RESULT', 'results'],
        ['METHOD', 'method'],
        ['API_USAGE', 'usage'],
        ['DEFINITION', 'abstract'],
        ['COMPARISON', 'comparison'],
      ];
      for (const [intent, target] of cases) {
        // The target starts last, just below a plain chunk without the intent's features.
        const plain = candidate(chunk({ path: 'docs/plain.md', kind: 'section', symbol: 'Plain > Notes', content: 'Plain words only', startLine: 300, language: 'markdown' }), 1.05);
        const low = candidate(chunk({ path: 'docs/low.md', kind: 'section', symbol: 'Low > Notes', content: 'Nothing', startLine: 300, language: 'markdown' }), 0);
        const t = candidate(k[target], 1);
        const out = applyInformationIntent([plain, t, low], intentOf(intent));
        assert.equal(out[0], t, `${intent}: ${out.map((c) => c.chunk!.symbol).join(', ')}`);
      }
    });

    it('the stage reads ctx.intent, or detects from the query when the pipeline attached none', () => {
      const k = corpus();
      const make = () => [candidate(k.prose, 3), candidate(k.comparison, 2.9), candidate(k.usage, 0)];
      const detected = informationIntentStage().apply(ctxFor('compare bm25 versus dense retrieval'), make());
      assert.equal(detected[0].chunk, k.comparison);
      const pinned = informationIntentStage().apply(ctxFor('compare bm25 versus dense retrieval', null, { codeTask: null, information: null }), make());
      assert.equal(pinned[0].chunk, k.prose, 'an attached "no intent" is respected');
      const explicit = informationIntentStage().apply(ctxFor('bm25 and dense', 'COMPARISON'), make());
      assert.equal(explicit[0].chunk, k.comparison);
    });

    it('NFR-1/NFR-3: a new intent is one data row (rule + cues), no code changes', () => {
      const TROUBLESHOOT: InfoIntentRule = {
        intent: 'TROUBLESHOOT',
        minBonus: 0.1,
        maxBonus: 0.3,
        features: [{ id: 'section~Troubleshooting', label: 'section "Troubleshooting"', earn: (d) => (/troubleshoot/i.test(d.section) ? 0.25 : 0) }],
      };
      const config = { rules: [...INFO_RULES, TROUBLESHOOT], cues: [...INFO_CUES, { intent: 'TROUBLESHOOT', pattern: /\btroubleshoot\w*/, weight: 1, label: 'troubleshoot' }] };
      const intent = detectInformationIntent('troubleshooting the index rebuild', null, config)!;
      assert.equal(intent.intent, 'TROUBLESHOOT');
      const ts = candidate(section('docs/faq.md', 'FAQ > Troubleshooting', 'Delete .quarry and run quarry index.', 90), 1);
      const other = candidate(section('docs/faq.md', 'FAQ > Install', 'npm i -g quarry', 10), 1.2);
      const out = applyInformationIntent([other, ts, candidate(section('docs/faq.md', 'FAQ > Misc', 'Other.', 120), 0)], intent);
      assert.equal(out[0], ts);
      assert.equal(ann(ts).intentBonus, 0.25);
    });

    it('is deterministic: same input, same scores, order and explanations', () => {
      const run = () => {
        const k = corpus();
        const out = applyInformationIntent(
          [candidate(k.prose, 2), candidate(k.results, 2), candidate(k.method, 2), candidate(k.abstract, 1)],
          intentOf('RESULT'),
        );
        return out.map((c) => [c.chunk!.symbol, c.score, c.explanation.join('|')]);
      };
      assert.deepEqual(run(), run());
    });

    it('§4.2 re-ranking 100 candidates takes < 100 ms', () => {
      const k = corpus();
      const pool = () =>
        Array.from({ length: 100 }, (_, i) => {
          const base = [k.abstract, k.intro, k.method, k.results, k.comparison, k.usage, k.prose, k.code][i % 8];
          return candidate({ ...base, id: `${base.id}#${i}`, content: base.content.repeat(20) }, Math.sin(i) * 10);
        });
      for (const intent of INFO_INTENTS) applyInformationIntent(pool(), intentOf(intent)); // warm-up
      for (const intent of INFO_INTENTS) {
        const cs = pool();
        const t0 = performance.now();
        applyInformationIntent(cs, intentOf(intent));
        const ms = performance.now() - t0;
        assert.ok(ms < 100, `${intent}: ${ms.toFixed(2)} ms`);
      }
    });
  });
});
