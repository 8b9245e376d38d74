import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIELDS, LexicalDoc, Segment, SegmentBuilder, termKey } from '../../../server/src/engine/store/lexical/segment';
import { prng as rng } from '../../../bench/metrics';


// ASCII, accented, CJK and astral tokens: JavaScript string order and UTF-8 byte order differ between the last two
const VOCAB = ['a', 'alpha', 'beta', 'gamma', 'zeta', 'héllo', 'wörld', 'ĉapelo', '日本', '中文', '\u{1F600}x', '\uFFFDy', 'z\u{10400}', 'parse', 'config', 'token'];

function randomDoc(r: () => number, i: number, paths: number): LexicalDoc {
  const fields = {} as LexicalDoc['fields'];
  for (const f of FIELDS) {
    const n = Math.floor(r() * 8);
    fields[f] = Array.from({ length: n }, () => (r() < 0.3 ? `${VOCAB[Math.floor(r() * VOCAB.length)]}${Math.floor(r() * 50)}` : VOCAB[Math.floor(r() * VOCAB.length)]));
  }
  return { id: `doc-${i}-ïd`, path: `dir/file${Math.floor(r() * paths)}.ts`, fields };
}

/** The segment as built before SegmentBuilder: a term key → [doc, tf, ...] map of the documents' token lists. */
function referenceBuild(name: string, docs: readonly LexicalDoc[]): Segment {
  const postings = new Map<string, number[]>();
  const fieldLens = new Uint32Array(docs.length * FIELDS.length);
  docs.forEach((doc, d) => {
    FIELDS.forEach((field, f) => {
      const tokens = doc.fields[field] ?? [];
      fieldLens[d * FIELDS.length + f] = tokens.length;
      const counts = new Map<string, number>();
      for (const tok of tokens) counts.set(tok, (counts.get(tok) ?? 0) + 1);
      for (const [tok, tf] of counts) {
        const key = termKey(field, tok);
        let list = postings.get(key);
        if (!list) postings.set(key, (list = []));
        list.push(d, tf);
      }
    });
  });
  return Segment.fromPostingMap(name, docs.map((d) => d.id), docs.map((d) => d.path), fieldLens, postings);
}

async function written(seg: Segment, dir: string): Promise<Buffer> {
  const file = join(dir, seg.name);
  const fh = await open(file, 'w');
  try {
    const n = await seg.write(fh);
    assert.equal(n, (await fh.stat()).size);
  } finally {
    await fh.close();
  }
  return readFileSync(file);
}

describe('lexical segments: merging and writing with bounded copies', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'quarry-merge-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const seed of [1, 2, 3, 4, 5]) {
    it(`seed ${seed}: a merge equals the segment built from the live documents, byte for byte`, async () => {
      const r = rng(seed);
      const segments: Segment[] = [];
      const docs: LexicalDoc[][] = [];
      let id = 0;
      const count = 2 + Math.floor(r() * 4);
      for (let s = 0; s < count; s++) {
        const batch = Array.from({ length: Math.floor(r() * 40) + (s === 0 ? 1 : 0) }, () => randomDoc(r, id++, 12));
        docs.push(batch);
        segments.push(Segment.build(`s${s}.qlx`, batch));
      }
      // deletions: none in some segments, some or all in others
      const live: LexicalDoc[] = [];
      segments.forEach((seg, s) => {
        const mode = r();
        docs[s].forEach((d, i) => {
          if (mode > 0.3 && (mode > 0.9 || r() < 0.4)) seg.markDeleted(i);
          else live.push(d);
        });
      });
      const merged = Segment.merge(segments, 'm.qlx');
      if (!live.length) {
        assert.equal(merged, undefined);
        return;
      }
      assert.ok(merged);
      const reference = referenceBuild('m.qlx', live);
      assert.deepEqual(merged.serialize(), reference.serialize());
      // written section by section = the one-buffer form, and it reads back
      const bytes = await written(merged, dir);
      assert.deepEqual(bytes, merged.serialize());
      const back = Segment.deserialize('m.qlx', bytes);
      assert.equal(back.docCount, live.length);
      assert.deepEqual(Array.from({ length: back.docCount }, (_, d) => back.docId(d)), live.map((d) => d.id));
    });
  }

  for (const seed of [11, 12, 13]) {
    it(`seed ${seed}: documents turned into postings as they are added build the same segment as their token lists`, () => {
      const r = rng(seed);
      const builder = new SegmentBuilder();
      let docs: LexicalDoc[] = [];
      for (let i = 0; i < 400; i++) {
        const d = randomDoc(r, i, 30);
        // a token repeated past the 16-bit frequency cap, now and then
        if (i % 97 === 5) d.fields.body = [...d.fields.body, ...Array.from({ length: 70000 }, () => 'again')];
        builder.add(d);
        docs.push(d);
        if (r() < 0.02) {
          // a path replaced before the commit: its documents so far are dropped
          const path = docs[Math.floor(r() * docs.length)].path;
          assert.equal(builder.removePath(path), true);
          docs = docs.filter((x) => x.path !== path);
        }
      }
      assert.equal(builder.docCount, docs.length);
      assert.deepEqual(builder.build('b.qlx').serialize(), referenceBuild('b.qlx', docs).serialize());
      assert.deepEqual(Segment.build('c.qlx', docs).serialize(), referenceBuild('c.qlx', docs).serialize());
    });
  }

  it('builds an empty segment from no documents, as before', () => {
    assert.deepEqual(new SegmentBuilder().build('e.qlx').serialize(), referenceBuild('e.qlx', []).serialize());
  });

  it('writes a freshly built segment exactly as serialize() does', async () => {
    const r = rng(9);
    const seg = Segment.build('b.qlx', Array.from({ length: 300 }, (_, i) => randomDoc(r, i, 40)));
    assert.deepEqual(await written(seg, dir), seg.serialize());
  });
});
