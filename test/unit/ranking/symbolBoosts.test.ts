import assert from 'node:assert/strict';
import { symbolBoostStage } from '../../../server/src/engine/ranking/stages/symbolBoosts';
import { implementsPartitionStage as protocolInTopStage } from '../../../server/src/engine/ranking/stages/implementsPartition';
import { phrasePartitionStage } from '../../../server/src/engine/ranking/stages/phrases';
import { compareCandidates } from '../../../server/src/engine/ranking/candidate';
import { chunk, candidate, stageContext } from '../../support/chunks';

const protocol = chunk({ kind: 'protocol', name: 'ChunkStore', content: 'protocol ChunkStore {\n  func save(_ c: Chunk)\n}' });
const grdb = chunk({ kind: 'class', name: 'GRDBChunkStore', conformances: ['ChunkStore'], content: 'final class GRDBChunkStore: ChunkStore { }' });
const method = chunk({ kind: 'method', name: 'save', symbol: 'GRDBChunkStore.save', container: 'GRDBChunkStore', content: 'func save(_ c: Chunk) { db.write(c) }' });
const usage = chunk({ kind: 'class', name: 'Indexer', references: ['ChunkStore'], content: 'final class Indexer {\n  let store: ChunkStore\n}' });
const ext = chunk({ kind: 'extension', name: 'User', conformances: ['Codable'], content: 'extension User: Codable {}' });
const err = chunk({ kind: 'enum', name: 'USearchError', conformances: ['Error'], content: 'enum USearchError: Error { case notFound }' });
const searcher = chunk({ kind: 'function', name: 'search', content: 'func search(_ q: String) -> [Result] { index.search(q) }' });

