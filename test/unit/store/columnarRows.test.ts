import assert from 'node:assert/strict';
import { makeArrowTable } from '@lancedb/lancedb';
import { Field, FixedSizeList, Float32, Float64, Int32, List, Schema, tableToIPC, Utf8 } from 'apache-arrow';
import { columnarTable } from '../../../server/src/engine/store/columnarRows';

const schema = new Schema([
  new Field('id', new Utf8(), false),
  new Field('tags', new List(new Field('item', new Utf8(), true)), false),
  new Field('line', new Int32(), false),
  new Field('when', new Float64(), false),
  new Field('vector', new FixedSizeList(3, new Field('item', new Float32(), true)), false),
]);

const rows = [
  { id: 'plain', tags: ['a', 'bc'], line: 1, when: 1.5, vector: new Float32Array([0.1, 0.2, 0.3]) },
  { id: '', tags: [], line: -7, when: 1_700_000_000_000.25, vector: [1, 2, 3] },
  // multi-byte UTF-8, an astral character, lone surrogates (written as U+FFFD, as the builders write them), NUL
  { id: 'é日本語\u{1F600}\uD800x\uDFFF\u0000', tags: ['\uD83D', '', 'ß'], line: 2 ** 31 - 1, when: -0, vector: [-1e-30, 3.4e38, 0] },
];

describe('columnar rows (Arrow tables laid out a column at a time)', () => {
  it('writes exactly the bytes that LanceDB’s row-by-row conversion writes', () => {
    const ours = Buffer.from(tableToIPC(columnarTable(schema, rows)));
    const theirs = Buffer.from(tableToIPC(makeArrowTable(rows.map((r) => ({ ...r, vector: Array.from(r.vector) })), { schema })));
    assert.ok(ours.equals(theirs));
  });

  it('reads back every value', () => {
    const t = columnarTable(schema, rows);
    assert.equal(t.numRows, 3);
    assert.deepEqual(Array.from(t.getChild('tags')!.get(0)!.toArray()), ['a', 'bc']);
    assert.deepEqual(Array.from(t.getChild('tags')!.get(1)!.toArray()), []);
    assert.equal(t.getChild('id')!.get(2), 'é日本語\u{1F600}\uFFFDx\uFFFD\u0000');
    assert.equal(t.getChild('line')!.get(1), -7);
    assert.equal(t.getChild('when')!.get(1), 1_700_000_000_000.25);
    assert.deepEqual(Array.from(t.getChild('vector')!.get(1)!.toArray()), [1, 2, 3]);
  });

  it('an empty list of rows is an empty table of the schema', () => {
    const t = columnarTable(schema, []);
    assert.equal(t.numRows, 0);
    assert.deepEqual(t.schema.fields.map((f) => f.name), ['id', 'tags', 'line', 'when', 'vector']);
  });

  it('refuses a missing value, a value of another type or a vector of another width, naming the column and row', () => {
    assert.throws(() => columnarTable(schema, [{ ...rows[0], id: undefined }]), /column id of row 0 is undefined, not a string/);
    assert.throws(() => columnarTable(schema, [rows[0]!, { ...rows[0], line: '3' }]), /column line of row 1 is string, not a number/);
    assert.throws(() => columnarTable(schema, [{ ...rows[0], tags: ['a', 1] }]), /column tags of row 0 is number, not a string in a list/);
    assert.throws(() => columnarTable(schema, [{ ...rows[0], vector: [1, 2] }]), /column vector of row 0 is object, not 3 numbers/);
    assert.throws(() => columnarTable(new Schema([new Field('b', new Int32(), true), new Field('x', new List(new Field('item', new Int32())))]), [{ b: 1, x: [1] }]), /column x has type/);
  });
});
