/**
 * "what implements X" for a qualified X whose last name other declarations share (implementsPartition.ts
 * `resolveQualified`): Ruby's `class Logger < Middleware` inside `Faraday::Response`, where `Faraday::Response::Middleware`
 * is declared, extends that class — an implementation of `Faraday::Middleware` through it, listed after the direct ones.
 */
import assert from 'node:assert/strict';
import { implementsPartitionStage } from '../../../server/src/engine/ranking/stages/implementsPartition';
import { compareCandidates, type Candidate } from '../../../server/src/engine/ranking/candidate';
import { chunk, candidate, stageContext } from '../../support/chunks';

const rb = (name: string, symbol: string, conformances: string[], kind: 'class' | 'module' = 'class') =>
  chunk({ kind, name, symbol, container: symbol.split('.').slice(0, -1).join('.'), conformances, language: 'ruby', path: `lib/${symbol.toLowerCase().replace(/\./g, '/')}.rb`, content: `class ${name}` });

const base = rb('Middleware', 'Faraday.Middleware', []);
const responseBase = rb('Middleware', 'Faraday.Response.Middleware', ['Faraday::Middleware']);
const retry = rb('Retry', 'Faraday.Request.Retry', ['Faraday::Middleware']);
const auth = rb('Authorization', 'Faraday.Request.Authorization', ['Middleware']); // inside module Faraday::Request: resolves outward to Faraday::Middleware
const logger = rb('Logger', 'Faraday.Response.Logger', ['Middleware']); // the nearer Faraday::Response::Middleware
const raiseError = rb('RaiseError', 'Faraday.Response.RaiseError', ['Middleware']);
const other = rb('Middleware', 'Rack.Middleware', []);
const rackApp = rb('App', 'Rack.App', ['Middleware']); // Rack's own Middleware: no implementation of Faraday's

function order(query: string, scored: Array<[ReturnType<typeof chunk>, number]>): { ids: string[]; byId: Map<string, Candidate> } {
  const cands = scored.map(([c, s]) => candidate(c, s));
  implementsPartitionStage.apply(stageContext(query), cands);
  cands.sort(compareCandidates);
  return { ids: cands.map((c) => c.chunk!.symbol), byId: new Map(cands.map((c) => [c.chunk!.symbol, c])) };
}

describe('implements partition: a qualified target and the nearer declaration of its name', () => {
  // the indirect ones score highest on text, as on the real faraday tree (their files say "middleware" more)
  const scored: Array<[ReturnType<typeof chunk>, number]> = [
    [logger, 9], [raiseError, 8], [responseBase, 7], [retry, 5], [auth, 4], [base, 3], [rackApp, 6], [other, 2],
  ];

  it('direct implementations first; those that extend Faraday::Response::Middleware after them; Rack\'s not at all', () => {
    const { ids, byId } = order('classes that extend Faraday::Middleware', scored);
    const firstGroup = ids.slice(0, 6);
    assert.deepEqual(new Set(firstGroup), new Set(['Faraday.Response.Middleware', 'Faraday.Request.Retry', 'Faraday.Request.Authorization', 'Faraday.Middleware', 'Faraday.Response.Logger', 'Faraday.Response.RaiseError']));
    const at = (s: string) => ids.indexOf(s);
    for (const direct of ['Faraday.Response.Middleware', 'Faraday.Request.Retry', 'Faraday.Request.Authorization']) {
      for (const indirect of ['Faraday.Response.Logger', 'Faraday.Response.RaiseError']) assert.ok(at(direct) < at(indirect), `${direct} before ${indirect}: ${ids.join(', ')}`);
    }
    assert.ok(at('Faraday.Middleware') <= 2, `the definition in the top 3: ${ids.join(', ')}`);
    assert.ok(at('Rack.App') > 5, 'Rack.App extends Rack::Middleware: not an implementation of Faraday::Middleware');
    assert.ok(byId.get('Faraday.Response.Logger')!.explanation.some((l) => l.includes('extends Faraday.Response.Middleware')), byId.get('Faraday.Response.Logger')!.explanation.join('\n'));
    assert.ok(byId.get('Rack.App')!.explanation.some((l) => l.includes('not Faraday::Middleware')));
  });

  it('a partly qualified target (Response::Middleware) names the nearer class: its subclasses are its direct implementations', () => {
    const { ids } = order('what implements Response::Middleware', scored);
    assert.deepEqual(ids.slice(0, 2).sort(), ['Faraday.Response.Logger', 'Faraday.Response.RaiseError']);
    assert.ok(ids.indexOf('Faraday.Response.Middleware') <= 2, ids.join(', '));
  });

  it('an unqualified target keeps every conformer of the name as a direct implementation, in score order', () => {
    const { ids } = order('what implements Middleware', scored);
    assert.deepEqual(ids.slice(0, 2), ['Faraday.Response.Logger', 'Faraday.Response.RaiseError']);
  });
});