describe('seed 000 symbol-aware boosts (stage level)', () => {
  it('Boost rare term exact match: USearchError (rare, in symbols) ×2.0 and ranks above substring matches', () => {
    const sub = chunk({ kind: 'function', name: 'handle', content: 'func handle() { throw USearchError.notFound }' });
    const cands = [candidate(sub, 10), candidate(err, 8)];
    symbolBoostStage.apply(stageContext('USearchError', { usearcherror: 2 }), cands);
    const e = cands.find((c) => c.id === err.id)!;
    assert.ok(e.explanation.some((l) => l.startsWith('×2 exact symbol')), e.explanation.join('\n'));
    assert.ok(e.score > cands[0].score);
  });
  it('No boost for common terms: "search" seen in > 10 chunks keeps plain BM25', () => {
    const c = candidate(searcher, 5);
    symbolBoostStage.apply(stageContext('search', { search: 25 }), [c]);
    assert.equal(c.score, 5);
    assert.equal(c.explanation.length, 0);
  });
  it('Boost stacks with conformance boost: ChunkStore rare + type declaration conforming → 2.0 × 1.5 = 3.0', () => {
    const conf = chunk({ kind: 'class', name: 'ChunkStoreCache', symbols: ['ChunkStoreCache', 'ChunkStore'], conformances: ['ChunkStore'], content: 'class ChunkStoreCache: ChunkStore {}' });
    const c = candidate(conf, 1);
    symbolBoostStage.apply(stageContext('ChunkStore', { chunkstore: 4 }), [c]);
    assert.ok(Math.abs(c.score - 3.0) < 1e-9, c.explanation.join('\n'));
  });
  it('Type declaration ranked first: GRDBChunkStore ×1.5 over its method chunks', () => {
    const cands = [candidate(method, 10), candidate(grdb, 9)];
    symbolBoostStage.apply(stageContext('GRDBChunkStore', { grdbchunkstore: 3 }), cands);
    cands.sort(compareCandidates);
    assert.equal(cands[0].id, grdb.id);
    assert.ok(cands[0].explanation.some((l) => l.includes('type declaration of GRDBChunkStore')));
  });
  it('Boost implementations / type declarations for "what implements ChunkStore" (×3.0, usage sites none)', () => {
    const cands = [candidate(usage, 5), candidate(grdb, 5), candidate(protocol, 5)];
    symbolBoostStage.apply(stageContext('what implements ChunkStore', { chunkstore: 40 }), cands);
    assert.ok(Math.abs(cands[1].score - 15) < 1e-9, cands[1].explanation.join('\n'));
    assert.equal(cands[0].score, 5, 'usage site not boosted');
    cands.sort(compareCandidates);
    assert.equal(cands[0].id, grdb.id);
  });
  it('Extension conformances included: "implements Codable" gives extension User: Codable the conformance boost', () => {
    const c = candidate(ext, 2);
    symbolBoostStage.apply(stageContext('implements Codable', { codable: 30 }), [c]);
    assert.ok(Math.abs(c.score - 3) < 1e-9, c.explanation.join('\n'));
    assert.match(c.explanation[0], /^×1\.5 conformance match/);
  });
  it('Boost protocol definition: "ChunkStore protocol" ×1.3 for kind protocol', () => {
    const c = candidate(protocol, 10);
    symbolBoostStage.apply(stageContext('ChunkStore protocol', { chunkstore: 40 }), [c]);
    assert.ok(c.explanation.some((l) => l.startsWith('×1.3 protocol definition')), c.explanation.join('\n'));
  });
  it('keeps the protocol definition in the top 3 of an implementations query', () => {
    const impls = [1, 2, 3, 4].map((i) => chunk({ kind: 'class', name: `Store${i}`, conformances: ['ChunkStore'], content: `class Store${i}: ChunkStore {}` }));
    const cands = [...impls.map((c) => candidate(c, 5)), candidate(protocol, 5)];
    const ctx = stageContext('what implements ChunkStore', { chunkstore: 40 });
    protocolInTopStage.apply(ctx, symbolBoostStage.apply(ctx, cands));
    cands.sort(compareCandidates);
    assert.ok(cands.slice(0, 3).some((c) => c.id === protocol.id));
    assert.ok(cands.slice(0, 5).filter((c) => c.id !== protocol.id).length === 4);
  });
  it('a conformance only the index knows (Go: implicit, method sets) gets the same boosts as a declared one', () => {
    const goIface = chunk({ kind: 'interface', name: 'Reader', language: 'go', path: 'io/io.go', content: 'type Reader interface {\n\tRead(p []byte) (int, error)\n}' });
    const file = chunk({ kind: 'struct', name: 'File', language: 'go', path: 'os/file.go', content: 'type File struct {\n\tfd int\n}' });
    const named = chunk({ kind: 'struct', name: 'Reader', language: 'go', path: 'strings/reader.go', content: 'type Reader struct {\n\ts string\n}' });
    const cands = [candidate(goIface, 10), { ...candidate(file, 10), conformsTo: 'Reader' }, { ...candidate(named, 10), conformsTo: 'Reader' }];
    const ctx = stageContext('what implements Reader', { reader: 3 });
    protocolInTopStage.apply(ctx, symbolBoostStage.apply(ctx, cands));
    const [iface, f, n] = cands;
    assert.ok(f.explanation.some((l) => l.startsWith('×2 exact symbol') && l.includes('conformance index')), f.explanation.join('\n'));
    assert.ok(f.explanation.some((l) => l.startsWith('×3 implementation: struct File conforms to reader')), f.explanation.join('\n'));
    assert.ok(Math.abs(f.score - 60) < 1e-9);
    // strings.Reader satisfies io.Reader: an answer (boosted), not the definition the query names
    assert.ok(n.explanation.some((l) => l.startsWith('×3 implementation: struct Reader')), n.explanation.join('\n'));
    assert.equal(iface.score, 10, 'the interface itself is context: no boost');
    assert.ok(!cands.some((c) => c.explanation.some((l) => l.startsWith('kept in the top 3'))), 'already in the top 3');
  });
  it('the definition takes the third place, not the first, when the implementers tie', () => {
    const impls = [1, 2, 3, 4].map((i) => chunk({ kind: 'struct', name: `Source${i}`, language: 'go', content: `type Source${i} struct{}` }));
    const iface = chunk({ kind: 'interface', name: 'Reader', language: 'go', content: 'type Reader interface{ Read(p []byte) (int, error) }' });
    const cands = [...impls.map((c) => ({ ...candidate(c, 5), conformsTo: 'Reader' })), candidate(iface, 5)];
    const ctx = stageContext('what implements Reader', { reader: 40 });
    protocolInTopStage.apply(ctx, symbolBoostStage.apply(ctx, cands));
    cands.sort(compareCandidates);
    assert.equal(cands[2].id, iface.id, cands.map((c) => `${c.chunk!.name} ${c.score}`).join('\n'));
    assert.ok(cands.slice(0, 2).every((c) => c.explanation.some((l) => l.startsWith('stays ahead of the definition of Reader'))));
  });
  it('implementers first: a definition that outscores them follows the first two implementations (the one, when alone)', () => {
    const impls = [1, 2, 3].map((i) => chunk({ kind: 'class', name: `Store${i}`, conformances: ['ChunkStore'], content: `class Store${i}: ChunkStore {}` }));
    const run = (scores: number[]) => {
      const cands = [...impls.map((c, i) => candidate(c, scores[i]!)), candidate(protocol, 1000)];
      protocolInTopStage.apply(stageContext('what implements ChunkStore', { chunkstore: 40 }), cands);
      cands.sort(compareCandidates);
      return cands;
    };
    const spread = run([30, 20, 10]);
    assert.deepEqual(spread.map((c) => c.chunk!.name), ['Store1', 'Store2', 'ChunkStore', 'Store3']);
    assert.ok(spread[2]!.explanation.some((l) => l.startsWith('definition of ChunkStore: after the first 2 implementations')));
    const tied = run([30, 30, 10]);
    assert.equal(tied[2]!.id, protocol.id, tied.map((c) => `${c.chunk!.name} ${c.score}`).join('\n'));
    // the second implementation ties with the third: both first ones stay ahead, the definition third
    const tail = run([30, 10, 10]);
    assert.equal(tail[2]!.id, protocol.id, tail.map((c) => `${c.chunk!.name} ${c.score}`).join('\n'));
    const lone = [candidate(impls[0]!, 1), candidate(protocol, 1000)];
    protocolInTopStage.apply(stageContext('what implements ChunkStore', { chunkstore: 40 }), lone);
    lone.sort(compareCandidates);
    assert.deepEqual(lone.map((c) => c.chunk!.name), ['Store1', 'ChunkStore']);
  });
});

