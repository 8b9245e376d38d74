import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { runIndex } from '../../../server/src/engine/indexer/indexer';
import { QuickPass, quickWindows } from '../../../server/src/engine/indexer/quickPass';
import { isQuickId, parseQuickId, quickChunks, QUICK_EXPLANATION } from '../../../server/src/engine/quickWindows';
import { ChunkStore } from '../../../server/src/engine/store/chunkStore';
import { LexicalIndex, type QueryTerm } from '../../../server/src/engine/store/lexical/lexicalIndex';
import { LEXICAL_ANALYZER } from '../../../server/src/engine/indexer/lexicalDoc';
import { defaultConfig } from '../../../server/src/engine/config/schema';
import { retrieve } from '../../../server/src/engine/retrieval/hybrid';
import { parseQuery } from '../../../server/src/engine/ranking/query';
import { DEFAULT_BM25 } from '../../../server/src/engine/retrieval/bm25';
import type { DiscoveredFile } from '../../../server/src/engine/types';
import { Engine } from '../../../server/src/engine/engine';
import { removeDir, tempDir, writeFiles } from '../../support/workspace';

/** The letter of file `i` (a, b, c…): words with digits would be split into parts by the tokenizer. */
const letter = (i: number) => String.fromCharCode(97 + i);

/** A small Go-like source file whose function is named after `i` (WidgetB) and that says `marker<letter>` once. */
function source(i: number, lines = 90): string {
  const L = letter(i);
  const out = [`package p${i}`, '', `// Widget${L.toUpperCase()} handles marker${L} requests.`, `func Widget${L.toUpperCase()}(n int) int {`];
  for (let l = out.length; l < lines - 1; l++) out.push(l % 17 === 0 ? '' : `\tn = n + ${l} // step ${l}`);
  out.push('}');
  return out.join('\n') + '\n';
}

/** The id of the window of file `i` that holds its function's head (its first). */
function headWindow(i: number): string {
  const w = quickWindows(source(i))[0]!;
  return `~quick:${w.startLine}-${w.endLine}:pkg/f${String(i).padStart(2, '0')}.go`;
}

const body = (...tokens: string[]): QueryTerm[] => tokens.map((token) => ({ field: 'body', token, weight: 1 }));

