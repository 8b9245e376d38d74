import assert from 'node:assert/strict';
import { codeView, documentView, pathWords, splitIdentifier, wordsOf } from '../../../server/src/engine/embedding/views';
import type { Chunk } from '../../../server/src/engine/types';

function chunk(over: Partial<Chunk>): Chunk {
  return {
    id: 'c1', path: 'server/src/auth/jwtMiddleware.ts', language: 'typescript', kind: 'method', symbol: 'AuthMiddleware.validateToken',
    name: 'validateToken', container: 'AuthMiddleware', symbols: ['validateToken'], references: [], conformances: [],
    doc: 'Checks the bearer token and rejects expired sessions.', signature: 'validateToken(req: HttpRequest): Promise<UserSession>',
    startLine: 10, endLine: 20, startByte: 0, endByte: 100,
    content: [
      '/** Checks the bearer token and rejects expired sessions. */',
      'validateToken(req: HttpRequest): Promise<UserSession> {',
      '  const rawToken = req.headers.authorization;',
      '  if (!rawToken) throw new UnauthorizedError("missing_token");',
      '  return this.sessionStore.lookup(parseJWT(rawToken));',
      '}',
    ].join('\n'),
    semanticClass: 'DEFINITION_CALLABLE', tokenCount: 60, contentHash: 'x', source: 'ast',
    ...over,
  };
}

describe('views: identifier splitting', () => {
  it('splits camelCase, PascalCase, acronyms, snake_case, kebab and digits', () => {
    assert.deepEqual(splitIdentifier('parseConfigFile'), ['parse', 'config', 'file']);
    assert.deepEqual(splitIdentifier('HTTPServerError'), ['http', 'server', 'error']);
    assert.deepEqual(splitIdentifier('read_json_v2'), ['read', 'json', 'v', '2']);
    assert.deepEqual(splitIdentifier('max-file-size'), ['max', 'file', 'size']);
    assert.deepEqual(splitIdentifier('parseJWT'), ['parse', 'jwt']);
    assert.deepEqual(splitIdentifier('__init__'), ['init']);
    assert.equal(pathWords('server/src/auth/jwtMiddleware.ts'), 'server src auth jwt middleware ts');
    assert.equal(wordsOf('const rawToken = req.headers.authorization;'), 'const raw token req.headers.authorization;');
  });
});

describe('views: documentView', () => {
  it('reads as words: kind, name, container, doc, signature, path, then the body', () => {
    const v = documentView(chunk({}));
    assert.ok(v.startsWith('method validate token. in auth middleware.'), v);
    assert.ok(v.includes('Checks the bearer token and rejects expired sessions.'));
    assert.ok(v.includes('validate token(req: http request): Promise user session'), v);
    assert.ok(v.includes('file server src auth jwt middleware ts.'));
    assert.ok(v.includes('raw token'), 'body identifiers split');
    assert.ok(v.includes('unauthorized error'));
    assert.ok(!v.includes('/**'), 'comment markers are not repeated from the body');
    assert.equal(v.split('validate token(req').length, 2, 'the signature line is not repeated from the body');
  });
  it('respects the character budget and handles chunks without names', () => {
    const big = chunk({ content: Array.from({ length: 500 }, (_, i) => `  callSomething${i}(argumentNumber${i});`).join('\n') });
    const v = documentView(big, { maxChars: 300 });
    assert.ok(v.length <= 300, String(v.length));
    const anon = documentView(chunk({ kind: 'code', name: '', symbol: '', container: '', doc: '', signature: '', symbols: [], content: 'import x from "y";' }));
    assert.ok(anon.startsWith('code. file server src'), anon);
    assert.ok(anon.includes('import x from'));
    const typeAlias = documentView(chunk({ kind: 'type_alias', name: 'UserId', container: '', symbols: ['UserId', 'extraName'], conformances: ['Serializable'] }));
    assert.ok(typeAlias.startsWith('type alias user id. defines extra name. implements serializable.'), typeAlias);
  });
});

describe('views: codeView', () => {
  it('keeps the code, prefixed by path and container; adds the doc only when the content lacks it', () => {
    const c = chunk({});
    const v = codeView(c);
    assert.ok(v.startsWith('// server/src/auth/jwtMiddleware.ts\n// in AuthMiddleware\n/** Checks'), v);
    assert.ok(v.endsWith(c.content));
    const noDoc = chunk({ content: c.content.split('\n').slice(1).join('\n') });
    const v2 = codeView(noDoc);
    assert.ok(v2.includes('// Checks the bearer token and rejects expired sessions.\nvalidateToken('), v2);
  });
  it('truncates at a line boundary within the budget', () => {
    const c = chunk({ content: Array.from({ length: 400 }, (_, i) => `line ${i} of code;`).join('\n') });
    const v = codeView(c, { maxChars: 500 });
    assert.ok(v.length <= 500);
    assert.ok(/line \d+ of code;$/.test(v), v.slice(-40));
  });
});