describe('seed 001 phrase partition (stage level)', () => {
  const a = chunk({ kind: 'function', name: 'pool', content: 'open a Connection Pool with a retry policy' });
  const b = chunk({ kind: 'function', name: 'other', content: 'connection handling without pooling' });
  const c = chunk({ kind: 'function', name: 'third', path: 'src/connection/pool.ts', content: 'export const x = 1' });
  it('puts chunks containing every phrase first, in score order, then the rest in score order; nothing is dropped', () => {
    const cands = [candidate(b, 9), candidate(a, 3), candidate(c, 5)];
    phrasePartitionStage.apply(stageContext('"connection pool" retry'), cands);
    cands.sort(compareCandidates);
    assert.deepEqual(cands.map((x) => x.id), [a.id, b.id, c.id]);
    assert.equal(cands.length, 3);
  });
  it('is case-insensitive, needs all phrases, and searches symbol and path too', () => {
    const cands = [candidate(b, 9), candidate(a, 3), candidate(c, 5)];
    phrasePartitionStage.apply(stageContext('"CONNECTION/POOL" x'), cands);
    cands.sort(compareCandidates);
    assert.equal(cands[0].id, c.id, 'the path matches');
    const both = [candidate(a, 1), candidate(b, 9)];
    phrasePartitionStage.apply(stageContext('"retry policy" "connection pool"'), both);
    both.sort(compareCandidates);
    assert.equal(both[0].id, a.id);
    assert.match(both[1].explanation[0], /missing/);
  });
  it('does nothing without phrases', () => {
    const cands = [candidate(a, 1)];
    phrasePartitionStage.apply(stageContext('connection pool'), cands);
    assert.equal(cands[0].group, undefined);
  });
});

