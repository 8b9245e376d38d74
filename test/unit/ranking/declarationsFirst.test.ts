import assert from 'node:assert/strict';
import { declarationsFirstStage } from '../../../server/src/engine/ranking/stages/declarationsFirst';
import { compareCandidates } from '../../../server/src/engine/ranking/candidate';
import { relevances } from '../../../server/src/engine/search/present';
import { declaredMember, declaresName } from '../../../server/src/engine/types';
import { chunk, candidate, stageContext } from '../../support/chunks';

const range = (line: number, column: number, name: string) => ({ line, column, endLine: line, endColumn: column + name.length });
// A small class kept whole: its member `fetch` has no unit of its own, only a recorded name range.
const keptWhole = chunk({
  kind: 'class', name: 'HashWithIndifferentAccess', language: 'ruby', path: 'lib/hash.rb',
  symbols: ['HashWithIndifferentAccess', 'fetch', 'delete'],
  symbolRanges: [
    { name: 'fetch', symbol: 'HashWithIndifferentAccess.fetch', kind: 'method', container: 'HashWithIndifferentAccess', range: range(12, 9, 'fetch') },
    { name: 'delete', symbol: 'HashWithIndifferentAccess.delete', kind: 'method', container: 'HashWithIndifferentAccess', range: range(16, 9, 'delete') },
  ],
  content: 'class HashWithIndifferentAccess < ::Hash\n  # ... 90 lines ...\n  def fetch(key, *args)\n    super(convert_key(key), *args)\n  end\nend',
});
// A split class's unit lists its members' names, but each member is a unit of its own (no symbolRanges).
const splitClass = chunk({ kind: 'class', name: 'Store', symbols: ['Store', 'fetch'], content: 'class Store\n  def fetch; end\nend', path: 'lib/store.rb', language: 'ruby' });
const caller = (name: string) => chunk({ kind: 'method', name, path: `lib/${name}.rb`, language: 'ruby', content: `def ${name}\n  options.fetch(:a) || options.fetch(:b)\nend` });
const fetchAll = chunk({ kind: 'function', name: 'fetch_all', path: 'lib/fetch_all.rb', language: 'ruby', content: 'def fetch_all; end' });

