import assert from 'node:assert/strict';
import { asksAboutConstruction, CONSTRUCTOR_FACTOR, constructorsStage } from '../../../server/src/engine/ranking/stages/constructors';
import { membersOverOutlinesStage } from '../../../server/src/engine/ranking/stages/membersOverOutlines';
import { chunk, candidate, stageContext } from '../../support/chunks';

const path = 'src/Monolog/Handler/OverflowHandler.php';
const unit = (kind: 'constructor' | 'method', name: string, startLine: number, score: number) =>
  candidate(chunk({ kind, name, symbol: `OverflowHandler.${name}`, container: 'OverflowHandler', path, language: 'php', startLine, endLine: startLine + 20, content: `public function ${name}() {}` }), score);
const outline = (score: number) =>
  candidate(chunk({ kind: 'class', name: 'OverflowHandler', path, language: 'php', startLine: 10, endLine: 150, symbols: ['OverflowHandler', '__construct', 'handle'], content: 'class OverflowHandler extends AbstractHandler\n{\n    public function __construct(…) …\n    public function handle(array $record): bool …\n}' }), score);

describe('constructors below the code that does the work', () => {
  it('tells questions about construction, options and set-up from the rest', () => {
    for (const q of ['which options does the client accept', 'how is the pool created', 'initialize the handler with a threshold map', 'default timeout of a new connection', 'what parameters does the constructor take', 'how are the components wired together', 'set up the socket']) assert.ok(asksAboutConstruction(q), q);
    for (const q of ['where are messages held back until a per-level count threshold is exceeded', 'how does a group dispatch to the subcommand', 'retry a failed request with backoff']) assert.equal(asksAboutConstruction(q), false, q);
  });

  it(`a constructor is scored ×${CONSTRUCTOR_FACTOR} for a description of behaviour, with a line saying why; methods are not`, () => {
    const ctor = unit('constructor', '__construct', 60, 10);
    const handle = unit('method', 'handle', 90, 9);
    constructorsStage.apply(stageContext('where are messages held back until a per-level count threshold is exceeded'), [ctor, handle]);
    assert.equal(ctor.score, 10 * CONSTRUCTOR_FACTOR);
    assert.equal(handle.score, 9);
    assert.match(ctor.explanation.join('\n'), /constructor \(the description asks about what the code does/);
  });

  it('questions about construction, identifiers and named relations leave constructors alone', () => {
    for (const q of ['which options does the overflow handler accept', '__construct', 'OverflowHandler', 'who calls __construct']) {
      const ctor = unit('constructor', '__construct', 60, 10);
      constructorsStage.apply(stageContext(q), [ctor]);
      assert.equal(ctor.score, 10, q);
    }
  });

  it('an outline gives its place to its best member that is not the constructor, unless the question is about construction', () => {
    const o = outline(12);
    const ctor = unit('constructor', '__construct', 60, 9);
    const handle = unit('method', 'handle', 90, 7);
    membersOverOutlinesStage.apply(stageContext('where are messages held back until a per-level count threshold is exceeded'), [o, ctor, handle]);
    assert.deepEqual([o.score, ctor.score, handle.score], [7, 9, 12]);
    const o2 = outline(12);
    const ctor2 = unit('constructor', '__construct', 60, 9);
    const handle2 = unit('method', 'handle', 90, 7);
    membersOverOutlinesStage.apply(stageContext('which options does the overflow handler accept'), [o2, ctor2, handle2]);
    assert.deepEqual([o2.score, ctor2.score, handle2.score], [9, 12, 7]);
  });
});