import { testDemotionStage } from '../../../server/src/engine/ranking/stages/testDemotion';

describe('test demotion stage', () => {
  const real = chunk({ kind: 'class', name: 'LexicalIndex', path: 'server/src/lexicalIndex.ts', content: 'export class LexicalIndex {}' });
  const fixture = chunk({ kind: 'class', name: 'LexicalIndex', path: 'test/fixtures/app/LexicalIndex.swift', content: 'final class LexicalIndex {}' });
  it('lets the real definition win a tie with a test fixture copy', () => {
    const cands = [candidate(fixture, 10), candidate(real, 9)];
    testDemotionStage.apply(stageContext('LexicalIndex'), cands);
    cands.sort(compareCandidates);
    assert.equal(cands[0].id, real.id);
    assert.match(cands[1].explanation[0], /^×0\.8 test file/);
  });
  it('leaves test files alone when the query is about tests (one named after the subject of a question that asks for tests ranks higher)', () => {
    for (const [q, intent, score] of [['LexicalIndex tests', undefined, 15], ['LexicalIndex', 'test', 10]] as const) {
      const c = candidate(fixture, 10);
      testDemotionStage.apply(stageContext(q, {}, intent), [c]);
      assert.equal(c.score, score, q);
    }
  });
  it('keeps demoting the project\'s tests for a how-to about testing one\'s own code ("how do I test …", "… in my tests")', () => {
    for (const q of ['how to test routes without starting a real server', 'how do I mock HTTP requests in my tests', 'how can I stub the lexical index']) {
      const c = candidate(fixture, 10);
      testDemotionStage.apply(stageContext(q), [c]);
      assert.equal(c.score, 6, q);
      assert.match(c.explanation.join('\n'), /×0\.6 test file \(the query asks how to test one's own code, not for the project's tests\)/, q);
    }
  });
  it('ranks what is not a test below the tests when the query asks for them ("how is X tested", "tests for X")', () => {
    const guide = chunk({ kind: 'section', name: 'Route prefixing', path: 'docs/Routes.md', content: 'Route prefixing inside plugins' });
    const test = chunk({ kind: 'code', name: '', path: 'test/route-prefix.test.js', content: "test('prefix inside a plugin', t => {})" });
    for (const q of ['how is route prefixing inside plugins tested', 'tests for route prefixing inside plugins', 'where are the tests for route prefixing', 'route prefixing tests', 'which tests cover route prefixing', 'route prefixing specs']) {
      const cands = [candidate(guide, 10), candidate(test, 7)];
      testDemotionStage.apply(stageContext(q), cands);
      cands.sort(compareCandidates);
      assert.equal(cands[0].id, test.id, q);
      assert.match(cands[1].explanation.join('\n'), /×0\.6 not a test file \(the query asks for tests\)/, q);
    }
    // testing one's own code is a question about the library, and a mention of mocking is not a request for tests
    for (const q of ['how do I mock HTTP requests in my tests', 'send a request that the mocking layer ignores', 'how to test routes without starting a server', 'run examples embedded in docstrings as tests']) {
      const cands = [candidate(guide, 10), candidate(test, 7)];
      testDemotionStage.apply(stageContext(q), cands);
      assert.equal(cands[0].score, 10, q);
      assert.doesNotMatch(cands[0].explanation.join('\n'), /not a test file/, q);
    }
  });
});

