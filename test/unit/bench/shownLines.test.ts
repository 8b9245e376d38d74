import assert from 'node:assert/strict';
import { firstRelevantRank, showsLines, spansByPath, withHoles } from '../../../bench/metrics';
import { overlaps, scoreQuery } from '../../../bench/eval/run';

/** A split class: its outline spans lines 10–200, its members are units of their own. */
const units = [
  { path: 'src/app.php', startLine: 10, endLine: 200 },
  { path: 'src/app.php', startLine: 40, endLine: 60 },
  { path: 'src/app.php', startLine: 120, endLine: 180 },
  { path: 'src/other.php', startLine: 1, endLine: 30 },
];
const spans = spansByPath(units);
const outline = { path: 'src/app.php', startLine: 10, endLine: 200 };
const member = { path: 'src/app.php', startLine: 120, endLine: 180 };

describe('benchmark metrics: a result is credited with the lines it shows', () => {
  it('an outline does not show its members\' lines; its own lines (header, fields) it does', () => {
    const [o] = withHoles([outline], spans);
    assert.deepEqual(o!.holes, [[40, 60], [120, 180]]);
    assert.equal(showsLines(o!, 'src/app.php', 130, 150), false);
    assert.equal(showsLines(o!, 'src/app.php', 10, 12), true);
    assert.equal(showsLines(o!, 'src/app.php', 55, 70), true, 'lines 61–70 lie between the members');
    assert.equal(showsLines(o!, 'src/other.php', 10, 12), false);
  });

  it('a member shows its own lines; a hit with nothing nested is unchanged', () => {
    const [m] = withHoles([member], spans);
    assert.equal(m!.holes, undefined);
    assert.equal(showsLines(m!, 'src/app.php', 130, 130), true);
  });

  it('the benchmark ranks the member, not the outline, for a member\'s anchor line', () => {
    const hits = withHoles([outline, member], spans);
    assert.equal(firstRelevantRank(hits, { path: 'src/app.php', anchorLine: 121 }), 2);
    assert.equal(firstRelevantRank(hits, { path: 'src/app.php', anchorLine: 11 }), 1);
  });

  it('the frozen evaluation credits P@1 only to a first result that shows the target', () => {
    const q = { relevant: [{ path: 'src/app.php', lines: [125, 140] as [number, number] }], secondary: [] };
    assert.equal(scoreQuery(withHoles([outline, member], spans), q).p1, 0);
    assert.equal(scoreQuery(withHoles([member, outline], spans), q).p1, 1);
    assert.equal(overlaps(withHoles([outline], spans)[0]!, { path: 'src/app.php' }), true, 'a target without lines: the file');
  });
});
