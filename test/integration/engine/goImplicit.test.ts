import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { POOL_MIN_FILES } from '../../../server/src/engine/indexer/chunkPool';
import type { CodeMatch } from '../../../server/src/engine/api/results';
import { copyFixture, removeDir } from '../../support/workspace';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';

/**
 * "What implements X" for Go, where interfaces are satisfied implicitly (method sets), through the real engine on
 * test/fixtures/go-implicit: stream/ declares the interfaces; storage/types.go the structs, storage/methods.go their
 * methods (FileSource: value receivers; MemorySource: pointer receivers; CountingSource: promoted from an embedded
 * *MemorySource; PartialSource: Read only, so it implements nothing); storage/text.go StringSource, whose
 * `Read() string` has the right name and the wrong signature. codec/ implements stream/sink.go's interfaces from
 * another package (signatures: qualified and aliased names, variadic vs slice, any vs interface{}, a generic
 * interface).
 */
const IMPLEMENTATION = /^×([\d.]+) implementation:/;
const label = (m: CodeMatch) => `${m.file.path} ${m.content.symbol} (${m.content.kind})`;
const list = (ms: CodeMatch[]) => ms.map((m, i) => `${i + 1}. ${label(m)}\n     ${m.explanation.join('\n     ')}`).join('\n');
const rankOf = (ms: CodeMatch[], symbol: string, kind?: string) => ms.findIndex((m) => m.content.symbol === symbol && (!kind || m.content.kind === kind));
/** Types the search says implement the target (the implementation boost, from a declared or an indexed conformance). */
const implementers = (ms: CodeMatch[]) => ms.filter((m) => m.explanation.some((l) => IMPLEMENTATION.test(l))).map((m) => m.content.symbol).sort();

