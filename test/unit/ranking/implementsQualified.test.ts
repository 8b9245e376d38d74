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
