import assert from 'node:assert/strict';
import { indexNote, phraseNotice, quotedPhrases, withoutModelIds } from '../../../client/src/findCodeText';

describe('VS Code client: Find Code wording (phrase notice, indexing state)', () => {
  it('quotedPhrases: the double-quoted parts, once each', () => {
    assert.deepEqual(quotedPhrases('"take units" stock "take units" "ledger"'), ['take units', 'ledger']);
    assert.deepEqual(quotedPhrases('no quotes'), []);
    assert.deepEqual(quotedPhrases('"unclosed phrase'), []);
  });

  it('a notice when no result contains every phrase (the server marks "phrase: missing" on all of them)', () => {
    const missing = { explanation: ['bm25 …', 'phrase: missing "reserve zebra" → after the results that contain every phrase'] };
    assert.equal(phraseNotice('"Reserve Zebra" stock', [missing, missing]), 'No exact match for "Reserve Zebra"; showing the closest results');
  });

  it('no notice when one result contains them, when the query has no phrase, or when the server said nothing', () => {
    const contains = { explanation: ['phrase: contains "reserveunits" → first group'] };
    const missing = { explanation: ['phrase: missing "reserveunits" → after the results that contain every phrase'] };
    assert.equal(phraseNotice('"ReserveUnits" x', [contains, missing]), undefined);
    assert.equal(phraseNotice('ReserveUnits', [missing]), undefined);
    assert.equal(phraseNotice('"ReserveUnits"', [{ explanation: ['bm25 only'] }]), undefined);
  });

  it('no results at all: the notice without "closest results"', () => {
    assert.equal(phraseNotice('"a b" "c"', []), 'No exact match for "a b", "c"');
  });

  it('indexNote: empty when ready; indexing, embedding-while-searchable and errors say so', () => {
    assert.equal(indexNote([{ name: 'a', state: 'ready' }]), '');
    assert.equal(indexNote([{ name: 'a', state: 'indexing' }, { name: 'b', state: 'ready' }]), 'indexing: results may be incomplete');
    assert.equal(indexNote([{ name: 'a', state: 'embedding', searchable: true }]), 'indexing embeddings: results may improve');
    assert.equal(indexNote([{ name: 'a', state: 'error' }]), 'index error in a');
  });

  it('withoutModelIds: status messages lose the embedding model id', () => {
    assert.equal(withoutModelIds('searchable; embedding 86 chunks (static:quarry-code-v3@ab12)'), 'searchable; embedding 86 chunks');
    assert.equal(withoutModelIds('embedding 3/86 chunks with local-use:use-lite-512'), 'embedding 3/86 chunks with');
    assert.equal(withoutModelIds('indexed: 16 files, 86 chunks'), 'indexed: 16 files, 86 chunks');
  });
});
