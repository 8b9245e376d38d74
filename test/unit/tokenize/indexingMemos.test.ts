import assert from 'node:assert/strict';
import { indexingMemoEntries, registerIndexingMemo, releaseIndexingMemos } from '../../../server/src/engine/indexingMemos';
import { tokenize } from '../../../server/src/engine/tokenize/codeTokenizer';
import { countTokens } from '../../../server/src/engine/tokenize/tokenCount';

describe('indexing memos (indexingMemos.ts)', () => {
  it('the tokenizer and the token counter register theirs: a release empties them and they fill again', () => {
    releaseIndexingMemos();
    assert.equal(indexingMemoEntries(), 0);
    const before = tokenize('parseHttpRequestHeaders readsTheBody from_the_socket');
    countTokens('func (s *Server) Serve(l net.Listener) error {\n\treturn nil\n}\n');
    const filled = indexingMemoEntries();
    assert.ok(filled >= 8, `${filled} entries`);
    releaseIndexingMemos();
    assert.equal(indexingMemoEntries(), 0);
    // the answers after a release are the same as before it
    assert.deepEqual(tokenize('parseHttpRequestHeaders readsTheBody from_the_socket'), before);
    assert.ok(indexingMemoEntries() > 0);
  });

  it('a registered memo of its own is emptied too', () => {
    const memo = new Map([['a', 1], ['b', 2]]);
    registerIndexingMemo(memo);
    releaseIndexingMemos();
    assert.equal(memo.size, 0);
  });
});
