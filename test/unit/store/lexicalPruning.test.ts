/**
 * The pruned top-k search (MaxScore, `LexicalIndex.search`) against the exhaustive reference (`searchExhaustive`):
 * the same hits, scores and explanations, on seeded random indexes with several segments, deletions, ties, every
 * query form's field weights, and k below and above the number of matches.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LexicalIndex, QueryTerm } from '../../../server/src/engine/store/lexical/lexicalIndex';
import { COUNT_SAMPLE, FIELDS, Field, LexicalDoc, WINDOW } from '../../../server/src/engine/store/lexical/segment';
import { QuarryConfigSchema } from '../../../server/src/engine/config/schema';
import { lexicalDocForChunk } from '../../../server/src/engine/indexer/lexicalDoc';
import { lexicalTerms, parseQuery } from '../../../server/src/engine/ranking/query';
import type { Chunk } from '../../../server/src/engine/types';
import { prng } from '../../../bench/metrics';

const BM25 = QuarryConfigSchema.parse({}).bm25;
const P = { k1: BM25.k1, b: BM25.b };

type Rand = () => number;
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)];
/** Zipf-like: low indexes far more often (a few very common terms, a long tail). */
const zipf = (rand: Rand, n: number): number => Math.min(n - 1, Math.floor(n ** rand()) - 1 + (rand() < 0.5 ? 0 : Math.floor(rand() * 2)));

const VOCAB = Array.from({ length: 300 }, (_, i) => `w${i.toString(36)}`);

function randomDoc(rand: Rand, id: string, path: string): LexicalDoc {
  const fields = {} as Record<Field, string[]>;
  for (const f of FIELDS) {
    const len = f === 'body' || f === 'stem' ? 1 + Math.floor(rand() * 30) : Math.floor(rand() * 5);
    fields[f] = Array.from({ length: len }, () => VOCAB[zipf(rand, VOCAB.length)]);
  }
  return { id, path, fields };
}

function randomQuery(rand: Rand): QueryTerm[] {
  const weights = pick(rand, [BM25.fieldWeights.identifier, BM25.fieldWeights.natural]);
  const terms: QueryTerm[] = [];
  const n = 1 + Math.floor(rand() * 12);
  for (let i = 0; i < n; i++) {
    const field = pick(rand, FIELDS);
    const token = rand() < 0.1 ? `absent${i}` : VOCAB[zipf(rand, VOCAB.length)];
    // field weight × the factors lexicalTerms applies (function words, other conventions, stems)
    const factor = pick(rand, [1, 1, 0.5, 0.2, 0.1]);
    const weight = weights[field] * factor;
    if (weight > 0) terms.push({ field, token, weight });
    if (rand() < 0.15) terms.push({ field, token, weight: weights[field] * 0.5 }); // a repeated term (merged)
  }
  return terms;
}

function assertSame(ix: LexicalIndex, terms: QueryTerm[], k: number, accept: ((p: string) => boolean) | undefined, what: string): { pruned: number; exact: number } {
  const pruned = ix.search(terms, k, P, accept);
  const exhaustive = ix.searchExhaustive(terms, k, P, accept);
  assert.deepStrictEqual(pruned.hits, exhaustive.hits, what);
  return { pruned: pruned.matched, exact: exhaustive.matched };
}