describe('implements partition: a target qualified by its module (Python, JavaScript, Rust: the file is the namespace)', () => {
  const py = (name: string, path: string, conformances: string[]) =>
    chunk({ kind: 'class', name, symbol: name, conformances, language: 'python', path, content: `class ${name}(${conformances.join(', ')}):` });
  const handler = py('RequestHandler', 'tornado/web.py', []);
  const staticFile = py('StaticFileHandler', 'tornado/web.py', ['RequestHandler']); // the same module's RequestHandler
  const websocket = py('WebSocketHandler', 'tornado/websocket.py', ['tornado.web.RequestHandler']);
  const otherBase = py('RequestHandler', 'legacy/handlers.py', []);
  const legacy = py('LegacyHandler', 'legacy/handlers.py', ['RequestHandler']); // its own module's RequestHandler
  const pkgBase = py('Plugin', 'plugins/__init__.py', []);
  const pkgImpl = py('GzipPlugin', 'plugins/gzip.py', ['plugins.Plugin']);

  it('"subclasses of web.RequestHandler": tornado/web.py declares it; its subclasses are the implementations, another module\'s are not', () => {
    const cands = [candidate(legacy, 9), candidate(otherBase, 8), candidate(staticFile, 5), candidate(websocket, 4), candidate(handler, 3)];
    const ctx = stageContext('subclasses of web.RequestHandler');
    implementsPartitionStage.apply(ctx, cands);
    cands.sort(compareCandidates);
    const ids = cands.map((c) => `${c.path}#${c.chunk!.symbol}`);
    assert.deepEqual(new Set(ids.slice(0, 3)), new Set(['tornado/web.py#StaticFileHandler', 'tornado/websocket.py#WebSocketHandler', 'tornado/web.py#RequestHandler']), ids.join(', '));
    const legacyAt = cands.find((c) => c.chunk === legacy)!;
    assert.ok(legacyAt.explanation.some((l) => l.includes('not web.RequestHandler')), legacyAt.explanation.join('\n'));
    assert.deepEqual(ctx.effects?.warnings ?? [], []);
  });

  it('a package\'s __init__ module is its folder (plugins.Plugin)', () => {
    const cands = [candidate(pkgBase, 5), candidate(pkgImpl, 3)];
    implementsPartitionStage.apply(stageContext('what implements plugins.Plugin'), cands);
    cands.sort(compareCandidates);
    assert.deepEqual(cands.map((c) => c.chunk!.symbol), ['GzipPlugin', 'Plugin']);
    assert.ok(cands[1]!.explanation.some((l) => l.includes('definition of plugins.Plugin')), cands[1]!.explanation.join('\n'));
  });
});

describe('implements partition: type declaration files after the code', () => {
  it('a class declared in a .d.ts (its code is elsewhere) follows every implementation with code', () => {
    const ts = (name: string, path: string, conformances: string[]) =>
      chunk({ kind: 'class', name, symbol: name, conformances, language: path.endsWith('.js') ? 'javascript' : 'typescript', path, content: `class ${name} extends ${conformances[0] ?? 'Object'} {}` });
    const def = ts('Dispatcher', 'lib/dispatcher/dispatcher.js', ['EventEmitter']);
    const declaredAgent = ts('Agent', 'types/agent.d.ts', ['Dispatcher']);
    const declaredPool = ts('Pool', 'types/pool.d.ts', ['Dispatcher']);
    const base = ts('DispatcherBase', 'lib/dispatcher/dispatcher-base.js', ['Dispatcher']);
    const retry = ts('RetryAgent', 'lib/dispatcher/retry-agent.js', ['Dispatcher']);
    const cands = [candidate(declaredAgent, 9), candidate(declaredPool, 8), candidate(base, 5), candidate(def, 4), candidate(retry, 2)];
    implementsPartitionStage.apply(stageContext('classes that extend Dispatcher'), cands);
    cands.sort(compareCandidates);
    const ids = cands.map((c) => c.path);
    // (the definition follows the first two implementations: seed 000's "implementers first, protocol in the top 3")
    assert.deepEqual(ids, ['lib/dispatcher/dispatcher-base.js', 'lib/dispatcher/retry-agent.js', 'lib/dispatcher/dispatcher.js', 'types/agent.d.ts', 'types/pool.d.ts']);
    assert.ok(cands[3]!.explanation.some((l) => l.includes('declared in a type declaration file')), cands[3]!.explanation.join('\n'));
  });
});
