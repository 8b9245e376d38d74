/**
 * The history replay's diff parser (git/history.ts) on hand-written `git log -p -U0` output: hunks applied in new-file
 * coordinates, renames, deletions and re-additions, quoted names, binary diffs, and output it does not expect.
 */
import assert from 'node:assert/strict';
import { countLines, DiffReplayer, historyBlame, unquote, type LineHistory } from '../../../server/src/engine/git/history';
import { chunkBlameStats } from '../../../server/src/engine/git/blame';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

function replay(text: string): LineHistory {
  const history: LineHistory = { commits: [], files: new Map(), unreliable: new Set(), bytes: 0 };
  const r = new DiffReplayer(history);
  for (const line of text.split('\n')) r.line(Buffer.from(line, 'utf8'));
  r.end();
  return history;
}

/** The sha of each line of `path`. */
function shas(h: LineHistory, path: string): string[] {
  return Array.from(h.files.get(path) ?? [], (i) => h.commits[i].sha[0]);
}

const ADD_F = [
  `\x01${A} 1600000000`,
  'diff --git a/f.py b/f.py',
  'new file mode 100644',
  'index 0000000..1111111',
  '--- /dev/null',
  '+++ b/f.py',
  '@@ -0,0 +1,5 @@',
  '+1', '+2', '+3', '+4', '+5',
].join('\n');

describe('git history replay (diff parser)', () => {
  it('applies zero-context hunks in new-file coordinates: replace, insert, delete in one diff', () => {
    const h = replay(
      [
        ADD_F,
        '',
        `\x01${B} 1700000000`,
        'diff --git a/f.py b/f.py',
        'index 1111111..2222222 100644',
        '--- a/f.py',
        '+++ b/f.py',
        '@@ -1 +1 @@', '-1', '+one',
        '@@ -2,0 +3,2 @@', '+x', '+y',
        '@@ -4 +5,0 @@', '-4',
      ].join('\n'),
    );
    // 1→B, 2 (A), x y (B), 3 (A), 4 deleted, 5 (A)
    assert.deepEqual(shas(h, 'f.py'), ['b', 'a', 'b', 'b', 'a', 'a']);
    assert.equal(h.commits[1].authorTimeMs, 1_700_000_000_000);
    assert.equal(h.unreliable.size, 0);
    const blame = historyBlame(h, 'f.py')!;
    assert.equal(blame.lineCount, 6);
    assert.deepEqual(chunkBlameStats(blame, 1, 3), { commits: 2, lastModifiedMs: 1_700_000_000_000, uncommittedLines: 0 });
  });

  it('follows renames (with and without content changes), drops deleted files, starts re-added files afresh', () => {
    const h = replay(
      [
        ADD_F,
        `\x01${B} 1700000000`,
        'diff --git a/f.py b/g h.py',
        'similarity index 100%',
        'rename from f.py',
        'rename to g h.py',
        `\x01${C} 1800000000`,
        'diff --git "a/g h.py" "b/\\303\\274.py"',
        'similarity index 80%',
        'rename from g h.py',
        'rename to "\\303\\274.py"',
        'index 1..2 100644',
        '--- a/g h.py\t',
        '+++ "b/\\303\\274.py"',
        '@@ -5 +5 @@', '-5', '+five',
        'diff --git a/old.py b/old.py',
        'deleted file mode 100644',
        '--- a/old.py',
        '+++ /dev/null',
        '@@ -1,2 +0,0 @@', '-x', '-y',
      ].join('\n'),
    );
    assert.deepEqual([...h.files.keys()], ['ü.py']);
    assert.deepEqual(shas(h, 'ü.py'), ['a', 'a', 'a', 'a', 'c']);
    const again = replay([ADD_F, `\x01${B} 1700000000`, 'diff --git a/f.py b/f.py', 'deleted file mode 100644', '--- a/f.py', '+++ /dev/null', '@@ -1,5 +0,0 @@', '-1', '-2', '-3', '-4', '-5', `\x01${C} 1800000000`, 'diff --git a/f.py b/f.py', 'new file mode 100644', '--- /dev/null', '+++ b/f.py', '@@ -0,0 +1 @@', '+new'].join('\n'));
    assert.deepEqual(shas(again, 'f.py'), ['c']);
  });

  it('an empty file added, then filled; "\\ No newline at end of file" lines; content that looks like headers', () => {
    const h = replay(
      [
        `\x01${A} 1600000000`,
        'diff --git a/e.py b/e.py',
        'new file mode 100644',
        'index 0000000..e69de29',
        `\x01${B} 1700000000`,
        'diff --git a/e.py b/e.py',
        'index e69de29..1 100644',
        '--- a/e.py',
        '+++ b/e.py',
        '@@ -0,0 +1,3 @@', '+--- a/not-a-header', '+diff --git a/x b/x', '++++ b/e.py', '\\ No newline at end of file',
      ].join('\n'),
    );
    assert.deepEqual(shas(h, 'e.py'), ['b', 'b', 'b']);
    assert.equal(h.unreliable.size, 0);
  });

  it('binary diffs and hunks that do not fit the file make the file unreliable (blamed instead)', () => {
    const h = replay(
      [
        ADD_F,
        'diff --git a/img.bin b/img.bin',
        'new file mode 100644',
        'Binary files /dev/null and b/img.bin differ',
        `\x01${B} 1700000000`,
        'diff --git a/f.py b/f.py',
        '--- a/f.py',
        '+++ b/f.py',
        '@@ -9 +9 @@', '-9', '+nine',
      ].join('\n'),
    );
    assert.ok(h.unreliable.has('img.bin'));
    assert.ok(h.unreliable.has('f.py'));
    assert.equal(historyBlame(h, 'f.py'), undefined);
  });

  it('the working tree pass: uncommitted lines carry the all-zero commit', () => {
    const h: LineHistory = { commits: [], files: new Map(), unreliable: new Set(), bytes: 0 };
    const r = new DiffReplayer(h);
    for (const line of ADD_F.split('\n')) r.line(Buffer.from(line));
    r.commit({ sha: '0'.repeat(40), authorTimeMs: 0, committerTimeMs: 0, uncommitted: true });
    for (const line of ['diff --git a/f.py b/f.py', '--- a/f.py', '+++ b/f.py', '@@ -3 +3,2 @@', '-3', '+3a', '+3b']) r.line(Buffer.from(line));
    r.end();
    const blame = historyBlame(h, 'f.py')!;
    assert.deepEqual(chunkBlameStats(blame, 1, 6, 1_900_000_000_000), { commits: 1, lastModifiedMs: 1_900_000_000_000, uncommittedLines: 2 });
  });

  it('counts lines as git does; unquotes C-style names', () => {
    assert.equal(countLines(Buffer.from('')), 0);
    assert.equal(countLines(Buffer.from('a\nb\n')), 2);
    assert.equal(countLines(Buffer.from('a\nb')), 2);
    assert.equal(countLines(Buffer.from('\n\n')), 2);
    assert.equal(unquote('"a\\tb\\"c\\\\d"'), 'a\tb"c\\d');
    assert.equal(unquote('"\\303\\251t\\303\\251.py"'), 'été.py');
    assert.equal(unquote('plain name.py'), 'plain name.py');
  });
});