describe('symbol boosts: a protocol kind named in words', () => {
  it('an interface asked for in words ("the interface a new embedding provider must implement") ×2 when every word of its name is in the query', () => {
    const iface = chunk({ kind: 'interface', name: 'EmbeddingProvider', content: 'export interface EmbeddingProvider {\n  embedQuery(text: string): Promise<Float32Array>;\n}' });
    const impl = chunk({ kind: 'class', name: 'VoyageEmbeddingProvider', conformances: ['EmbeddingProvider'], content: 'class VoyageEmbeddingProvider implements EmbeddingProvider {}' });
    const other = chunk({ kind: 'interface', name: 'RerankResult', content: 'export interface RerankResult { index: number }' });
    const cands = [candidate(impl, 4), candidate(iface, 3), candidate(other, 2)];
    symbolBoostStage.apply(stageContext('interface a new embedding provider must implement'), cands);
    assert.equal(cands[1].score, 6, cands[1].explanation.join('\n'));
    assert.match(cands[1].explanation.join('\n'), /the query names this interface in words: "interface" and every word of EmbeddingProvider/);
    assert.equal(cands[0].score, 4, 'a class is not what was asked for');
    assert.equal(cands[2].score, 2, 'an interface whose name the query does not spell');
    // without the kind word, nothing
    const plain = [candidate(iface, 3)];
    symbolBoostStage.apply(stageContext('a new embedding provider'), plain);
    assert.equal(plain[0].score, 3);
  });
  it('a function whose every name word the description spells ("pack texts into batches": packBatches) ×1.3', () => {
    const pack = chunk({ kind: 'function', name: 'packBatches', content: 'export function packBatches(items, cost, maxItems, maxCost) {}' });
    const mergeInto = chunk({ kind: 'method', name: 'Segment.mergeInto', container: 'Segment', content: 'mergeInto(other) {}' });
    const type = chunk({ kind: 'class', name: 'TextBatches', content: 'class TextBatches {}' });
    const one = chunk({ kind: 'function', name: 'pack', content: 'function pack(items) {}' });
    const half = chunk({ kind: 'function', name: 'packTokens', content: 'function packTokens(items) {}' });
    const cands = [pack, mergeInto, type, one, half].map((c) => candidate(c, 2));
    symbolBoostStage.apply(stageContext('merge and pack texts into embedding batches'), cands);
    assert.ok(Math.abs(cands[0].score - 2.6) < 1e-9, cands[0].explanation.join('\n'));
    assert.match(cands[0].explanation.join('\n'), /the description spells every word of its name, packBatches/);
    assert.equal(cands[1].score, 2, 'mergeInto: one content word ("into" says little)');
    assert.equal(cands[2].score, 2, 'types are left to the other boosts (a type of domain nouns is named by many questions)');
    assert.equal(cands[3].score, 2, 'a name of one word');
    assert.equal(cands[4].score, 2, 'a name the query spells in part');
    // an identifier in the query is matched by the exact-symbol boost instead; a configuration of 1 turns it off
    const typed = [candidate(pack, 2)];
    symbolBoostStage.apply(stageContext('pack texts into batches like packTokens'), typed);
    assert.equal(typed[0].score, 2);
    const off = [candidate(pack, 2)];
    const ctx = stageContext('pack texts into batches');
    symbolBoostStage.apply({ ...ctx, ranking: { ...ctx.ranking, boosts: { ...ctx.ranking.boosts, nameInWords: 1 } } }, off);
    assert.equal(off[0].score, 2);
  });
});

import { collapsePiecesStage } from '../../../server/src/engine/ranking/stages/filters';

