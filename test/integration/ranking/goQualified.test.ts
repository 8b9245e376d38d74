import assert from 'node:assert/strict';
import type { CodeMatch } from '../../../server/src/engine/api/results';
import { join } from 'node:path';
import { ChunkStore } from '../../../server/src/engine/store/chunkStore';
import { resolveGeneration, vectorDir } from '../../../server/src/engine/store/generations';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';
import { indexedWorkspace, writtenWorkspace } from '../../support/indexedWorkspace';

/**
 * Go packages in "what implements X": a struct that embeds `io.Reader` implements io's Reader, not the project's own
 * `myio.Reader`, and a type that satisfies the project's Reader does not implement `io.Reader`.
 */
const FILES: Record<string, string> = {
  'go.mod': 'module example.com/gq\n\ngo 1.19\n',
  'myio/reader.go': `package myio

// Reader reads records, one at a time.
type Reader interface {
\tReadRecord() ([]string, error)
}

// CSVReader reads comma-separated records.
type CSVReader struct{ sep rune }

// ReadRecord reads the next line and splits it at the separator.
func (c *CSVReader) ReadRecord() ([]string, error) { return nil, nil }
`,
  'wrap/logged.go': `package wrap

import "example.com/gq/myio"

// Logged reads records through another reader and logs each one.
type Logged struct {
\tmyio.Reader
\tprefix string
}
`,
  'myio/counting.go': `package myio

import "io"

// countingReader counts the bytes read through it.
type countingReader struct {
\tio.Reader
\tn int64
}

// Count is the number of bytes read so far.
func (c *countingReader) Count() int64 { return c.n }
`,
};

const listedAsImplementation = (m: CodeMatch) => m.explanation.some((l) => /: listed with the implementations/.test(l));
const show = (ms: CodeMatch[]) => ms.map((m, i) => `${i + 1}. ${m.content.symbol}\n   ${m.explanation.join('\n   ')}`).join('\n');

for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`Go: "what implements X" compares packages (${cfg.label})`, function () {
    this.timeout(120_000);
    const ws = indexedWorkspace(writtenWorkspace('quarry-go-qualified-', FILES), cfg.open);

    it('a declared conformance is the row of its name; the chunk keeps the package', async () => {
      const quarryDir = join(ws.root(), '.quarry');
      const { store } = await ChunkStore.open(resolveGeneration(quarryDir).generation.dir, { vectorDir: vectorDir(quarryDir) });
      try {
        const rows = await store.conformancesOf('Reader');
        assert.deepEqual(rows.map((r) => r.typeName).sort(), ['CSVReader', 'Logged', 'countingReader'], JSON.stringify(rows));
        assert.equal((await store.conformancesOf('io.Reader')).filter((r) => r.typeName === 'countingReader').length, 0);
      } finally {
        await store.close();
      }
    });

    it('the embedded type keeps its package in the chunk', async () => {
      const res = await ws.engine().search('countingReader', { limit: 3 });
      const decl = res.matches.find((m) => m.content.symbol === 'countingReader')!;
      assert.ok(decl, 'countingReader is indexed');
      assert.ok(decl.content.content.includes('io.Reader'));
    });

    it('"what implements Reader": the project\'s CSVReader and the type that embeds myio.Reader, not the wrapper of io.Reader', async () => {
      const ms = (await ws.engine().search('what implements Reader', { limit: 10, explain: true })).matches;
      // the two implementations and the definition (kept in the top 3, after the implementations) first
      assert.deepEqual(new Set(ms.slice(0, 3).map((m) => m.content.symbol)), new Set(['CSVReader', 'Logged', 'Reader']), show(ms));
      assert.notEqual(ms[0]!.content.symbol, 'Reader', show(ms));
      for (const s of ['CSVReader', 'Logged']) assert.ok(listedAsImplementation(ms.find((m) => m.content.symbol === s)!), show(ms));
      const wrapper = ms.find((m) => m.content.symbol === 'countingReader');
      assert.ok(!wrapper || !listedAsImplementation(wrapper), show(ms));
    });

    it('"what implements io.Reader": the wrapper that embeds io.Reader, not CSVReader', async () => {
      const ms = (await ws.engine().search('what implements io.Reader', { limit: 10, explain: true })).matches;
      assert.equal(ms[0]?.content.symbol, 'countingReader', show(ms));
      for (const other of ['CSVReader', 'Logged']) {
        const m = ms.find((x) => x.content.symbol === other);
        assert.ok(!m || !listedAsImplementation(m), show(ms));
      }
    });
  });
}