describe('quick keyword pass of a large first index (issue 21: searchable early)', function () {
  this.timeout(120_000);
  let root: string;
  beforeEach(() => {
    root = tempDir('quarry-quick-');
  });
  afterEach(() => removeDir(root));

  function workspace(n: number): void {
    const files: Record<string, string> = {};
    for (let i = 0; i < n; i++) files[`pkg/f${String(i).padStart(2, '0')}.go`] = source(i);
    writeFiles(root, files);
  }

  it('cuts a file into windows of about 60 lines that cover it, ending after a blank line when one is near', () => {
    const text = Array.from({ length: 200 }, (_, i) => (i === 55 ? '' : `line ${i + 1}`)).join('\n') + '\n';
    const w = quickWindows(text);
    assert.deepEqual(w.map((x) => [x.startLine, x.endLine]), [[1, 56], [57, 116], [117, 200]]);
    // contiguous, and the text of each is its lines
    assert.equal(w.map((x) => text.slice(x.start, x.end)).join(''), text);
    assert.deepEqual(quickWindows(''), []);
    assert.deepEqual(quickWindows('only\n').map((x) => [x.startLine, x.endLine]), [[1, 1]]);
  });

  it('shows a window as the lines of the file, never a file outside the workspace, nothing for a file that is gone', () => {
    const text = source(1);
    writeFiles(root, { 'a/b.go': text, 'outside.txt': 'secret' });
    const [w] = quickWindows(text).slice(1);
    const id = `~quick:${w!.startLine}-${w!.endLine}:a/b.go`;
    assert.deepEqual(parseQuickId(id), { path: 'a/b.go', startLine: w!.startLine, endLine: w!.endLine });
    const [chunk] = quickChunks(join(root, 'a'), [`~quick:1-1:../outside.txt`], () => 'text');
    assert.equal(chunk, undefined);
    const chunks = quickChunks(root, [id, '~quick:1-5:gone.go', 'not-a-quick-id'], () => 'go');
    assert.equal(chunks.length, 1);
    const c = chunks[0]!;
    assert.equal(c.id, id);
    assert.equal(c.content, text.slice(w!.start, w!.end));
    assert.equal(c.language, 'go');
    assert.equal(c.symbol, '');
    // byte offsets into the file, as chunks carry them
    assert.equal(Buffer.from(readFileSync(join(root, 'a/b.go'))).subarray(c.startByte, c.endByte).toString('utf8'), c.content);
  });

  it('indexes windows searchable by their words and path; the real pass replaces them by path; what is left can be removed', async () => {
    workspace(4);
    writeFileSync(join(root, 'pkg', 'blob.go'), Buffer.from([0, 1, 2, 3, 0, 0, 9]));
    const lexical = LexicalIndex.open(join(root, '.quarry', 'lexical'), LEXICAL_ANALYZER);
    const files: DiscoveredFile[] = ['pkg/blob.go', 'pkg/f00.go', 'pkg/f01.go', 'pkg/f02.go', 'pkg/f03.go'].map((path) => ({ path, absPath: join(root, path), language: 'go', size: 1, mtimeMs: 1 }));
    const pass = await QuickPass.run(root, files, lexical, {});
    assert.deepEqual(pass.summary.files, 4, 'the binary file is left to the real pass');
    assert.equal(pass.summary.windows, 8);
    const hit = lexical.search(body('markerc'), 5, DEFAULT_BM25).hits;
    assert.deepEqual(hit.map((h) => h.id), [headWindow(2)]);
    // a batch of the real pass removes its paths' documents, windows included
    assert.equal(lexical.removePaths(['pkg/f02.go']), 2);
    assert.equal(pass.replaced(['pkg/f02.go']), 2);
    await lexical.commit();
    assert.deepEqual(lexical.search(body('markerc'), 5, DEFAULT_BM25).hits, []);
    // a run that stops early leaves none of the others
    assert.equal(await pass.removeLeft(), 6);
    assert.deepEqual(lexical.allIds().filter(isQuickId), []);
    // a second pass over the same files replaces, never doubles, what a killed one left
    await QuickPass.run(root, files, lexical, {});
    await QuickPass.run(root, files, lexical, {});
    assert.equal(lexical.allIds().filter(isQuickId).length, 8);
  });

  describe('in an index run', () => {
    async function run(opts: { abortAtFirstFile?: boolean } = {}) {
      workspace(12);
      const config = defaultConfig();
      const dir = join(root, '.quarry');
      mkdirSync(dir, { recursive: true });
      const { store } = await ChunkStore.open(dir);
      const lexical = LexicalIndex.open(join(dir, 'lexical'), LEXICAL_ANALYZER);
      const controller = new AbortController();
      let seenDuringRun: string[] | undefined;
      try {
        const summary = await runIndex(
          { root, config, store, lexical },
          {
            quickPass: true, quickPassMinFiles: 10, batchSize: 4, signal: controller.signal,
            checkpoint: {
              batch: () => undefined,
              tick: () => {
                if (seenDuringRun) return;
                // the first file of the first batch: nothing is parsed yet, every file is searchable already
                seenDuringRun = lexical.search(body('markerl'), 5, DEFAULT_BM25).hits.map((h) => h.id);
                if (opts.abortAtFirstFile) controller.abort();
              },
            },
          },
        );
        return { summary, seenDuringRun, lexical, store };
      } catch (e) {
        await store.close();
        throw e;
      }
    }

    it('makes every new file searchable before the first batch is parsed, and leaves only real chunks', async () => {
      const { summary, seenDuringRun, lexical, store } = await run();
      try {
        assert.deepEqual(seenDuringRun, [headWindow(11)]);
        assert.deepEqual(summary.quickPass && { files: summary.quickPass.files, windows: summary.quickPass.windows }, { files: 12, windows: 24 });
        assert.equal(summary.chunksRemoved, 0, 'windows are not chunks of an earlier run');
        assert.equal(summary.filesIndexed, 12);
        assert.deepEqual(lexical.allIds().filter(isQuickId), []);
        const hits = lexical.search(body('markerl'), 5, DEFAULT_BM25).hits;
        assert.equal(hits.length, 1);
        assert.equal((await store.getChunks([hits[0]!.id]))[0]?.symbol, 'WidgetL');
      } finally {
        await store.close();
      }
    });

    it('an interrupted run leaves no windows of the files it did not reach', async () => {
      const { summary, lexical, store } = await run({ abortAtFirstFile: true });
      try {
        assert.equal(summary.filesIndexed, 4, 'the batch it was in finishes');
        assert.deepEqual(lexical.allIds().filter(isQuickId), []);
        assert.deepEqual(lexical.search(body('markerl'), 5, DEFAULT_BM25).hits, []);
        assert.equal(lexical.search(body('markerc'), 5, DEFAULT_BM25).hits.length, 1);
      } finally {
        await store.close();
      }
    });
  });

  it('a search shows a window of a file not parsed yet with its lines and says so', async () => {
    workspace(3);
    const dir = join(root, '.quarry');
    mkdirSync(dir, { recursive: true });
    const { store } = await ChunkStore.open(dir);
    try {
      const lexical = LexicalIndex.open(join(dir, 'lexical'), LEXICAL_ANALYZER);
      const files: DiscoveredFile[] = ['pkg/f00.go', 'pkg/f01.go', 'pkg/f02.go'].map((path) => ({ path, absPath: join(root, path), language: 'go', size: 1, mtimeMs: 1 }));
      await QuickPass.run(root, files, lexical, {});
      const config = defaultConfig();
      for (const q of ['WidgetB', 'which widget handles markerb requests']) {
        const res = await retrieve(
          { lexical, store, bm25: config.bm25, retrieval: config.retrieval, quickWindows: (ids) => quickChunks(root, ids, () => 'go') },
          parseQuery(q),
          10,
          () => true,
        );
        const first = res.candidates.sort((a, b) => b.score - a.score)[0]!;
        assert.equal(first.id, headWindow(1), `${q}: ${res.candidates.map((c) => `${c.id} ${c.score}`).join(', ')}`);
        assert.ok(first.chunk?.content.includes('func WidgetB(n int) int {'));
        assert.ok(first.explanation.includes(QUICK_EXPLANATION));
      }
    } finally {
      await store.close();
    }
  });

  it('an engine with a small workspace makes no quick pass (a first index of fewer than 2,000 new files)', async () => {
    workspace(12);
    writeFiles(root, { '.quarry/config.yml': 'embedding:\n  provider: none\nrerank:\n  provider: none\n' });
    const engine = await Engine.open(root);
    try {
      const summary = await engine.index();
      assert.equal(summary.quickPass, undefined);
      assert.equal(summary.filesIndexed, 12);
    } finally {
      await engine.close();
    }
  });
});