describe('collapse-pieces filter', () => {
  it('keeps one result per declaration: the best-placed piece of an outline split over the chunk size', () => {
    const outline = (id: string, content: string) => chunk({ id, kind: 'class', name: 'Command', path: 'lib/command.js', startLine: 13, endLine: 2695, content });
    const first = outline('piece-1', 'class Command extends EventEmitter {\n  constructor(name) …');
    const second = outline('piece-2', '  _checkForMissingMandatoryOptions() …');
    const method = chunk({ kind: 'method', name: 'Command._exit', path: 'lib/command.js', startLine: 533, endLine: 539, content: '_exit(exitCode, code, message) {}' });
    const other = chunk({ id: 'typings', kind: 'class', name: 'Command', path: 'typings/index.d.ts', startLine: 376, endLine: 1092, content: 'export class Command {}' });
    const cands = [candidate(method, 5), candidate(second, 4.5), candidate(first, 4), candidate(other, 3)];
    const out = collapsePiecesStage.apply(stageContext('exit the process after an error'), cands);
    assert.deepEqual(out.map((c) => c.id), [method.id, 'piece-2', 'typings'], 'the higher piece stays; a declaration elsewhere is another result');
    // the parts of a function or macro cut at statement boundaries: other lines, the same name position
    const part = (id: string, startLine: number, endLine: number) => ({ ...chunk({ id, kind: 'function', name: '__parse_ensure', path: 'src/ensure.rs', startLine, endLine, content: `part ${id}` }), nameRange: { line: 105, column: 14, endLine: 105, endColumn: 28 } });
    const bail = { ...chunk({ id: 'bail', kind: 'function', name: 'bail', path: 'src/macros.rs', content: 'macro_rules! bail {}' }), nameRange: { line: 56, column: 14, endLine: 56, endColumn: 18 } };
    const parts = [candidate(bail, 9), candidate(part('p1', 586, 748), 8), candidate(part('p2', 748, 781), 7), candidate(part('p3', 103, 276), 6)];
    assert.deepEqual(collapsePiecesStage.apply(stageContext('bail'), parts).map((c) => c.id), ['bail', 'p1']);
    // nothing to collapse: the same list back
    const plain = [candidate(method, 5), candidate(other, 3)];
    assert.equal(collapsePiecesStage.apply(stageContext('x'), plain), plain);
  });
});

describe('implements partition: which declaration is the definition', () => {
  it('the project\'s own declaration, not a test\'s re-declaration of the name (even one of a protocol kind)', () => {
    const real = chunk({ kind: 'class', name: 'ZodType', language: 'typescript', path: 'src/v3/types.ts', content: 'export abstract class ZodType<Output = any> {}' });
    const augmented = chunk({ kind: 'interface', name: 'ZodType', language: 'typescript', path: 'src/v4/classic/tests/prototypes.test.ts', content: 'interface ZodType { _classic(): string }' });
    const impls = [1, 2, 3, 4].map((i) => chunk({ kind: 'class', name: `Zod${i}`, language: 'typescript', path: 'src/v3/types.ts', conformances: ['ZodType'], content: `class Zod${i} extends ZodType {}` }));
    const cands = [...impls.map((c) => candidate(c, 5)), candidate(augmented, 4), candidate(real, 3)];
    const ctx = stageContext('subclasses of ZodType', { zodtype: 40 });
    protocolInTopStage.apply(ctx, symbolBoostStage.apply(ctx, cands));
    const byId = new Map(cands.map((c) => [c.id, c]));
    assert.match(byId.get(real.id)!.explanation.join('\n'), /definition of ZodType/);
    assert.doesNotMatch(byId.get(augmented.id)!.explanation.join('\n'), /definition of ZodType/);
    cands.sort(compareCandidates);
    assert.ok(cands.slice(0, 3).some((c) => c.id === real.id), cands.map((c) => `${c.chunk!.path} ${c.chunk!.name} ${c.score}`).join('\n'));
  });
});

import { callersFirstStage } from '../../../server/src/engine/ranking/stages/callersFirst';