for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`Go implicit interfaces: "what implements X" through the engine (${cfg.label})`, function () {
    this.timeout(120_000);
    let root: string;
    let engine: Engine;
    before(async () => {
      root = copyFixture('go-implicit');
      engine = await Engine.open(root, cfg.open);
      const summary = await engine.index();
      assert.ok(summary.derivedConformances?.go, 'the pass ran');
      // stream: 7 (Reader, Sizer, SizedReader); codec: Pump and Relay → Sink, Pump → Flusher, Console → Logger,
      // Cache and Box → Getter; and 17 of the standard library's well-known interfaces (io.Reader, io.Closer,
      // io.ReadCloser: the sources and the Reader and SizedReader interfaces)
      assert.equal(summary.derivedConformances!.go.rows, 30, JSON.stringify(summary.derivedConformances?.go));
    });
    after(async () => {
      await engine?.close();
      removeDir(root);
    });

    it('"what implements Reader": the implementing structs first, the interface in the top 3, the partial type not at all', async () => {
      const ms = (await engine.search('what implements Reader', { limit: 20 })).matches;
      const top = list(ms);
      assert.equal(ms[0].content.kind, 'struct', `an implementing struct ranks first:\n${top}`);
      for (const s of ['FileSource', 'MemorySource', 'CountingSource']) {
        const i = rankOf(ms, s, 'struct');
        assert.ok(i >= 0 && i < 5, `${s} should be in the top 5 (rank ${i + 1}):\n${top}`);
      }
      const def = rankOf(ms, 'Reader', 'interface');
      assert.ok(def >= 0 && def < 3, `the Reader interface should be in the top 3 (rank ${def + 1}):\n${top}`);
      assert.deepEqual(implementers(ms), ['CountingSource', 'FileSource', 'MemorySource', 'SizedReader']);
      assert.ok(!ms.some((m) => m.content.symbol === 'PartialSource' && m.explanation.some((l) => IMPLEMENTATION.test(l))), top);
      assert.ok(!implementers(ms).includes('StringSource'), `Read() string is not Read(p []byte) (n int, err error):\n${top}`);
      // implementers rank above the method chunks that make them implementers
      const worstImplementer = Math.max(...['FileSource', 'MemorySource', 'CountingSource'].map((s) => rankOf(ms, s, 'struct')));
      for (const [i, m] of ms.entries()) if (m.content.kind === 'method') assert.ok(i > worstImplementer, `${label(m)} above an implementer:\n${top}`);
      // the explanation says how the conformance was found
      const mem = ms[rankOf(ms, 'MemorySource', 'struct')];
      assert.ok(mem.explanation.some((l) => l.startsWith('conformance index: MemorySource satisfies as a pointer')), mem.explanation.join('\n'));
      const file = ms[rankOf(ms, 'FileSource', 'struct')];
      assert.ok(file.explanation.some((l) => l.startsWith('conformance index: FileSource satisfies (its method set')), file.explanation.join('\n'));
      // CountingSource's Read is promoted from its embedded *MemorySource: a wrapper, after the types that implement Reader themselves
      const counting = rankOf(ms, 'CountingSource', 'struct');
      assert.ok(counting > rankOf(ms, 'FileSource', 'struct') && counting > rankOf(ms, 'MemorySource', 'struct'), `the wrapper after the direct implementations:\n${top}`);
      assert.ok(ms[counting].explanation.some((l) => l.startsWith('conformance index: CountingSource satisfies (every method promoted from an embedded field)')), ms[counting].explanation.join('\n'));
      assert.match(ms[counting].why ?? '', /implements `Reader` through an embedded field/);
    });

    it('a standard library interface the workspace does not hold: "what implements io.Reader" (Read alone) lists PartialSource too; the bare "Reader" stays the project\'s', async () => {
      const ms = (await engine.search('what implements io.Reader', { limit: 20 })).matches;
      // (the project's Reader and SizedReader interfaces refine io.Reader, as SizedReader refines Reader below)
      assert.deepEqual(implementers(ms), ['CountingSource', 'FileSource', 'MemorySource', 'PartialSource', 'Reader', 'SizedReader'], list(ms));
      const partial = ms[rankOf(ms, 'PartialSource', 'struct')];
      assert.ok(partial.explanation.some((l) => l.startsWith('conformance index: PartialSource satisfies as a pointer (the method set of *T has every method of) io.Reader')), partial.explanation.join('\n'));
      assert.ok(!implementers((await engine.search('what implements Reader', { limit: 20 })).matches).includes('PartialSource'));
    });

    it('embedded interfaces and promoted methods: SizedReader (Reader + Sizer) is implemented by MemorySource and CountingSource only', async () => {
      const ms = (await engine.search('what implements SizedReader', { limit: 20 })).matches;
      assert.deepEqual(implementers(ms), ['CountingSource', 'MemorySource'], list(ms));
      assert.ok(rankOf(ms, 'SizedReader', 'interface') < 3, list(ms));
      const sizer = (await engine.search('implementations of Sizer', { limit: 20 })).matches;
      assert.deepEqual(implementers(sizer), ['CountingSource', 'MemorySource', 'SizedReader'], list(sizer));
    });

    it('signatures: a method with the right name and the wrong signature does not implement (Read() string)', async () => {
      const ms = (await engine.search('what implements Reader', { limit: 30 })).matches;
      assert.ok(ms.some((m) => m.content.symbol === 'StringSource'), `StringSource is among the results (by name):\n${list(ms)}`);
      assert.ok(!implementers(ms).includes('StringSource'), list(ms));
    });

    it('signatures across packages: unqualified Chunk in stream = stream.Chunk elsewhere (aliased too), not codec.Chunk', async () => {
      const ms = (await engine.search('what implements Sink', { limit: 30 })).matches;
      // Pump: pointer receivers; Relay: `st.Chunk` through an import alias; Flusher: declared (embeds stream.Sink)
      assert.deepEqual(implementers(ms), ['Flusher', 'Pump', 'Relay'], list(ms));
      const pump = ms[rankOf(ms, 'Pump', 'struct')];
      assert.ok(pump.explanation.some((l) => l.startsWith('conformance index: Pump satisfies as a pointer')), pump.explanation.join('\n'));
      // an interface embedded from another package brings its signatures along
      assert.deepEqual(implementers((await engine.search('what implements Flusher', { limit: 30 })).matches), ['Pump']);
    });

    it('signatures: ...interface{} satisfies ...any, a slice parameter does not satisfy a variadic one', async () => {
      const ms = (await engine.search('what implements Logger', { limit: 30 })).matches;
      assert.deepEqual(implementers(ms), ['Console'], list(ms));
    });

    it('a generic interface: its type parameter matches any type, the rest of the signature still counts', async () => {
      const ms = (await engine.search('what implements Getter', { limit: 30 })).matches;
      // Cache: Get(string) (int, bool); Box[T]: Get(string) (T, bool); IndexCache: Get(int) (int, bool) is not one
      assert.deepEqual(implementers(ms), ['Box', 'Cache'], list(ms));
    });

    it('no implementers for the empty interface or a type-set constraint', async () => {
      for (const q of ['what implements Any', 'what implements Number']) {
        const ms = (await engine.search(q, { limit: 20 })).matches;
        assert.deepEqual(implementers(ms), [], `${q}:\n${list(ms)}`);
      }
    });
  });
}

