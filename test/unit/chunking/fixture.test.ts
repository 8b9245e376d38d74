/** The polyglot fixture: every file chunks, and every expected definition is the main symbol of one chunk. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkFixture, fixtureFiles, FIXTURE_ROOT } from './helpers';
import type { Chunk } from '../../../server/src/engine/types';

interface Expected {
  query: string;
  path: string;
  symbol: string;
}

describe('chunking: polyglot fixture', () => {
  const expected: Expected[] = JSON.parse(fs.readFileSync(path.join(FIXTURE_ROOT, 'expected-definitions.json'), 'utf8'));
  const all = new Map<string, Chunk[]>();

  before(async function () {
    this.timeout(60_000);
    for (const f of fixtureFiles()) all.set(f, await chunkFixture(f));
  });

  it('covers all 14 AST languages with at least 3 expected definitions each', () => {
    const langs = new Map<string, number>();
    for (const e of expected) {
      const lang = all.get(e.path)?.[0]?.language;
      assert.ok(lang, `${e.path} is chunked`);
      langs.set(lang!, (langs.get(lang!) ?? 0) + 1);
    }
    assert.equal(langs.size, 14, [...langs.keys()].join(','));
    for (const [lang, n] of langs) assert.ok(n >= 3, `${lang}: ${n}`);
  });

  it('every expected definition is the main symbol of a chunk in its file and defined nowhere else', () => {
    for (const e of expected) {
      const chunks = all.get(e.path)!;
      const def = chunks.find((c) => c.symbol === e.symbol && c.name === e.query);
      assert.ok(def, `${e.query}: no chunk ${e.symbol} in ${e.path}: ${chunks.map((c) => c.symbol).join(', ')}`);
      assert.notEqual(def!.source, 'text');
      for (const [file, cs] of all) {
        for (const c of cs) {
          if (c === def || c.source === 'markdown') continue;
          if (file === e.path && c.symbol === e.symbol) continue; // e.g. Rust impl blocks of the same type
          if (file === e.path && c.symbol.startsWith(`${e.symbol}.`)) continue; // its own members (a C++ constructor)
          assert.ok(!c.symbols.includes(e.query), `${e.query} is also defined by ${file} ${c.kind} ${c.symbol}`);
        }
      }
    }
  });

  it('chunks of a file are ordered, non-empty and within the file', () => {
    for (const [file, chunks] of all) {
      const text = fs.readFileSync(path.join(FIXTURE_ROOT, file), 'utf8');
      const buf = Buffer.from(text, 'utf8');
      const lines = text.split('\n').length;
      assert.ok(chunks.length > 0, file);
      for (const c of chunks) {
        assert.ok(c.content.trim().length > 0, file);
        assert.ok(c.startLine >= 1 && c.endLine <= lines && c.startLine <= c.endLine, `${file} ${c.symbol}`);
        assert.ok(c.endByte <= buf.length && c.startByte < c.endByte, `${file} ${c.symbol}`);
        assert.ok(c.tokenCount <= 4000);
      }
    }
  });
});
