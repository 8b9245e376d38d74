import assert from 'node:assert/strict';
import { tokenize, identifierParts, partTokens, pushPartsAndStems, stemOf, wholeTokens, isIdentifierLike, nameStemTokens } from '../../../server/src/engine/tokenize/codeTokenizer';
import { lexicalTerms, parseQuery } from '../../../server/src/engine/ranking/query';
import { lexicalDocForChunk } from '../../../server/src/engine/indexer/lexicalDoc';
import type { Chunk } from '../../../server/src/engine/types';
import { countTokens } from '../../../server/src/engine/tokenize/tokenCount';

describe('code-aware tokenizer (seed 003 UT-BM25-01..07)', () => {
  it('UT-BM25-01 splits camelCase and keeps the whole identifier', () => {
    const r = tokenize('getUserData');
    for (const t of ['get', 'user', 'data', 'getuserdata']) assert.ok(r.includes(t), t);
  });
  it('UT-BM25-02 splits snake_case and keeps the whole identifier', () => {
    const r = tokenize('user_manager');
    for (const t of ['user', 'manager', 'user_manager']) assert.ok(r.includes(t), t);
  });
  it('UT-BM25-03 splits dot notation and keeps the dotted path', () => {
    const r = tokenize('auth.oauth.client');
    for (const t of ['auth', 'oauth', 'client', 'auth.oauth.client']) assert.ok(r.includes(t), t);
  });
  it('UT-BM25-04 splits acronyms: HTTPRequest, HTTPSConnection', () => {
    assert.deepEqual(identifierParts('HTTPRequest'), ['http', 'request']);
    assert.deepEqual(identifierParts('HTTPSConnection'), ['https', 'connection']);
    const r = tokenize('HTTPSConnection');
    assert.ok(r.includes('httpsconnection'));
  });
  it('UT-BM25-05 splits mixed camelCase, dots and snake_case', () => {
    const r = tokenize('getUserData.auth_token');
    for (const t of ['get', 'user', 'data', 'auth', 'token', 'getuserdata', 'auth_token']) assert.ok(r.includes(t), t);
  });
  it('UT-BM25-06 returns [] for the empty string', () => {
    assert.deepEqual(tokenize(''), []);
  });
  it('UT-BM25-07 splits on special characters', () => {
    const r = tokenize('user@email.com');
    for (const t of ['user', 'email', 'com']) assert.ok(r.includes(t), t);
  });
  it('splits letter/digit boundaries and keeps no stop-word removal or stemming', () => {
    assert.deepEqual(identifierParts('utf8Decode'), ['utf', '8', 'decode']);
    assert.deepEqual(partTokens('get the running users'), ['get', 'the', 'running', 'users']);
  });
  it('handles non-ASCII identifiers', () => {
    assert.deepEqual(identifierParts('größeBerechnen'), ['größe', 'berechnen']);
  });
  it('wholeTokens keeps identifiers whole and lower-cased', () => {
    assert.deepEqual(wholeTokens('fooBar(x, y_z)'), ['foobar', 'y_z']);
  });
  it('stems the parts of a name so descriptions in other inflections meet it (name field, natural queries only)', () => {
    assert.deepEqual(nameStemTokens('ConcurrencyLimiter'), ['^concurr', '^limit']);
    const doc = lexicalDocForChunk({ id: 'a', path: 'a.ts', language: 'typescript', source: 'ast', kind: 'class', name: 'ConcurrencyLimiter', symbol: 'ConcurrencyLimiter', symbols: [], container: '', content: 'class ConcurrencyLimiter {}', doc: '' } as unknown as Chunk);
    assert.ok(doc.fields.name.includes('^limit') && doc.fields.name.includes('limiter'));
    const weights = { identifier: { name: 4, symbols: 2, ident: 1.5, body: 0.5, path: 1, stem: 0 }, natural: { name: 1.5, symbols: 1, ident: 0.5, body: 1, path: 1, stem: 0.8 } };
    const natural = lexicalTerms(parseQuery('limit the concurrent requests'), weights).filter((t) => t.field === 'name' && t.token.startsWith('^'));
    assert.deepEqual(natural.map((t) => t.token), ['^limit', '^concurr', '^request'], 'function words are left out');
    assert.ok(natural.every((t) => t.weight === 0.75), 'half the name weight');
    assert.ok(!lexicalTerms(parseQuery('ConcurrencyLimiter'), weights).some((t) => t.token.startsWith('^')), 'identifier queries match names exactly');
  });
  it('reads the same parts and stems from the packed word memo as computed, before and after it starts over', () => {
    const cases: Array<[string, string[]]> = [
      ['_', []],
      ['__', []],
      ['err', ['err']],
      ['Err', ['err']],
      ['readLines', ['read', 'lines']],
      ['getHTTPResponse2', ['get', 'http', 'response', '2']],
      ['__init__', ['init']],
      ['user_manager_', ['user', 'manager']],
      ['größeBerechnen', ['größe', 'berechnen']],
      ['ΟΔΟΣ', ['οδος']],
    ];
    const check = () => {
      for (const [word, parts] of cases) {
        const p: string[] = ['before'];
        const s: string[] = ['before'];
        pushPartsAndStems(word, p, s);
        assert.deepEqual(p, ['before', ...parts], word);
        assert.deepEqual(s, ['before', ...parts.map(stemOf)], word);
        assert.deepEqual(identifierParts(word), parts, word);
      }
    };
    check(); // computed
    check(); // remembered
    // more distinct words than the memo keeps (50,000): it starts over, and answers the same
    for (let i = 0; i < 60_000; i++) pushPartsAndStems(`fillerWord${i}`, [], []);
    check();
    assert.deepEqual(stemOf('lines'), 'line');
  });
  it('recognises identifier-like queries', () => {
    assert.ok(isIdentifierLike('getUserData'));
    assert.ok(isIdentifierLike('Foo.bar'));
    assert.ok(isIdentifierLike('std::vector'));
    assert.ok(!isIdentifierLike('parse the config'));
    assert.ok(!isIdentifierLike('"quoted"'));
  });
});

describe('countTokens', () => {
  it('counts special-token strings in source code as plain text instead of refusing the file', () => {
    assert.ok(countTokens('tokens = ["<|endoftext|>", "<|fim_prefix|>"]') > 5);
    assert.equal(countTokens(''), 0);
  });
});