describe('Go implicit interfaces: incremental re-indexing', function () {
  this.timeout(120_000);
  let root: string;
  let engine: Engine;
  const methodsPath = () => join(root, 'storage', 'methods.go');
  const readerImplementers = async () => implementers((await engine.search('what implements Reader', { limit: 20 })).matches);
  beforeEach(async () => {
    root = copyFixture('go-implicit');
    engine = await Engine.open(root, { embedding: null, reranker: null });
    await engine.index();
  });
  afterEach(async () => {
    await engine?.close();
    removeDir(root);
  });

  it('removing a method in another file than the type removes the implicit conformance; adding one adds it', async () => {
    assert.deepEqual(await readerImplementers(), ['CountingSource', 'FileSource', 'MemorySource', 'SizedReader']);
    const original = readFileSync(methodsPath(), 'utf8');
    const withoutClose = original.replace(/\/\/ Close closes the file\.\nfunc \(f FileSource\) Close\(\) error \{\n\treturn nil\n\}\n/, '');
    assert.notEqual(withoutClose, original, 'the fixture has FileSource.Close');
    writeFileSync(methodsPath(), withoutClose);
    const s = await engine.index();
    assert.equal(s.filesIndexed, 1, 'only methods.go is re-indexed; types.go (where the rows hang) is not');
    assert.ok(s.derivedConformances?.go && s.derivedConformances.go.removed >= 1, JSON.stringify(s.derivedConformances?.go));
    assert.deepEqual(await readerImplementers(), ['CountingSource', 'MemorySource', 'SizedReader']);

    // PartialSource gains Close (pointer receiver): it implements Reader now; an editor save goes through updateFiles
    writeFileSync(methodsPath(), `${withoutClose}\n// Close stops reading.\nfunc (s *PartialSource) Close() error {\n\ts.remaining = 0\n\treturn nil\n}\n`);
    await engine.updateFiles(['storage/methods.go']);
    assert.deepEqual(await readerImplementers(), ['CountingSource', 'MemorySource', 'PartialSource', 'SizedReader']);

    // unchanged run: nothing to recompute, nothing changes
    const again = await engine.index();
    assert.equal(again.filesIndexed, 0);
    assert.equal(again.derivedConformances?.go, undefined, 'no Go file changed: the pass does not run');
    assert.deepEqual(await readerImplementers(), ['CountingSource', 'MemorySource', 'PartialSource', 'SizedReader']);
  });

  it('a save that changes no declaration (a method body) reuses the last join; a changed signature does not', async () => {
    const original = readFileSync(methodsPath(), 'utf8');
    const body = original.replace('func (f FileSource) Close() error {\n\treturn nil\n}', 'func (f FileSource) Close() error {\n\tf.done = true\n\treturn nil\n}');
    assert.notEqual(body, original, 'the fixture has FileSource.Close');
    writeFileSync(methodsPath(), body);
    const s = await engine.updateFiles(['storage/methods.go']);
    assert.equal(s.derivedConformances?.go?.joinReused, true, JSON.stringify(s.derivedConformances?.go));
    assert.deepEqual(await readerImplementers(), ['CountingSource', 'FileSource', 'MemorySource', 'SizedReader']);

    // a comment added where the types are declared: their chunks are replaced (and the rows hanging on them with them);
    // the join is the last one, and exactly those rows are written again
    const typesPath = join(root, 'storage', 'types.go');
    writeFileSync(typesPath, `${readFileSync(typesPath, 'utf8')}\n// (an edit that declares nothing)\n`);
    const typesSaved = await engine.updateFiles(['storage/types.go']);
    assert.equal(typesSaved.derivedConformances?.go?.joinReused, true, JSON.stringify(typesSaved.derivedConformances?.go));
    assert.ok((typesSaved.derivedConformances?.go?.added ?? 0) >= 3, JSON.stringify(typesSaved.derivedConformances?.go));
    assert.deepEqual(await readerImplementers(), ['CountingSource', 'FileSource', 'MemorySource', 'SizedReader']);

    writeFileSync(methodsPath(), body.replace('func (f FileSource) Close() error {', 'func (f FileSource) Close(force bool) error {'));
    const changed = await engine.updateFiles(['storage/methods.go']);
    assert.equal(changed.derivedConformances?.go?.joinReused, undefined);
    assert.deepEqual(await readerImplementers(), ['CountingSource', 'MemorySource', 'SizedReader'], 'Close(bool) is not Close()');
  });

  it('deleting the file with the methods removes every implicit conformance; a full re-index restores them', async () => {
    rmSync(methodsPath());
    const s = await engine.index();
    assert.equal(s.filesRemoved, 1);
    assert.deepEqual(await readerImplementers(), ['SizedReader'], 'only the declared embedding is left');
    writeFileSync(methodsPath(), readFileSync(join(__dirname, '..', '..', 'fixtures', 'go-implicit', 'storage', 'methods.go'), 'utf8'));
    await engine.index({ full: true });
    assert.deepEqual(await readerImplementers(), ['CountingSource', 'FileSource', 'MemorySource', 'SizedReader']);
  });

  it('fixing a signature in a buffer makes the type an implementer; closing the buffer takes it back', async () => {
    const textPath = join(root, 'storage', 'text.go');
    const original = readFileSync(textPath, 'utf8');
    const fixed = original.replace('func (s StringSource) Read() string {\n\treturn s.text\n}', 'func (s StringSource) Read(p []byte) (int, error) {\n\treturn copy(p, s.text), nil\n}');
    assert.notEqual(fixed, original, 'the fixture has StringSource.Read() string');
    await engine.setBuffer('storage/text.go', fixed);
    assert.deepEqual(await readerImplementers(), ['CountingSource', 'FileSource', 'MemorySource', 'SizedReader', 'StringSource']);
    await engine.setBuffer('storage/text.go', null);
    assert.deepEqual(await readerImplementers(), ['CountingSource', 'FileSource', 'MemorySource', 'SizedReader']);
  });

  it('an unsaved buffer that drops a method updates the conformances; closing it restores the file on disk', async () => {
    const original = readFileSync(methodsPath(), 'utf8');
    await engine.setBuffer('storage/methods.go', original.replace('func (m *MemorySource) Close() error', 'func (m *MemorySource) Shutdown() error'));
    assert.deepEqual(await readerImplementers(), ['FileSource', 'SizedReader'], 'MemorySource and CountingSource (promoted) lose Close');
    await engine.setBuffer('storage/methods.go', null);
    assert.deepEqual(await readerImplementers(), ['CountingSource', 'FileSource', 'MemorySource', 'SizedReader']);
  });
});

