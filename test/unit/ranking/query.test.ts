import assert from 'node:assert/strict';
import { parseQuery, pathMatcher, expandChunkTypes, compoundWords, lexicalTerms } from '../../../server/src/engine/ranking/query';
import { Bm25ConfigSchema } from '../../../server/src/engine/config/schema';

describe('query parser', () => {
  it('extracts quoted phrases and keeps their words searchable', () => {
    const q = parseQuery('"connection pool" timeout "retry policy"');
    assert.deepEqual(q.phrases, ['connection pool', 'retry policy']);
    assert.equal(q.text, 'connection pool timeout retry policy');
    assert.equal(q.form, 'natural');
  });
  it('parses lang:, path:, kind:/type: and -word filters', () => {
    const q = parseQuery('parse config lang:python,go path:src/**/*.py kind:function -deprecated');
    assert.deepEqual(q.filters.languages, ['python', 'go']);
    assert.deepEqual(q.filters.paths, ['src/**/*.py']);
    assert.deepEqual(q.filters.kinds, ['function', 'constructor']);
    assert.deepEqual(q.filters.excludes, ['deprecated']);
    assert.equal(q.text, 'parse config');
    assert.deepEqual(parseQuery('x type:class').filters.kinds.slice(0, 3), ['class', 'struct', 'enum']);
  });
  it('recognises forms and their target', () => {
    const cases: Array<[string, string, string]> = [
      ['what implements ChunkStore', 'implementations', 'ChunkStore'],
      ['What implements ChunkStore protocol', 'implementations', 'ChunkStore'],
      ['implementations of Reranker', 'implementations', 'Reranker'],
      ['types conforming to Codable', 'implementations', 'Codable'],
      ['implements Codable', 'implementations', 'Codable'],
      ['implementations of the Observer interface', 'implementations', 'Observer'],
      ['Observer implementations', 'implementations', 'Observer'],
      ['SchedulerLike implementers?', 'implementations', 'SchedulerLike'],
      ['classes that implement Comparable', 'implementations', 'Comparable'],
      ['which classes implement the Sink interface', 'implementations', 'Sink'],
      ['what structs satisfy io.Reader', 'implementations', 'io.Reader'],
      ['which types implement the Serialize trait', 'implementations', 'Serialize'],
      ['subclasses of HandlerBase', 'implementations', 'HandlerBase'],
      ['what inherits from RequestHandler', 'implementations', 'RequestHandler'],
      ['classes extending AbstractProcessingHandler', 'implementations', 'AbstractProcessingHandler'],
      ['who extends Middleware', 'implementations', 'Middleware'],
      ['list all implementations of Transport', 'implementations', 'Transport'],
      ['conforms to Hashable', 'implementations', 'Hashable'],
      ['where is the Reader interface implemented', 'implementations', 'Reader'],
      ['impl Display for', 'implementations', 'Display'],
      // the list named by any plural noun, after up to two modifiers; "derived from", "built on", "directly"
      ['serializers that extend BaseSerializer', 'implementations', 'BaseSerializer'],
      ['which parsers inherit from AbstractParser', 'implementations', 'AbstractParser'],
      ['http error classes derived from HttpError', 'implementations', 'HttpError'],
      ['what inherits directly from the abstract Widget base class', 'implementations', 'Widget'],
      ['plugins implementing Plugin directly', 'implementations', 'Plugin'],
      ['views built on BaseView', 'implementations', 'BaseView'],
      ['in-memory implementations of Cache', 'implementations', 'Cache'],
      ['which storage types implement Backend', 'implementations', 'Backend'],
      ['retry policy implementations', 'implementations', 'policy'],
      ['everything that inherits from Exception', 'implementations', 'Exception'],
      ['anything that implements Serializable', 'implementations', 'Serializable'],
      ['list every Dispatcher subclass', 'implementations', 'Dispatcher'],
      ['show all Handler implementations', 'implementations', 'Handler'],
      ['each Transport implementation', 'implementations', 'Transport'],
      // "impls of", "classes that inherit X" (without "from"), "show me everything that extends X"
      ['impls of Iterator', 'implementations', 'Iterator'],
      ['classes that inherit Base', 'implementations', 'Base'],
      ['which types inherit Base', 'implementations', 'Base'],
      ['show me everything that extends Widget', 'implementations', 'Widget'],
      ['find all types that implement Codec', 'implementations', 'Codec'],
      // possessive, "concrete X classes", "based on X", Ruby's mixins ("include X", "mix in X")
      ["Handler's subclasses", 'implementations', 'Handler'],
      ["the Reader interface's implementations", 'implementations', 'Reader'],
      ['concrete Handler classes', 'implementations', 'Handler'],
      ['classes based on io.Reader', 'implementations', 'io.Reader'],
      ['modules that include Enumerable', 'implementations', 'Enumerable'],
      ['which classes mix in Comparable', 'implementations', 'Comparable'],
      // a lower-case adjective before a capitalised name is not the target
      ['what extends the standard Error class', 'implementations', 'Error'],
      ['which classes implement the builtin Iterator', 'implementations', 'Iterator'],
      ['ChunkStore protocol', 'protocol', 'ChunkStore'],
      ['interface EmbeddingProvider', 'protocol', 'EmbeddingProvider'],
      ['what is LexicalIndex', 'definition', 'LexicalIndex'],
      ['where is runIndex defined?', 'definition', 'runIndex'],
      ['definition of Segment', 'definition', 'Segment'],
      ['who calls acquireIndexLock', 'callers', 'acquireIndexLock'],
      ['usages of parseQuery', 'callers', 'parseQuery'],
    ];
    for (const [text, relation, name] of cases) assert.deepEqual(parseQuery(text).target, { relation, name }, text);
    assert.equal(parseQuery('how do we merge segments').target, null);
    // "based on", "include": only a name written as a type's
    assert.equal(parseQuery('delays based on the response').target, null);
    assert.equal(parseQuery('which files include the config').target, null);
    assert.equal(parseQuery('tests that include a timeout').target, null);
    assert.equal(parseQuery('how is the cache eviction tested').target, null);
    assert.equal(parseQuery('what happens when the request times out').target, null);
    assert.equal(parseQuery('how to extend the router with plugins').target, null);
    assert.equal(parseQuery('where do we retry failed uploads').target, null);
    assert.equal(parseQuery('functions that parse dates').target, null);
    // "inherit" without "from" only after a word for types; tree "descendants" are not subclasses
    assert.equal(parseQuery('which processes inherit the file descriptors').target, null);
    assert.equal(parseQuery('descendants of a DOM node in the tree').target, null);
    assert.equal(parseQuery('show me how errors are handled').target, null);
  });
  it('joins a word and a particle that code writes as one word ("time out" → timeout), never a function word', () => {
    assert.deepEqual(compoundWords('time out a request that gets no response'), ['timeout']);
    assert.deepEqual(compoundWords('set up the logger and log in the user, then fall back'), ['setup', 'login', 'fallback']);
    assert.deepEqual(compoundWords('how to do it in the file name'), [], 'no function word leads, and two content words stay apart');
    assert.deepEqual(compoundWords('Time Out'), [], 'only plain lower-case words');
    const weights = Bm25ConfigSchema.parse({}).fieldWeights;
    const terms = lexicalTerms(parseQuery('time out a request'), weights);
    const joined = terms.find((t) => t.field === 'body' && t.token === 'timeout');
    assert.ok(joined, 'searched in the body');
    assert.equal(joined!.weight, weights.natural.body * 0.5, 'at half weight');
  });

  it('recognises a bare identifier (plain, dotted, ::)', () => {
    for (const t of ['getUserData', 'HTTPSConnection', 'Foo.bar', 'std::vector', 'user_manager', 'valid?', 'merge!', 'Hash#key?']) assert.equal(parseQuery(t).form, 'identifier', t);
    assert.equal(parseQuery('is it valid? yes').form, 'natural');
    assert.equal(parseQuery('"getUserData"').form, 'natural', 'a quoted identifier is a phrase');
  });
  it('gives clear errors for invalid syntax, never an empty result', () => {
    assert.throws(() => parseQuery('"unclosed phrase'), /Unclosed quote/);
    assert.throws(() => parseQuery('x ""'), /Empty phrase/);
    assert.throws(() => parseQuery('x lang:'), /needs a value/);
    // a filter word followed by a space and more words is prose (a doc sentence pasted as the query), not a filter
    const prose = parseQuery('the node type: a string naming its kind');
    assert.deepEqual(prose.filters.kinds, []);
    assert.equal(prose.text, 'the node type: a string naming its kind');
    assert.throws(() => parseQuery('x lang:cobol'), /Unknown language 'cobol'.*Known languages: .*python/);
    assert.throws(() => parseQuery('x kind:functon'), /Invalid chunk type 'functon'\. Valid types: function, method, class, code, reasoning, knowledge .*Did you mean 'function'\?.*in kind:/);
    assert.throws(() => parseQuery('lang:python'), /has filters but nothing to search for/);
    assert.throws(() => parseQuery('   '), /Empty query/);
  });
  it('accepts known intents and ignores unknown ones (FR-028)', () => {
    assert.equal(parseQuery('x', 'debug').intent, 'DEBUG');
    assert.equal(parseQuery('x', 'summarize').intent, null);
  });
  it('matches path globs', () => {
    const m = pathMatcher(['src/**/*.ts', 'lib/*.js']);
    assert.ok(m('src/a/b.ts'));
    assert.ok(m('lib/x.js'));
    assert.ok(!m('lib/a/x.js'));
    assert.ok(pathMatcher([])('anything'));
  });
  it('lang: takes ids in any case and common aliases; an unknown name is an error naming the known ones', () => {
    assert.deepEqual(parseQuery('retry lang:ts,PY,golang,c#').filters.languages, ['typescript', 'python', 'go', 'csharp']);
    assert.throws(() => parseQuery('retry lang:klingon'), /Unknown language 'klingon' in lang:\. Known languages: .*typescript/);
  });
  it('path: without glob characters matches paths containing it; a glob without a slash matches file names', () => {
    const folder = pathMatcher(['operators']);
    assert.ok(folder('internal/operators/retry.ts'));
    assert.ok(folder('operators/index.ts'));
    assert.ok(!folder('internal/observable/from.ts'));
    assert.ok(pathMatcher(['internal/operators/'])('src/internal/operators/retry.ts'));
    assert.ok(pathMatcher(['./internal/operators'])('internal/operators/retry.ts'));
    assert.ok(pathMatcher(['retry.ts'])('internal/operators/retry.ts'));
    const names = pathMatcher(['*.test.ts']);
    assert.ok(names('test/unit/a.test.ts'));
    assert.ok(names('a.test.ts'));
    assert.ok(!names('test/unit/a.ts'));
    // a glob with a slash still matches the whole path
    assert.ok(!pathMatcher(['src/*.ts'])('lib/src/a.ts'));
  });
  it('expands chunk type groups with the seed 003 error for typos', () => {
    assert.deepEqual(expandChunkTypes(['FUNCTION', 'method'], '--type'), ['function', 'constructor', 'method']);
    assert.throws(() => expandChunkTypes(['functon'], '--type'), /Invalid chunk type 'functon'\. Valid types: function, method, class, code, reasoning, knowledge \(finer kinds: .*constructor.*\)\. Did you mean 'function'\? \(in --type\)$/);
  });
});