for (const [mode, inMemoryBelow] of [['postings in memory', undefined], ['postings read from the segment files', 0]] as const) {
  describe(`lexical index: pruned top-k equals exhaustive scoring (${mode})`, () => {
    const openIndex = (d: string, analyzer = 'test') => LexicalIndex.open(d, analyzer, { postingsInMemoryBelow: inMemoryBelow });
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'quarry-lexprune-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    for (const seed of [1, 2, 3, 4, 5, 6]) {
      it(`random index ${seed}: several segments, deletions and ties; every k; exact counts in small segments`, async () => {
        const rand = prng(seed);
        const ix = openIndex(dir);
        const paths = Array.from({ length: 40 + Math.floor(rand() * 80) }, (_, i) => (rand() < 0.25 ? `test/f${i}_test.go` : `src/f${i}.go`));
        let next = 0;
        const batches = 2 + Math.floor(rand() * 5);
        for (let b = 0; b < batches; b++) {
          const docs: LexicalDoc[] = [];
          const size = 20 + Math.floor(rand() * 200);
          for (let i = 0; i < size; i++) {
            const path = pick(rand, paths);
            const id = `${path}#${(next++).toString(36)}`;
            // Copies of an earlier document: equal scores, ordered by id.
            docs.push(rand() < 0.15 && docs.length ? { ...pick(rand, docs), id, path } : randomDoc(rand, id, path));
          }
          if (b > 0 && rand() < 0.7) ix.removePaths(paths.filter(() => rand() < 0.2));
          ix.add(docs);
          await ix.commit();
        }
        // Deletions still pending (not committed) count too.
        ix.removePaths(paths.filter(() => rand() < 0.1));
        assert.ok(ix.segmentCount >= 1);
        const accept = (p: string) => !p.startsWith('test/');
        for (let q = 0; q < 60; q++) {
          const terms = randomQuery(rand);
          for (const k of [1, 2, 5, 10, 37, 100, 10_000]) {
            for (const filter of [undefined, accept]) {
              const { pruned, exact } = assertSame(ix, terms, k, filter, `seed ${seed} query ${q} k ${k}`);
              // Every segment here is smaller than the count sample: the count is exact.
              assert.equal(pruned, exact, `seed ${seed} query ${q} k ${k}: matched`);
            }
          }
        }
      });
    }

    it('equals the reference in segments of many windows (skipped windows, window-local essential terms)', async () => {
      const rand = prng(21);
      const ix = openIndex(dir);
      // Clustered documents: runs of similar documents, so that some windows hold a rare term and most do not.
      let id = 0;
      for (const size of [WINDOW * 7 + 13, WINDOW * 3 + 200, 150]) {
        const docs: LexicalDoc[] = [];
        let theme = randomDoc(rand, 'x', 'x');
        for (let i = 0; i < size; i++) {
          if (rand() < 0.01) theme = randomDoc(rand, 'x', 'x');
          const path = `${rand() < 0.2 ? 'test' : 'src'}/f${Math.floor(id / 3)}.go`;
          const d = rand() < 0.5 ? { ...theme, id: `d${(id++).toString(36)}`, path } : randomDoc(rand, `d${(id++).toString(36)}`, path);
          if (rand() < 0.02) d.fields = { ...d.fields, name: [...d.fields.name, 'rare' + Math.floor(rand() * 5)] };
          docs.push(d);
        }
        ix.add(docs);
        await ix.commit();
      }
      ix.removePaths(Array.from({ length: 30 }, () => `src/f${Math.floor(rand() * (id / 3))}.go`));
      const accept = (p: string) => !p.startsWith('test/');
      for (let q = 0; q < 50; q++) {
        const terms = randomQuery(rand);
        if (q % 2) terms.push({ field: 'name', token: `rare${q % 5}`, weight: pick(rand, [1, 4, 10]) });
        for (const k of [1, 10, 100]) for (const filter of [undefined, accept]) assertSame(ix, terms, k, filter, `query ${q} k ${k}`);
      }
    });

    it('recomputes score bounds when the average field length or k1/b change', async () => {
      const rand = prng(31);
      const ix = openIndex(dir);
      const short = (i: number): LexicalDoc => {
        const d = randomDoc(rand, `s${i}`, `s${i}.go`);
        d.fields.body = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => VOCAB[zipf(rand, 40)]);
        return d;
      };
      ix.add(Array.from({ length: WINDOW * 2 }, (_, i) => short(i)));
      await ix.commit();
      const queries = Array.from({ length: 30 }, () => randomQuery(rand).map((q) => ({ ...q, field: 'body' as Field })));
      for (const terms of queries) for (const k of [1, 5, 20]) assertSame(ix, terms, k, undefined, 'short documents');
      // Long documents raise the body's avgdl: every short document's tf factor rises above the bounds cached so far.
      ix.add(Array.from({ length: WINDOW * 4 }, (_, i) => ({ ...short(i), id: `l${i}`, path: `l${i}.go`, fields: { ...short(i).fields, body: Array.from({ length: 300 }, () => VOCAB[100 + zipf(rand, 200)]) } })));
      await ix.commit();
      for (const [qi, terms] of queries.entries()) for (const k of [1, 5, 20]) assertSame(ix, terms, k, undefined, `after long documents: query ${qi} k ${k}`);
      for (const params of [{ k1: 0.6, b: 1 }, { k1: 3, b: 0.2 }]) {
        for (const [qi, terms] of queries.entries()) {
          const pruned = ix.search(terms, 5, params);
          assert.deepStrictEqual(pruned.hits, ix.searchExhaustive(terms, 5, params).hits, `k1 ${params.k1} b ${params.b}: query ${qi}`);
        }
      }
    });

    it('stays exact across a reopen, new deletions, merges and a clear (cached bounds and frequencies follow)', async () => {
      const rand = prng(99);
      const ix = openIndex(dir);
      const queries = Array.from({ length: 25 }, () => randomQuery(rand));
      const check = (what: string) => {
        for (const [i, terms] of queries.entries()) for (const k of [3, 20]) assertSame(ix, terms, k, undefined, `${what}: query ${i} k ${k}`);
      };
      for (let round = 0; round < 12; round++) {
        ix.add(Array.from({ length: 30 }, (_, i) => randomDoc(rand, `r${round}-${i}`, `p${Math.floor(rand() * 50)}.ts`)));
        await ix.commit();
        check(`after commit ${round}`);
        ix.removePaths([`p${Math.floor(rand() * 50)}.ts`, `p${Math.floor(rand() * 50)}.ts`]);
        check(`after deleting in round ${round}`);
      }
      assert.ok(ix.segmentCount <= 8);
      for (const terms of queries) {
        for (const q of terms) {
          const df = ix.searchExhaustive([{ ...q, weight: 1 }], 1_000_000, P).matched;
          assert.equal(ix.documentFrequency(q.field, q.token), df, `df of ${q.field}:${q.token}`);
        }
      }
      await ix.commit();
      const reopened = openIndex(dir);
      for (const [i, terms] of queries.entries()) assert.deepStrictEqual(reopened.search(terms, 10, P).hits, ix.search(terms, 10, P).hits, `reopened: query ${i}`);
      ix.clear();
      for (const terms of queries) assert.deepEqual(ix.search(terms, 10, P), { hits: [], matched: 0 });
    });

    it('equals the reference on engine-tokenized documents for identifier and description queries', async () => {
      const rand = prng(7);
      const words = ['parse', 'config', 'load', 'user', 'token', 'request', 'header', 'read', 'write', 'file', 'cache', 'the', 'a', 'of', 'http', 'json'];
      const name = () => {
        const parts = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(rand, words));
        return parts[0] + parts.slice(1).map((p) => p[0].toUpperCase() + p.slice(1)).join('');
      };
      const docs: LexicalDoc[] = [];
      for (let i = 0; i < 600; i++) {
        const n = name();
        const path = `${pick(rand, ['src', 'lib', 'test'])}/${pick(rand, words)}/${pick(rand, words)}.ts`;
        const text = Array.from({ length: 5 + Math.floor(rand() * 40) }, () => (rand() < 0.3 ? name() : pick(rand, words))).join(' ');
        const chunk = {
          id: `c${i}`, path, name: n, symbol: rand() < 0.5 ? `Owner.${n}` : n, symbols: [n], container: '', source: 'code',
          content: `function ${n}() { ${text} }`, doc: rand() < 0.5 ? `${pick(rand, words)} the ${pick(rand, words)} of a ${pick(rand, words)}` : '',
        } as unknown as Chunk;
        docs.push(lexicalDocForChunk(chunk));
      }
      const ix = openIndex(dir);
      for (let at = 0; at < docs.length; at += 150) {
        ix.add(docs.slice(at, at + 150));
        await ix.commit();
      }
      ix.removePaths([docs[3].path, docs[77].path]);
      const texts = [
        ...Array.from({ length: 20 }, name),
        ...Array.from({ length: 20 }, () => Array.from({ length: 2 + Math.floor(rand() * 5) }, () => pick(rand, words)).join(' ')),
        'parseConfig', 'Owner.parseConfig', 'read the config file', 'how to parse a json header',
      ];
      const accept = (p: string) => !p.startsWith('test/');
      for (const text of texts) {
        const terms = lexicalTerms(parseQuery(text), BM25.fieldWeights, BM25.functionWordWeight);
        for (const k of [1, 10, 100, 5000]) {
          const { pruned, exact } = assertSame(ix, terms, k, accept, `"${text}" k ${k}`);
          assert.equal(pruned, exact, `"${text}" k ${k}: matched`);
        }
      }
    });

    it('estimates the match count of segments larger than its sample, and counts exactly when nothing is pruned', async () => {
      const rand = prng(11);
      const ix = openIndex(dir);
      const size = COUNT_SAMPLE * 4;
      ix.add(Array.from({ length: size }, (_, i) => randomDoc(rand, `d${i}`, `${i % 5 ? 'src' : 'test'}/f${i >> 2}.ts`)));
      await ix.commit();
      ix.removePaths(['src/f7.ts', 'src/f100.ts']);
      const accept = (p: string) => !p.startsWith('test/');
      let estimated = 0;
      for (let q = 0; q < 40; q++) {
        const terms = randomQuery(rand);
        for (const k of [10, 1_000_000]) {
          const { pruned, exact } = assertSame(ix, terms, k, accept, `query ${q} k ${k}`);
          if (k === 1_000_000) assert.equal(pruned, exact, `query ${q}: every match visited, exact count`);
          else {
            if (pruned !== exact) estimated++;
            assert.ok(Math.abs(pruned - exact) <= Math.max(20, exact * 0.15), `query ${q}: estimate ${pruned}, exact ${exact}`);
          }
        }
      }
      assert.ok(estimated > 0, 'some counts were estimated (the test exercises the estimate)');
      // Live document frequencies with few deletions (looked up per deleted document) match a full count.
      for (const token of VOCAB.slice(0, 40)) {
        for (const field of FIELDS) {
          assert.equal(ix.documentFrequency(field, token), ix.searchExhaustive([{ field, token, weight: 1 }], 1, P).matched, `${field}:${token}`);
        }
      }
    });
  });
}
