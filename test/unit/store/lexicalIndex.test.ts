import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LexicalIndex, LexicalIndexCorruptError, POSTINGS_IN_MEMORY_BELOW, QueryTerm } from '../../../server/src/engine/store/lexical/lexicalIndex';
import { LexicalDoc, Segment } from '../../../server/src/engine/store/lexical/segment';
import { Bm25Scorer, idf } from '../../../server/src/engine/retrieval/bm25';
import { partTokens } from '../../../server/src/engine/tokenize/codeTokenizer';

const P = { k1: 1.5, b: 0.75 };

function doc(id: string, path: string, body: string, name = ''): LexicalDoc {
  return { id, path, fields: { name: name ? [name] : [], symbols: [], ident: [], body: partTokens(body), path: partTokens(path), stem: [] } };
}
const body = (tokens: string[]): QueryTerm[] => tokens.map((token) => ({ field: 'body', token, weight: 1 }));

for (const [mode, inMemoryBelow] of [['postings in memory', undefined], ['postings read from the segment files', 0]] as const) {
  describe(`lexical index (segments, deletions, persistence) (${mode})`, () => {
    const openIndex = (d: string, analyzer = 'test') => LexicalIndex.open(d, analyzer, { postingsInMemoryBelow: inMemoryBelow });
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'quarry-lex-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('scores exactly like the reference BM25 scorer on a single field', async () => {
      const texts = ['authenticate user token', 'user manager user', 'config loader', 'token refresh token token', 'parse config file'];
      const ix = openIndex(dir);
      ix.add(texts.map((t, i) => doc(`d${i}`, `f${i}.ts`, t)));
      await ix.commit();
      const ref = new Bm25Scorer(P, partTokens);
      ref.buildIndex(texts.map((t, i) => [`d${i}`, t] as const));
      const { hits } = ix.search(body(['user', 'token']), 10, P);
      assert.equal(hits.length, 3);
      for (const h of hits) {
        const i = Number(h.id.slice(1));
        assert.ok(Math.abs(h.score - ref.score('user token', texts[i])) < 1e-9, h.id);
      }
      assert.deepEqual(hits.map((h) => h.id), [...hits].sort((a, b) => b.score - a.score).map((h) => h.id));
    });

    it('explains every score term by term', async () => {
      const ix = openIndex(dir);
      ix.add([doc('a', 'a.ts', 'alpha beta'), doc('b', 'b.ts', 'beta gamma')]);
      await ix.commit();
      const { hits } = ix.search(body(['alpha', 'beta']), 10, P);
      const a = hits.find((h) => h.id === 'a')!;
      assert.equal(a.matches.length, 2);
      const sum = a.matches.reduce((s, m) => s + m.contribution, 0);
      assert.ok(Math.abs(sum - a.score) < 1e-9);
      const alpha = a.matches.find((m) => m.token === 'alpha')!;
      assert.equal(alpha.df, 1);
      assert.ok(Math.abs(alpha.idf - idf(2, 1)) < 1e-12);
    });

    it('new documents added before the old ones are removed (pending: false) replace them; a failed batch is discarded', async () => {
      const ix = openIndex(dir);
      ix.add([doc('a1', 'a.ts', 'alpha'), doc('b1', 'b.ts', 'beta')]);
      await ix.commit();
      // the new version of a.ts comes in first (as from a chunking worker); searches still see the committed one
      ix.add([doc('a1', 'a.ts', 'gamma delta')]);
      assert.deepEqual(ix.search(body(['alpha']), 10, P).hits.map((h) => h.id), ['a1']);
      assert.equal(ix.removePaths(['a.ts'], { pending: false }), 1, 'only the committed document');
      await ix.commit();
      assert.deepEqual(ix.search(body(['alpha']), 10, P).hits, []);
      assert.deepEqual(ix.search(body(['gamma']), 10, P).hits.map((h) => h.id), ['a1']);
      assert.deepEqual(ix.idsForPath('a.ts'), ['a1']);
      // a batch that failed before its commit leaves nothing behind for the next one
      ix.add([doc('c1', 'c.ts', 'epsilon')]);
      ix.discardPending();
      ix.add([doc('d1', 'd.ts', 'zeta')]);
      await ix.commit();
      assert.deepEqual(ix.search(body(['epsilon']), 10, P).hits, []);
      assert.deepEqual(ix.search(body(['zeta']), 10, P).hits.map((h) => h.id), ['d1']);
    });

    it('replaces a path\'s documents and keeps statistics right across commits and reopen', async () => {
      const ix = openIndex(dir);
      ix.add([doc('a1', 'a.ts', 'alpha'), doc('a2', 'a.ts', 'alpha beta'), doc('b1', 'b.ts', 'beta')]);
      await ix.commit();
      assert.equal(ix.removePaths(['a.ts']), 2);
      ix.add([doc('a1', 'a.ts', 'gamma')]);
      await ix.commit();
      assert.equal(ix.documentCount, 2);
      assert.deepEqual(ix.idsForPath('a.ts'), ['a1']);
      assert.equal(ix.search(body(['alpha']), 10, P).hits.length, 0);
      assert.equal(ix.documentFrequency('body', 'beta'), 1);
      const reopened = openIndex(dir);
      assert.equal(reopened.documentCount, 2);
      assert.deepEqual(reopened.search(body(['gamma']), 10, P).hits.map((h) => h.id), ['a1']);
      assert.equal(reopened.search(body(['alpha']), 10, P).hits.length, 0);
    });

    it('release drops the segments from memory and every later use reads them again, the same (issue 21)', async () => {
      const ix = openIndex(dir);
      ix.add([doc('a1', 'a.ts', 'alpha'), doc('a2', 'a.ts', 'alpha beta'), doc('b1', 'b.ts', 'beta gamma')]);
      // pending changes keep it loaded: they are not on disk yet
      ix.release();
      assert.equal(ix.isReleased, false);
      await ix.commit();
      const before = { hits: ix.search(body(['alpha', 'beta']), 10, P).hits, count: ix.documentCount, avg: ix.averageLength('body') };
      ix.release();
      assert.equal(ix.isReleased, true);
      assert.deepEqual(ix.search(body(['alpha', 'beta']), 10, P).hits, before.hits);
      assert.equal(ix.isReleased, false);
      for (const use of [
        () => assert.equal(ix.documentCount, before.count),
        () => assert.equal(ix.averageLength('body'), before.avg),
        () => assert.equal(ix.documentFrequency('body', 'beta'), 2),
        () => assert.deepEqual(ix.idsForPath('a.ts'), ['a1', 'a2']),
        () => assert.deepEqual(ix.allIds().sort(), ['a1', 'a2', 'b1']),
      ]) {
        ix.release();
        use();
      }
      // a change after a release applies to what is on disk
      ix.release();
      assert.equal(ix.removePaths(['a.ts']), 2);
      ix.add([doc('a3', 'a.ts', 'epsilon')]);
      await ix.commit();
      ix.release();
      assert.deepEqual(ix.search(body(['epsilon']), 10, P).hits.map((h) => h.id), ['a3']);
      assert.equal(ix.search(body(['alpha']), 10, P).hits.length, 0);
      assert.equal(openIndex(dir).documentCount, 2);
    });

    it('counts a token\'s occurrences over live documents across segments, up to a cap (seed 000 rarity)', async () => {
      const ix = openIndex(dir);
      ix.add([doc('a1', 'a.ts', 'store store open'), doc('b1', 'b.ts', 'store')]);
      await ix.commit();
      ix.add([doc('c1', 'c.ts', 'store store store close')]);
      await ix.commit();
      assert.equal(ix.termOccurrences('body', 'store'), 6);
      assert.equal(ix.documentFrequency('body', 'store'), 3);
      assert.equal(ix.termOccurrences('body', 'store', 4), 4, 'stops at the cap');
      assert.equal(ix.termOccurrences('body', 'missing'), 0);
      // a removed document's occurrences no longer count
      ix.removePaths(['c.ts']);
      await ix.commit();
      assert.equal(ix.termOccurrences('body', 'store'), 3);
      assert.equal(openIndex(dir).termOccurrences('body', 'store'), 3);
    });

    it('merges segments and sweeps obsolete files', async () => {
      const ix = openIndex(dir);
      for (let i = 0; i < 12; i++) {
        ix.add([doc(`d${i}`, `f${i}.ts`, `common unique${String.fromCharCode(97 + i)}`)]);
        await ix.commit();
      }
      assert.ok(ix.segmentCount <= 8);
      assert.equal(ix.documentCount, 12);
      assert.equal(ix.documentFrequency('body', 'common'), 12);
      const segFiles = readdirSync(dir).filter((f) => f.endsWith('.qlx'));
      assert.equal(segFiles.length, ix.segmentCount);
      const reopened = openIndex(dir);
      assert.equal(reopened.search(body(["uniqueh"]), 5, P).hits[0].id, 'd7');
    });

    it('never rewrites or merges a segment of interim documents (ids starting with ~); it goes with its last one', async () => {
      // a large first index's quick windows (indexer/quickPass.ts): committed alone, then replaced path by path
      const ix = openIndex(dir);
      const n = 40;
      const word = (i: number) => `win${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
      ix.add(Array.from({ length: n }, (_, i) => doc(`~quick:1-60:f${i}.ts`, `f${i}.ts`, `window common ${word(i)}`)));
      await ix.commit();
      const quick = readdirSync(dir).find((f) => f.endsWith('.qlx'))!;
      for (let i = 0; i < n; i++) {
        ix.removePaths([`f${i}.ts`]);
        ix.add([doc(`real${i}`, `f${i}.ts`, `real common r${i}`)]);
        await ix.commit();
        const segments = readdirSync(dir).filter((f) => f.endsWith('.qlx'));
        if (i < n - 1) {
          // past 30% deleted and past 8 segments alike, it stays as it was written, its live windows still found
          assert.ok(segments.includes(quick), `the interim segment was rewritten after ${i + 1} replacements`);
          assert.ok(segments.length <= 9, `segments ${segments.length}`);
          assert.deepEqual(ix.search(body([word(n - 1)]), 5, P).hits.map((h) => h.id), [`~quick:1-60:f${n - 1}.ts`]);
          assert.deepEqual(ix.search(body([word(i)]), 5, P).hits, []);
        } else assert.ok(!segments.includes(quick), 'the interim segment outlived its last document');
      }
      assert.equal(ix.documentCount, n);
      assert.ok(ix.allIds().every((id) => id.startsWith('real')));
      assert.equal(openIndex(dir).documentFrequency('body', 'common'), n);
    });

    it('merges small segments and leaves a large one alone (tiered merging)', async () => {
      const ix = openIndex(dir);
      ix.add(Array.from({ length: 50 }, (_, i) => doc(`big${i}`, `big${i}.ts`, 'bulk common')));
      await ix.commit();
      const bigSegment = readdirSync(dir).find((f) => f.endsWith('.qlx'))!;
      for (let i = 0; i < 20; i++) {
        ix.add([doc(`s${i}`, `s${i}.ts`, 'common small')]);
        await ix.commit();
        assert.ok(ix.segmentCount <= 8, `segments ${ix.segmentCount}`);
      }
      assert.ok(readdirSync(dir).includes(bigSegment), 'the large segment was not rewritten');
      assert.equal(ix.documentCount, 70);
      assert.equal(ix.documentFrequency('body', 'common'), 70);
      // Deleting most of the large segment compacts it.
      ix.removePaths(Array.from({ length: 40 }, (_, i) => `big${i}.ts`));
      await ix.commit();
      assert.ok(!readdirSync(dir).includes(bigSegment));
      assert.equal(openIndex(dir).documentCount, 30);
    });

    it('refuses an index built by another analyzer', async () => {
      const ix = openIndex(dir);
      ix.add([doc('a', 'a.ts', 'alpha')]);
      await ix.commit();
      assert.throws(() => openIndex(dir, 'other'), /built by tokenizer test/);
    });

    it('filters by path while searching', async () => {
      const ix = openIndex(dir);
      ix.add([doc('a', 'src/a.ts', 'needle'), doc('t', 'test/a.test.ts', 'needle')]);
      await ix.commit();
      const { hits } = ix.search(body(['needle']), 10, P, (p) => !p.startsWith('test/'));
      assert.deepEqual(hits.map((h) => h.id), ['a']);
    });

    it('detects a damaged segment and a damaged manifest', async () => {
      const ix = openIndex(dir);
      ix.add([doc('a', 'a.ts', 'alpha beta gamma')]);
      await ix.commit();
      const seg = readdirSync(dir).find((f) => f.endsWith('.qlx'))!;
      const bytes = readFileSync(join(dir, seg));
      bytes[bytes.length - 10] ^= 0xff;
      writeFileSync(join(dir, seg), bytes);
      assert.throws(() => openIndex(dir), LexicalIndexCorruptError);
      writeFileSync(join(dir, seg), bytes.subarray(0, 20));
      assert.throws(() => openIndex(dir), LexicalIndexCorruptError);
      writeFileSync(join(dir, 'manifest.json'), '{"version":1,"segm');
      assert.throws(() => openIndex(dir), LexicalIndexCorruptError);
    });

    it('close() releases the segment files; a later use reads the committed index again, without uncommitted changes', async () => {
      const ix = openIndex(dir);
      ix.add([doc('a', 'a.ts', 'alpha beta'), doc('b', 'b.ts', 'beta gamma')]);
      await ix.commit();
      ix.add([doc('c', 'c.ts', 'beta delta')]);
      ix.close();
      assert.equal(ix.isReleased, true);
      assert.deepEqual(ix.search(body(['beta']), 10, P).hits.map((h) => h.id).sort(), ['a', 'b']);
      assert.equal(ix.documentCount, 2);
      await ix.commit(); // nothing pending: no new segment
      assert.equal(openIndex(dir).documentCount, 2);
    });

    it('round-trips a segment through its binary format', () => {
      const s = Segment.build('x.qlx', [doc('a', 'a.ts', 'héllo wörld hello'), doc('b', 'b.ts', 'wörld')]);
      const back = Segment.deserialize('x.qlx', s.serialize());
      const terms = (seg: Segment) => Array.from({ length: seg.termCount }, (_, t) => seg.term(t));
      assert.deepEqual(terms(back), terms(s));
      assert.ok(terms(back).includes('b:héllo'));
      const postings = (seg: Segment) => Array.from({ length: seg.termCount }, (_, t) => [[...seg.postings(t).docs], [...seg.postings(t).tfs]]);
      assert.deepEqual(postings(back), postings(s));
      // opened from a file: the same postings read per term from it, until it is closed
      writeFileSync(join(dir, 'x.qlx'), s.serialize());
      const opened = Segment.open('x.qlx', join(dir, 'x.qlx'), inMemoryBelow ?? POSTINGS_IN_MEMORY_BELOW);
      assert.equal(opened.postingsInMemory, inMemoryBelow === undefined);
      assert.deepEqual(postings(opened), postings(s));
      opened.close();
      if (!opened.postingsInMemory) assert.throws(() => opened.postings(0), /closed/);
      assert.deepEqual([back.docId(0), back.docId(1)], ['a', 'b']);
      assert.deepEqual([back.docPath(0), back.docPath(1)], ['a.ts', 'b.ts']);
      assert.equal(back.findTerm('b:wörld'), s.findTerm('b:wörld'));
      assert.ok(back.findTerm('b:wörld') >= 0);
    });
  });
}