describe('declarations first (identifier queries, issue 18)', () => {
  it('declaresName: own name (case and underscores aside) or a member of a class kept whole; not a split class, not a caller', () => {
    assert.equal(declaresName(keptWhole, 'fetch'), true);
    assert.equal(declaresName(keptWhole, 'HashWithIndifferentAccess'), true);
    assert.equal(declaresName(fetchAll, 'fetchAll'), true);
    assert.equal(declaresName(splitClass, 'fetch'), false);
    assert.equal(declaresName(caller('completion_options'), 'fetch'), false);
    assert.equal(declaredMember(keptWhole, 'fetch'), 'HashWithIndifferentAccess.fetch');
    assert.equal(declaredMember(keptWhole, 'HashWithIndifferentAccess'), undefined, 'its own name is not a member');
  });

  it('a class kept whole that declares the name ranks before short methods that only call it, whatever their scores', () => {
    const cands = [candidate(caller('completion_options'), 13.4), candidate(caller('add_to_history'), 13.1), candidate(splitClass, 12), candidate(keptWhole, 11.2)];
    declarationsFirstStage.apply(stageContext('fetch', { fetch: 30 }), cands);
    cands.sort(compareCandidates);
    assert.equal(cands[0].id, keptWhole.id);
    assert.deepEqual(cands.slice(1).map((c) => c.score), [13.4, 13.1, 12], 'the uses keep their score order behind it');
    assert.match(cands[0].explanation.join('\n'), /declares 'fetch'/);
    assert.match(cands[1].explanation.join('\n'), /does not declare 'fetch'/);
  });

  it('one type declared in several files (a C# partial class): the declaration with its doc or base types, then the longest, first', () => {
    const part = (file: string, lines: number, extra: Partial<Parameters<typeof chunk>[0]> = {}) =>
      chunk({ kind: 'class', name: 'Server', symbol: 'App.Server', path: `src/${file}`, language: 'csharp', startLine: 3, endLine: 3 + lines, content: `public partial class Server { /* ${file} */ }`, ...extra });
    const main = part('Server.cs', 2400, { doc: 'The application server.', conformances: ['IDisposable'] });
    const pieces = [part('Server.Metrics.cs', 3), part('Server.Logging.cs', 3), part('Server.Health.cs', 5)];
    const user = chunk({ kind: 'method', name: 'Start', path: 'src/Program.cs', language: 'csharp', content: 'new Server().Start();' });
    // BM25's length normalisation: the small partial files tie above the main one
    const cands = [...pieces.map((p) => candidate(p, 30)), candidate(main, 20), candidate(user, 25)];
    declarationsFirstStage.apply(stageContext('Server', { server: 9 }), cands);
    cands.sort(compareCandidates);
    assert.deepEqual(cands.map((c) => c.chunk!.path), ['src/Server.cs', 'src/Server.Health.cs', 'src/Server.Logging.cs', 'src/Server.Metrics.cs', 'src/Program.cs']);
    assert.match(cands[0].explanation.join('\n'), /the primary declaration of class App\.Server \(4 in all/);
    // one file's declarations (an outline's pieces) and types declared once are left as they are
    const once = [candidate(part('A.cs', 3), 5), candidate(chunk({ kind: 'class', name: 'Server', symbol: 'Other.Server', path: 'src/B.cs', language: 'csharp', endLine: 900, content: 'class Server {}' }), 4)];
    declarationsFirstStage.apply(stageContext('Server', { server: 2 }), once);
    assert.deepEqual(once.map((c) => c.score), [5, 4]);
  });

  it('one method declared in several files (a build variant, a stand-in): the documented, then the longest, first', () => {
    const variant = (file: string, lines: number, doc = '') =>
      chunk({ kind: 'method', name: 'RegisterAggregator', symbol: 'SQLiteConn.RegisterAggregator', container: 'SQLiteConn', path: file, language: 'go', startLine: 10, endLine: 10 + lines, doc, content: `func (c *SQLiteConn) RegisterAggregator(name string, impl any, pure bool) error { /* ${file} */ }` });
    const real = variant('sqlite3.go', 106, 'RegisterAggregator makes a Go type available as a SQLite aggregation function.');
    const mock = variant('static_mock.go', 0);
    // BM25's length normalisation put the one-line stand-in first
    const cands = [candidate(mock, 30), candidate(real, 18)];
    declarationsFirstStage.apply(stageContext('RegisterAggregator', { registeraggregator: 4 }), cands);
    cands.sort(compareCandidates);
    assert.deepEqual(cands.map((c) => c.chunk!.path), ['sqlite3.go', 'static_mock.go']);
    assert.match(cands[0].explanation.join('\n'), /the primary declaration of method SQLiteConn\.RegisterAggregator \(2 in all/);
  });

  it('changes nothing when no candidate declares the name, or for descriptions', () => {
    const cands = [candidate(caller('a'), 3), candidate(caller('b'), 2)];
    declarationsFirstStage.apply(stageContext('fetch', { fetch: 30 }), cands);
    assert.ok(cands.every((c) => c.group === undefined && c.explanation.length === 0));
    const desc = [candidate(caller('a'), 3), candidate(keptWhole, 2)];
    declarationsFirstStage.apply(stageContext('how are values fetched from the hash', {}), desc);
    assert.ok(desc.every((c) => c.group === undefined));
  });

  it('relevance never rises down the list: the first result is 1, a later group starts one step below where the previous ended', () => {
    const cands = [candidate(caller('a'), 13.4), candidate(caller('b'), 6.7), candidate(keptWhole, 11.2)];
    declarationsFirstStage.apply(stageContext('fetch', { fetch: 30 }), cands);
    cands.sort(compareCandidates);
    const r = relevances(cands);
    assert.equal(r[0], 1);
    assert.equal(r[1], 0.95);
    assert.equal(r[2], 0.475);
    assert.deepEqual(relevances([candidate(caller('a'), 4), candidate(caller('b'), 2)]), [1, 0.5], 'one group: score over the best');
  });
});
