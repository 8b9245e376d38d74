import assert from 'node:assert/strict';
import { findWholeWord, lastSegment, linesOf, namePosition } from '../../../client/src/namePosition';

const GO = [
  'package ledger', // 1
  '', // 2
  '// ReserveUnits takes units of a SKU out of stock.', // 3
  'func (l *MemoryLedger) ReserveUnits(sku string, n int) error {', // 4
  '\tif n <= 0 { return ErrQty }', // 5
  '\treturn l.reserve(sku, n) // ReserveUnitsLater', // 6
  '}', // 7
].join('\n');

describe('VS Code client: where an opened result puts the cursor (namePosition)', () => {
  it('uses the server\'s name_range: 1-based line and UTF-16 column, exclusive end column → 0-based position', () => {
    const p = namePosition({ span: [3, 7], content: { symbol: 'MemoryLedger.ReserveUnits' }, name_range: { line: 4, column: 24, end_line: 4, end_column: 36 } }, linesOf(GO));
    assert.deepEqual(p, { line: 3, character: 23, end: 35, source: 'name_range' });
    assert.equal(GO.split('\n')[3].slice(p.character, p.end), 'ReserveUnits');
  });

  it('counts columns in UTF-16 code units (an astral character before the name takes two)', () => {
    const text = 'const s = "😀"; function héllo() {}';
    const col = text.indexOf('héllo'); // JS string indices are UTF-16 code units
    const p = namePosition({ span: [1, 1], content: { symbol: 'héllo' }, name_range: { line: 1, column: col + 1, end_line: 1, end_column: col + 6 } }, linesOf(text));
    assert.equal(text.slice(p.character, p.end), 'héllo');
  });

  it('without name_range: the symbol\'s last segment as a whole word within the span (not the doc comment\'s prefix match)', () => {
    const p = namePosition({ span: [4, 7], content: { symbol: 'MemoryLedger.ReserveUnits' } }, linesOf(GO));
    assert.deepEqual(p, { line: 3, character: 23, end: 35, source: 'symbol' });
  });

  it('a doc comment inside the span that names the symbol is passed over for the declaration line', () => {
    const p = namePosition({ span: [3, 7], content: { symbol: 'ReserveUnits' } }, linesOf(GO));
    assert.deepEqual([p.line, p.character], [3, 23]);
    const py = ['# helper: compute_total', 'def compute_total(xs):', '    return sum(xs)'].join('\n');
    assert.deepEqual(namePosition({ span: [1, 3], content: { symbol: 'compute_total' } }, linesOf(py)).line, 1);
  });

  it('a name found only in a comment is still better than nothing', () => {
    const p = namePosition({ span: [3, 3], content: { symbol: 'ReserveUnits' } }, linesOf(GO));
    assert.deepEqual([p.line, p.character, p.source], [2, 3, 'symbol']);
  });

  it('whole words only: `Units` does not match inside `ReserveUnits`; falls back to the first non-blank character', () => {
    const p = namePosition({ span: [5, 7], content: { symbol: 'Ledger.Units' } }, linesOf(GO));
    assert.deepEqual(p, { line: 4, character: 1, end: 1, source: 'first-non-blank' });
  });

  it('a member the query named (matched_symbol) comes before the chunk\'s own symbol', () => {
    const src = ['class BaseChunk {', '  size = 1;', '  chunk_id: string;', '}'].join('\n');
    const p = namePosition({ span: [1, 4], content: { symbol: 'BaseChunk' }, matched_symbol: 'BaseChunk.chunk_id' }, linesOf(src));
    assert.deepEqual([p.line, p.character, p.end], [2, 2, 10]);
  });

  it('no symbol: the span\'s first non-blank character, skipping blank lines', () => {
    const p = namePosition({ span: [2, 4], content: { symbol: '' } }, linesOf(GO));
    assert.deepEqual([p.line, p.character], [2, 0]);
  });

  it('a name_range or span beyond the document (edited since indexing) is clamped, never thrown', () => {
    const short = linesOf('a\n  b');
    assert.deepEqual(namePosition({ span: [10, 12], content: {} }, short), { line: 1, character: 2, end: 2, source: 'first-non-blank' });
    assert.equal(namePosition({ span: [1, 2], content: { symbol: 'b' }, name_range: { line: 40, column: 1, end_line: 40, end_column: 2 } }, short).source, 'symbol');
  });

  it('lastSegment and findWholeWord', () => {
    assert.equal(lastSegment('a.b.C'), 'C');
    assert.equal(lastSegment('ns::Foo::bar'), 'bar');
    assert.equal(lastSegment('run()'), 'run');
    assert.equal(lastSegment(undefined), '');
    assert.equal(findWholeWord('$x x_y x', 'x'), 7);
    assert.equal(findWholeWord('fooBar foo', 'foo'), 7);
  });
});