describe('callers-first contract', () => {
  it('"who calls X": the units that call X first, X in the top 3, the outline of the class declaring X after them', () => {
    const def = chunk({ kind: 'method', name: 'Command._exit', path: 'lib/command.js', content: '_exit(exitCode, code, message) { process.exit(exitCode); }' });
    const outline = chunk({ kind: 'class', name: 'Command', path: 'lib/command.js', symbols: ['Command', '_exit', 'error'], content: 'class Command {\n  _exit(exitCode, code, message) …\n  error(message) …\n}' });
    const error = chunk({ kind: 'method', name: 'Command.error', path: 'lib/command.js', content: 'error(message) {\n  this._exit(1, "commander.error", message);\n}' });
    const help = chunk({ kind: 'method', name: 'Command.help', path: 'lib/command.js', content: 'help() {\n  this._exit(0, "commander.help", "(outputHelp)");\n}' });
    const version = chunk({ kind: 'method', name: 'Command.version', path: 'lib/command.js', content: 'version(str) {\n  this._exit(0, "commander.version", str);\n}' });
    const other = chunk({ kind: 'method', name: 'Command.exitOverride', path: 'lib/command.js', content: 'exitOverride(fn) { this._exitCallback = fn; }' });
    const cands = [candidate(def, 10), candidate(outline, 8), candidate(other, 6), candidate(error, 3), candidate(help, 2), candidate(version, 1)];
    callersFirstStage.apply(stageContext('who calls _exit'), cands);
    cands.sort(compareCandidates);
    assert.deepEqual(cands.map((c) => c.chunk!.name), ['Command.error', 'Command.help', 'Command._exit', 'Command.version', 'Command', 'Command.exitOverride']);
    assert.match(cands[2]!.explanation.join('\n'), /definition of _exit: kept after the first callers/);
    assert.match(cands[4]!.explanation.join('\n'), /does not call _exit: after its callers/);
    // nothing calls it: the order is left as it is
    const alone = [candidate(def, 10), candidate(other, 6)];
    callersFirstStage.apply(stageContext('who calls _exit'), alone);
    assert.ok(alone.every((c) => (c.group ?? 0) === 0));
  });
});

describe('implements partition: a qualified target', () => {
  it('"what implements io.Reader" takes no other package\'s Reader for the definition (bytes.Reader is a struct)', () => {
    const bytesReader = chunk({ kind: 'struct', name: 'Reader', language: 'go', path: 'bytes/reader.go', content: 'type Reader struct {\n\ts []byte\n}' });
    const impls = [1, 2, 3].map((i) => ({ ...candidate(chunk({ kind: 'struct', name: `Source${i}`, language: 'go', path: `pkg/s${i}.go`, content: `type Source${i} struct{}` }), 5), conformsTo: 'Reader' }));
    const cands = [...impls, candidate(bytesReader, 4)];
    const ctx = stageContext('what implements io.Reader', { reader: 40 });
    protocolInTopStage.apply(ctx, symbolBoostStage.apply(ctx, cands));
    assert.doesNotMatch(cands[3]!.explanation.join('\n'), /definition of io\.Reader/);
    // io's own interface, when it is there, is the definition
    const ioReader = chunk({ kind: 'interface', name: 'Reader', language: 'go', path: 'io/io.go', content: 'type Reader interface {\n\tRead(p []byte) (n int, err error)\n}' });
    const withIo = [...[1, 2, 3].map((i) => ({ ...candidate(chunk({ kind: 'struct', name: `Source${i}`, language: 'go', path: `pkg/s${i}.go`, content: `type Source${i} struct{}` }), 5), conformsTo: 'Reader' })), candidate(bytesReader, 4), candidate(ioReader, 3)];
    protocolInTopStage.apply(ctx, symbolBoostStage.apply(ctx, withIo));
    assert.match(withIo[4]!.explanation.join('\n'), /definition of io\.Reader/);
    assert.doesNotMatch(withIo[3]!.explanation.join('\n'), /definition of io\.Reader/);
  });
});
