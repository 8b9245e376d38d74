import assert from 'node:assert/strict';
import { camelHumpMatch, fuzzyScore, matchSymbols, SymbolEntry } from '../../server/src/engine/symbols';
import { identifierParts } from '../../server/src/engine/tokenize/codeTokenizer';

const e = (name: string, path = 'a.ts', startLine = 1): SymbolEntry => ({ name, symbol: name, kind: 'class', container: '', path, startLine, endLine: startLine + 5,
  nameRange: { line: startLine + 1, column: 14, endLine: startLine + 1, endColumn: 14 + name.length } });

describe('workspace symbol matching', () => {
  it('one symbol for the parts of a declaration split over the hard maximum (same path, symbol and name)', () => {
    const part = (startLine: number) => ({ ...e('hugeFunction'), startLine, endLine: startLine + 99, nameRange: { line: 3, column: 10, endLine: 3, endColumn: 22 } });
    const hits = matchSymbols([part(1), part(101), part(201), e('hugeFunction', 'b.ts')], 'hugeFunction', 10);
    assert.deepEqual(hits.map((h) => `${h.path}:${h.startLine}`), ['a.ts:1', 'b.ts:1']);
  });

  it('camel humps: OSP, ordSumPan, osp match OrderSummaryPanel; SOP does not', () => {
    const parts = identifierParts('OrderSummaryPanel');
    for (const q of ['OSP', 'osp', 'ordSumPan', 'OrderSP', 'ordersum']) assert.ok(camelHumpMatch(q, parts), q);
    assert.ok(!camelHumpMatch('SOP', parts));
  });
  it('ranks exact > prefix > camel-hump > fuzzy', () => {
    const entries = [e('OrderSummaryPanelTests'), e('OrderSummaryPanel'), e('OrderSummary'), e('SimpleOrderPanel'), e('Order')];
    const names = (q: string) => matchSymbols(entries, q, 10).map((h) => `${h.name}:${h.match}`);
    assert.deepEqual(names('OrderSummary')[0], 'OrderSummary:exact');
    assert.deepEqual(names('OrderSum'), ['OrderSummary:prefix', 'OrderSummaryPanel:prefix', 'OrderSummaryPanelTests:prefix']);
    assert.equal(names('OSP')[0], 'OrderSummaryPanel:camel');
    assert.ok(names('ordpnl').includes('SimpleOrderPanel:fuzzy'));
    assert.deepEqual(matchSymbols(entries, '  ', 10), []);
  });
  it('fuzzy prefers tight matches', () => {
    assert.ok(fuzzyScore('panel', 'OrderPanel') > fuzzyScore('panel', 'PxAxNxExL'));
    assert.equal(fuzzyScore('xyz', 'OrderPanel'), 0);
  });
});
