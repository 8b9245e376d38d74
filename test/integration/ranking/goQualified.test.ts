import assert from 'node:assert/strict';
import type { CodeMatch } from '../../../server/src/engine/api/results';
import { tempDir, writeFiles } from '../../support/workspace';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';
import { indexedWorkspace } from '../../support/indexedWorkspace';

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
    const ws = indexedWorkspace(() => {
      const dir = tempDir('quarry-go-qualified-');
      writeFiles(dir, FILES);
      return dir;
    }, cfg.open);

    it('the embedded type keeps its package in the chunk', async () => {
      const res = await ws.engine().search('countingReader', { limit: 3 });
      const decl = res.matches.find((m) => m.content.symbol === 'countingReader')!;
      assert.ok(decl, 'countingReader is indexed');
      assert.ok(decl.content.content.includes('io.Reader'));
    });

    it('"what implements Reader": the project\'s CSVReader, not the wrapper of io.Reader', async () => {
      const ms = (await ws.engine().search('what implements Reader', { limit: 10, explain: true })).matches;
      assert.equal(ms[0]?.content.symbol, 'CSVReader', show(ms));
      const wrapper = ms.find((m) => m.content.symbol === 'countingReader');
      assert.ok(!wrapper || !listedAsImplementation(wrapper), show(ms));
    });

    it('"what implements io.Reader": the wrapper that embeds io.Reader, not CSVReader', async () => {
      const ms = (await ws.engine().search('what implements io.Reader', { limit: 10, explain: true })).matches;
      assert.equal(ms[0]?.content.symbol, 'countingReader', show(ms));
      const csv = ms.find((m) => m.content.symbol === 'CSVReader');
      assert.ok(!csv || !listedAsImplementation(csv), show(ms));
    });
  });
}
