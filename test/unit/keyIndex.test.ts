import assert from 'node:assert/strict';
import { vectorFromArray, Utf8, type Vector } from 'apache-arrow';
import { KeyIndex, type Utf8Part } from '../../server/src/engine/keyIndex';

/** A batch's key column as the snapshot hands it to the index (rows `start…`). */
function part(values: Array<string | null>, start: number): Utf8Part {
  const col = vectorFromArray(values, new Utf8()) as Vector<Utf8>;
  const data = col.data[0]!;
  return { start, rows: values.length, values: data.values, offsets: data.valueOffsets as Int32Array, offset: data.offset, valid: (r) => col.isValid(r) };
}

describe('read snapshot: key index over the snapshot\'s own UTF-8 columns (keyIndex.ts)', () => {
  it('finds every row of a key, in row order, across batches; misses find nothing', () => {
    const a = ['h1', 'h2', 'h1', 'é ü ✓', 'h3'];
    const b = ['h2', 'h1', 'x'];
    const index = new KeyIndex([part(a, 0), part(b, a.length)]);
    assert.deepEqual(index.lookup('h1'), [0, 2, 6]);
    assert.deepEqual(index.lookup('h2'), [1, 5]);
    assert.deepEqual(index.lookup('é ü ✓'), [3]);
    assert.deepEqual(index.lookup('x'), [7]);
    assert.deepEqual(index.lookup('h'), []);
    assert.deepEqual(index.lookup('h11'), []);
    assert.deepEqual(index.lookup(''), []);
  });

  it('agrees with a Map on 20,000 keys with duplicates (collisions are told apart by the bytes)', () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => `src/pkg${i % 97}/file${i % 7919}.go#function#f${i % 4001}`);
    const parts: Utf8Part[] = [];
    for (let s = 0; s < keys.length; s += 1024) parts.push(part(keys.slice(s, s + 1024), s));
    const index = new KeyIndex(parts);
    const expected = new Map<string, number[]>();
    keys.forEach((k, i) => expected.set(k, [...(expected.get(k) ?? []), i]));
    for (const [k, rows] of expected) assert.deepEqual(index.lookup(k), rows, k);
    assert.deepEqual(index.lookup('src/pkg0/file0.go#function#f4001'), []);
    assert.ok(index.bytes <= 4 * 65_536, `slots at most half full: ${index.bytes} bytes`);
  });

  it('indexes a list of strings, ASCII or not (KeyIndex.ofStrings: a vocabulary)', () => {
    for (const words of [['parse', 'http', 'request', 'v', '2', ''], ['naïve', 'ünïcode', 'ascii', '✓', 'x']]) {
      const index = KeyIndex.ofStrings(words);
      assert.equal(index.size, words.length);
      words.forEach((w, i) => assert.equal(index.get(w), i, w));
      assert.equal(index.has('requests'), false);
      assert.equal(index.get('pars'), undefined);
    }
  });

  it('does not index null rows', () => {
    const index = new KeyIndex([part(['a', null, 'b'], 0)]);
    assert.deepEqual(index.lookup('a'), [0]);
    assert.deepEqual(index.lookup('b'), [2]);
    assert.deepEqual(index.lookup('null'), []);
  });
});