describe('Go implicit interfaces: the facts kept for the next process', function () {
  this.timeout(120_000);
  it('a new engine parses only the changed file, finds the same rows; a damaged facts file only costs a parse', async () => {
    const root = copyFixture('go-implicit');
    try {
      let engine = await Engine.open(root, { embedding: null, reranker: null });
      const cold = await engine.index();
      const goFiles = cold.derivedConformances?.go?.filesRead ?? 0;
      assert.ok(goFiles >= 3, JSON.stringify(cold.derivedConformances));
      await engine.close();
      const saved = readdirSync(join(root, '.quarry'), { recursive: true }).map(String).find((f) => f.endsWith('go-facts.json'));
      assert.ok(saved, 'the facts are saved in the index folder');

      // another process after an edit that declares nothing (a comment where the types are declared): the join saved
      // with the facts is reused, and the rows that hung on the replaced chunks are written again
      const types = join(root, 'storage', 'types.go');
      writeFileSync(types, `${readFileSync(types, 'utf8')}\n// (an edit that declares nothing)\n`);
      engine = await Engine.open(root, { embedding: null, reranker: null });
      const comment = await engine.index();
      assert.equal(comment.derivedConformances?.go?.filesRead, 1, JSON.stringify(comment.derivedConformances));
      assert.equal(comment.derivedConformances?.go?.joinReused, true, JSON.stringify(comment.derivedConformances));
      assert.ok((comment.derivedConformances?.go?.added ?? 0) >= 3, JSON.stringify(comment.derivedConformances));
      assert.deepEqual(implementers((await engine.search('what implements Reader', { limit: 20 })).matches), ['CountingSource', 'FileSource', 'MemorySource', 'SizedReader']);
      await engine.close();

      // another process (a new engine: nothing in memory) after one file changed: one file parsed, same answer
      const methods = join(root, 'storage', 'methods.go');
      writeFileSync(methods, readFileSync(methods, 'utf8') + '\n// Touch does nothing.\nfunc (f FileSource) Touch() {}\n');
      engine = await Engine.open(root, { embedding: null, reranker: null });
      const one = await engine.index();
      assert.equal(one.derivedConformances?.go?.filesRead, 2, JSON.stringify(one.derivedConformances)); // (and types.go, edited above)
      assert.equal(one.derivedConformances?.go?.joinReused, undefined, 'a new method: the join is computed again');
      assert.equal(one.derivedConformances?.go?.rows, cold.derivedConformances?.go?.rows);
      assert.deepEqual(implementers((await engine.search('what implements Reader', { limit: 20 })).matches), ['CountingSource', 'FileSource', 'MemorySource', 'SizedReader']);
      await engine.close();

      // a damaged file is ignored: every file is parsed again, the rows are the same, and a good file is written
      writeFileSync(join(root, '.quarry', saved), '{"version": 1, "files": [["storage/types.go", ');
      writeFileSync(methods, readFileSync(methods, 'utf8') + '\n// Sync does nothing.\nfunc (f FileSource) Sync() {}\n');
      engine = await Engine.open(root, { embedding: null, reranker: null });
      const repaired = await engine.index();
      assert.equal(repaired.derivedConformances?.go?.filesRead, goFiles, JSON.stringify(repaired.derivedConformances));
      assert.equal(repaired.derivedConformances?.go?.rows, cold.derivedConformances?.go?.rows);
      await engine.close();
      assert.doesNotThrow(() => JSON.parse(readFileSync(join(root, '.quarry', saved), 'utf8')));
    } finally {
      removeDir(root);
    }
  });
});

