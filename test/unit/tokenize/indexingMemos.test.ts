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

  it('with collect, a release also frees what the memos held (a full garbage collection)', async () => {
    const memo = new Map([['big', new Uint8Array(16 * 1024 * 1024)]]);
    const ref = new WeakRef(memo.get('big')!);
    registerIndexingMemo(memo);
    // a WeakRef's target is kept until the job that made it ends
    await new Promise((r) => setImmediate(r));
    releaseIndexingMemos(true);
    assert.equal(ref.deref(), undefined, 'the 16 MB array is collected by the release itself');
  });

  it('the token counter\'s memo of text segments is bounded by characters, not only entries', () => {
    releaseIndexingMemos();
    // 600 distinct 1,000-character segments (600,000 characters) are remembered; far more start the memo over
    const line = (i: number) => `${'x'.repeat(990)}${String(i).padStart(9, '0')}\n`;
    for (let i = 0; i < 600; i++) countTokens(line(i));
    assert.ok(indexingMemoEntries() >= 600);
    for (let i = 600; i < 6000; i++) countTokens(line(i));
    assert.ok(indexingMemoEntries() < 5000, `${indexingMemoEntries()} entries after 6,000 segments of 1,000 characters`);
  });
});
