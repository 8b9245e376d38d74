import assert from 'node:assert/strict';
import { membersOverOutlinesStage } from '../../../server/src/engine/ranking/stages/membersOverOutlines';
import { chunk, candidate, stageContext } from '../../support/chunks';

const path = 'src/Console/Application.php';
const outline = () => candidate(chunk({ kind: 'class', name: 'Application', path, language: 'php', startLine: 20, endLine: 900, symbols: ['Application', 'find', 'findAlternatives'], content: 'class Application\n{\n    public function find(string $name) …\n    private function findAlternatives(string $name, iterable $collection): array …\n}' }), 10);
const member = (name: string, startLine: number, score: number) =>
  candidate(chunk({ kind: 'method', name, symbol: `Application.${name}`, container: 'Application', path, language: 'php', startLine, endLine: startLine + 30, content: `private function ${name}() {}` }), score);

describe('members over outlines', () => {
  it('an outline trades places with its best-scored member; nothing else moves', () => {
    const o = outline();
    const alt = member('findAlternatives', 600, 7);
    const find = member('find', 300, 4);
    const other = candidate(chunk({ kind: 'function', name: 'levenshtein', path: 'src/Util.php', language: 'php', content: 'function levenshtein() {}' }), 8);
    membersOverOutlinesStage.apply(stageContext('suggest alternatives for a mistyped command name'), [o, alt, find, other]);
    assert.deepEqual([o.score, alt.score, find.score, other.score], [7, 10, 4, 8]);
    assert.match(alt.explanation.join('\n'), /members over outlines: takes the place of Application/);
    assert.match(o.explanation.join('\n'), /gives its place to its member Application\.findAlternatives/);
  });

  it('a member already above its outline, another file\'s unit and a document leave the order alone', () => {
    const o = outline();
    const alt = member('findAlternatives', 600, 12);
    membersOverOutlinesStage.apply(stageContext('suggest alternatives for a mistyped command name'), [o, alt]);
    assert.deepEqual([o.score, alt.score], [10, 12]);
    const o2 = outline();
    const elsewhere = candidate(chunk({ kind: 'method', name: 'find', path: 'src/Other.php', language: 'php', startLine: 300, endLine: 330, content: 'function find() {}' }), 3);
    const doc = candidate(chunk({ kind: 'section', name: 'Finding commands', path, language: 'markdown', startLine: 25, endLine: 40, content: 'Commands are found by name.' }), 2);
    membersOverOutlinesStage.apply(stageContext('suggest alternatives for a mistyped command name'), [o2, elsewhere, doc]);
    assert.deepEqual([o2.score, elsewhere.score, doc.score], [10, 3, 2]);
  });

  it('a member of one statement (3 lines or fewer) does not take the outline\'s place; the next best member does', () => {
    const o = outline();
    const accessor = candidate(chunk({ kind: 'method', name: 'getName', symbol: 'Application.getName', container: 'Application', path, language: 'php', startLine: 120, endLine: 123, content: 'public function getName() {\n    return $this->name;\n}' }), 8);
    accessor.chunk!.endLine = 122;
    const find = member('find', 300, 4);
    membersOverOutlinesStage.apply(stageContext('suggest alternatives for a mistyped command name'), [o, accessor, find]);
    assert.deepEqual([o.score, accessor.score, find.score], [4, 8, 10]);
  });

  it('identifiers and the forms that name a declaration or a relation keep their order', () => {
    for (const q of ['Application', 'what implements Application', 'who calls findAlternatives']) {
      const o = outline();
      const alt = member('findAlternatives', 600, 7);
      membersOverOutlinesStage.apply(stageContext(q), [o, alt]);
      assert.deepEqual([o.score, alt.score], [10, 7], q);
    }
  });
});