describe('Go implicit interfaces: a large run (chunking workers) derives the same rows', function () {
  this.timeout(240_000);
  it('with 400 more Go files the pass parses in the chunking worker and finds the same 30 conformances', async () => {
    const root = copyFixture('go-implicit');
    const engine = await Engine.open(root, { embedding: null, reranker: null });
    try {
      mkdirSync(join(root, 'gen'), { recursive: true });
      // enough files for the run's chunking pool (POOL_MIN_FILES), and for the pass to offload (50 stale files)
      for (let i = 0; i < POOL_MIN_FILES; i++) writeFileSync(join(root, 'gen', `g${i}.go`), `package gen\n\n// Value${i} is generated.\ntype Value${i} struct{ n int }\n\nfunc (v Value${i}) N() int { return v.n }\n`);
      const summary = await engine.index();
      assert.ok(summary.filesIndexed > POOL_MIN_FILES, `${summary.filesIndexed} files`);
      assert.equal(summary.derivedConformances?.go?.rows, 30, JSON.stringify(summary.derivedConformances?.go));
      assert.ok((summary.derivedConformances?.go?.filesRead ?? 0) > POOL_MIN_FILES);
      assert.deepEqual(implementers((await engine.search('what implements Reader', { limit: 20 })).matches), ['CountingSource', 'FileSource', 'MemorySource', 'SizedReader']);
    } finally {
      await engine.close();
      removeDir(root);
    }
  });
});
