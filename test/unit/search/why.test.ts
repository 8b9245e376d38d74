import assert from 'node:assert/strict';
import { whyOf } from '../../../server/src/engine/search/why';
import { parseQuery } from '../../../server/src/engine/ranking/query';
import { queryWords } from '../../../server/src/engine/search/breakdown';
import { chunk, candidate } from '../../support/chunks';

const why = (query: string, c: ReturnType<typeof candidate>, member?: string) => whyOf(c, parseQuery(query), queryWords(parseQuery(query).text), member);

describe('why a result is here, in plain words (issue 19)', () => {
  const parse = chunk({ kind: 'function', name: 'parseConfig', path: 'src/config/load.ts', language: 'typescript', content: 'export function parseConfig(text: string) {\n  return yaml.parse(text);\n}' });
  const caller = chunk({ kind: 'function', name: 'boot', path: 'src/boot.ts', language: 'typescript', content: 'function boot() {\n  const c = parseConfig(read());\n}' });
  const lru = chunk({ kind: 'class', name: 'LruPolicy', conformances: ['EvictionPolicy'], path: 'src/lru.ts', language: 'typescript', content: 'class LruPolicy implements EvictionPolicy {}' });
  const section = chunk({ kind: 'section', name: 'Configuration', path: 'README.md', language: 'markdown', content: '## Configuration\nThe config file is read at startup.' });

  it('identifier queries: defines / declares a member / uses', () => {
    assert.equal(why('parseConfig', candidate(parse, 1)), 'defines `parseConfig`');
    assert.equal(why('parseConfig', { ...candidate(caller, 1), bm25: { score: 1, matches: [] } }), 'uses `parseConfig`');
    // a typo or a partial name that the chunk does not hold whole: it only shares parts of it
    assert.equal(why('parseConfg', { ...candidate(caller, 1), bm25: { score: 1, matches: [] } }), 'shares parts of `parseConfg`');
    assert.equal(why('fetch', candidate(caller, 1), 'Store.fetch'), 'declares `Store.fetch`');
    assert.equal(why('EvictionPolicy', { ...candidate(lru, 1), bm25: { score: 1, matches: [] } }), 'implements `EvictionPolicy`');
    const inFile = { ...candidate(caller, 1), bm25: { score: 1, matches: [{ field: 'path' as const, token: 'boot', tf: 1, df: 1, idf: 1, contribution: 1 }] } };
    assert.equal(why('boot', { ...inFile, chunk: { ...caller, name: 'start', symbol: 'start' } }), 'in boot.ts');
  });

  it('implementations, directly and through another type', () => {
    assert.equal(why('what implements EvictionPolicy', { ...candidate(lru, 1), conformsTo: 'EvictionPolicy' }), 'implements `EvictionPolicy`');
    assert.equal(why('what implements EvictionPolicy', { ...candidate(lru, 1), conformsTo: 'EvictionPolicy', conformsVia: 'DescribedPolicy' }), 'implements `EvictionPolicy` through `DescribedPolicy`');
    // a sub-interface refines the protocol (the partition ranks it with the other results): it extends it
    const tap = chunk({ kind: 'interface', name: 'TapObserver', conformances: ['Observer'], path: 'src/tap.ts', language: 'typescript', content: 'interface TapObserver<T> extends Observer<T> {}' });
    assert.equal(why('what implements Observer', { ...candidate(tap, 1), conformsTo: 'Observer' }), 'extends `Observer`');
  });

  it('descriptions: how many of the content words it holds, and whether its name does; documents and tests marked', () => {
    assert.equal(why('parse the config text', candidate(parse, 1)), 'matches all 3 words ("parse", "config" in its name)');
    assert.equal(why('parse the yaml settings file', candidate(parse, 1)), 'matches 2 of 4 words ("parse" in its name)');
    // a word counts once as typed ("SQLite" is not "sq" and "lite"); the note names the words its name holds
    const decl = chunk({ kind: 'method', name: 'DeclTypes', container: 'SQLiteRows', path: 'sqlite3.go', language: 'go', content: 'func (rc *SQLiteRows) DeclTypes() []string {\n\treturn rc.declTypes()\n}' });
    assert.equal(why('which Go types map to which SQLite column types', candidate(decl, 1)), 'matches 2 of 5 words ("types", "SQLite" in its name)');
    assert.equal(why('parse_config', candidate(parse, 1)), 'defines `parseConfig`');
    assert.equal(why('how does parseConfig read YAML', candidate(parse, 1)), 'matches 2 of 3 words ("parseConfig" in its name)');
    assert.equal(why('when is the config file read', candidate(section, 1)), 'documentation · matches all 3 words');
    assert.equal(why('zebra crossing', { ...candidate(parse, 1), dense: { similarity: 0.4, rank: 3 } }), 'similar in meaning (no shared words)');
    const test = chunk({ kind: 'function', name: 'parsesConfig', path: 'test/config.test.ts', language: 'typescript', content: 'it("parses config", () => {})' });
    assert.equal(why('parses config', candidate(test, 1)), 'matches all 2 words ("parses", "config" in its name) · test');
  });

  it('callers: the code that calls or refers to the name says so', () => {
    assert.equal(why('who calls parseConfig', candidate(caller, 1)), 'calls or refers to `parseConfig`');
    assert.equal(why('who calls parseConfig', candidate(parse, 1)), 'defines `parseConfig`');
  });

  it('a quoted phrase the unit contains', () => {
    assert.equal(why('"yaml.parse" config', candidate(parse, 1)), 'contains "yaml.parse"');
  });
});
