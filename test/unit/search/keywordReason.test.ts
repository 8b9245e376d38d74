import assert from 'node:assert/strict';
import { hasWholeWord, keywordReason } from '../../../server/src/engine/search/breakdown';
import { seededRandom } from '../../support/faultTrials';

/** What the keyword reason used to test: a Unicode regular expression per word. */
function reference(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}_])${escaped}([^\\p{L}\\p{N}_]|$)`, 'u').test(text);
}

describe('score breakdown: keyword reason (seed 003 FR-6.2)', () => {
  it('finds whole words only, at either end of the text and beside punctuation', () => {
    assert.equal(hasWholeWord('parse the header', 'header'), true);
    assert.equal(hasWholeWord('header parse', 'header'), true);
    assert.equal(hasWholeWord('readHeader(x)', 'header'), false);
    assert.equal(hasWholeWord('read_header', 'header'), false);
    assert.equal(hasWholeWord('headers', 'header'), false);
    assert.equal(hasWholeWord('headers, header.', 'header'), true);
    assert.equal(hasWholeWord('header2', 'header'), false);
    assert.equal(hasWholeWord('x(header)', 'header'), true);
    assert.equal(hasWholeWord('', 'header'), false);
  });

  it('treats letters and digits of any script as word characters, surrogate pairs included', () => {
    assert.equal(hasWholeWord('écafé', 'café'), false);
    assert.equal(hasWholeWord('un café noir', 'café'), true);
    assert.equal(hasWholeWord('cafés', 'café'), false);
    assert.equal(hasWholeWord('日本語', '本'), false);
    // U+1D7D8 MATHEMATICAL DOUBLE-STRUCK DIGIT ZERO (a surrogate pair, \p{N}) continues the word; an emoji does not
    assert.equal(hasWholeWord('key\u{1D7D8}', 'key'), false);
    assert.equal(hasWholeWord('\u{1D7D8}key', 'key'), false);
    assert.equal(hasWholeWord('\u{1F600}key\u{1F600}', 'key'), true);
  });

  it('agrees with a regular expression per word on generated texts', () => {
    const random = seededRandom(5);
    const alphabet = ['a', 'b', 'ab', '_', ' ', '.', '(', 'é', '1', '\u{1D7D8}', '\u{1F600}', '\u0301', '-', '\n'];
    const pick = () => alphabet[Math.floor(random() * alphabet.length)]!;
    for (let i = 0; i < 3000; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 12) }, pick).join('');
      for (const word of ['ab', 'a', 'b', 'ba', 'é1', 'aé']) assert.equal(hasWholeWord(text, word), reference(text, word), `${JSON.stringify(text)} / ${word}`);
    }
  });

  it('names the first query word of 3+ characters found whole, else the overlap', () => {
    assert.deepEqual(keywordReason('func ParseHeader(h string) // parse a header', ['parse', 'header']), { reason: 'exact keyword match on "parse"', exact: true });
    assert.deepEqual(keywordReason('func ParseHeader(h string)', ['parse', 'header']), { reason: 'strong term overlap', exact: false });
    assert.deepEqual(keywordReason('func ParseHeader(h string)', ['parse', 'cookie', 'jar']), { reason: 'partial match', exact: false });
  });

  it('names a content word before a function word found earlier in the query', () => {
    const text = 'class ConcurrencyLimiter { /** the most tasks running at once; the rest wait for a limit slot */ }';
    assert.deepEqual(keywordReason(text, ['limit', 'the', 'number', 'of', 'concurrent', 'requests']).reason, 'exact keyword match on "limit"');
    assert.deepEqual(keywordReason(text, ['the', 'limit']).reason, 'exact keyword match on "limit"');
    // the word that counted most in the keyword score is named first
    const impl = 'export class Scheduler implements SchedulerLike {}';
    assert.equal(keywordReason(impl, ['what', 'implements', 'SchedulerLike']).reason, 'exact keyword match on "implements"');
    assert.equal(keywordReason(impl, ['what', 'implements', 'SchedulerLike'], new Map([['schedulerlike', 9.5], ['implements', 1.2]])).reason, 'exact keyword match on "schedulerlike"');
    // a query of function words alone still names the one found
    assert.deepEqual(keywordReason(text, ['the', 'for']).reason, 'exact keyword match on "the"');
    // a function word found whole is never named when the query's content words are not found whole
    const ctor = 'constructor(opts: VoyageProviderOptions) { this.client = new VoyageClient(opts); } // the client';
    assert.deepEqual(keywordReason(ctor, ['limit', 'the', 'number', 'of', 'concurrent', 'requests', 'to', 'the', 'embedding', 'provider']), { reason: 'partial match', exact: false });
  });
});
