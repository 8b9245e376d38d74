import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIELDS, LexicalDoc, Segment, SegmentBuilder, termKey } from '../../../server/src/engine/store/lexical/segment';
import { prng as rng } from '../../../bench/metrics';


// ASCII, accented, CJK and astral tokens: JavaScript string order and UTF-8 byte order differ between the last two
const VOCAB = ['a', 'alpha', 'beta', 'gamma', 'zeta', 'héllo', 'wörld', 'ĉapelo', '日本', '中文', '\u{1F600}x', '\uFFFDy', 'z\u{10400}', 'parse', 'config', 'token'];

function randomDoc(r: () => number, i: number, paths: number, tokens = 8): LexicalDoc {
  const fields = {} as LexicalDoc['fields'];
  for (const f of FIELDS) {
    const n = Math.floor(r() * tokens);
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

  /**
   * Builds `count` segments of random documents, writes some of them to files and opens those with their postings on
   * disk (a merge reads both kinds), deletes some documents, merges them into a file and compares its bytes with the
   * segment built from the live documents.
   */
  async function mergeCase(seed: number, count: number, maxDocs: number, tokens: number): Promise<void> {
    const r = rng(seed);
    const segments: Segment[] = [];
    const docs: LexicalDoc[][] = [];
    let id = 0;
    for (let s = 0; s < count; s++) {
      const batch = Array.from({ length: Math.floor(r() * maxDocs) + (s === 0 ? 1 : 0) }, () => randomDoc(r, id++, 12, tokens));
      docs.push(batch);
      const built = Segment.build(`s${s}.qlx`, batch);
      if (r() < 0.5) segments.push(built);
      else {
        writeFileSync(join(dir, built.name), built.serialize());
        segments.push(Segment.open(built.name, join(dir, built.name), 0));
      }
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
    assert.equal(Segment.liveTotal(segments), live.length);
    if (!live.length) return;
    const file = join(dir, 'm.qlx');
    const fh = await open(file, 'w');
    let merged: Segment;
    try {
      merged = await Segment.mergeInto(segments, 'm.qlx', fh);
    } finally {
      await fh.close();
    }
    const reference = referenceBuild('m.qlx', live);
    assert.deepEqual(readFileSync(file), reference.serialize());
    // the merged segment reads its postings from that file
    merged.attachFile(file);
    assert.equal(merged.postingsInMemory, false);
    assert.equal(merged.docCount, live.length);
    assert.deepEqual(Array.from({ length: merged.docCount }, (_, d) => merged.docId(d)), live.map((d) => d.id));
    for (let t = 0; t < reference.termCount; t += Math.max(1, Math.floor(reference.termCount / 200))) {
      assert.equal(merged.term(t), reference.term(t));
      assert.deepEqual([...merged.postings(t).docs], [...reference.postings(t).docs]);
      assert.deepEqual([...merged.postings(t).tfs], [...reference.postings(t).tfs]);
    }
    merged.close();
    for (const seg of segments) seg.close();
  }

  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`seed ${seed}: a merge (inputs in memory and on disk) writes the segment built from the live documents, byte for byte`, async () => {
      await mergeCase(seed, 2 + (seed % 4), 40, 8);
    });
  }

  it('merges segments whose postings span several of its read and write chunks', async function () {
    this.timeout(60_000);
    await mergeCase(21, 3, 8000, 40);
  });

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
