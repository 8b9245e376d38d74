import assert from 'node:assert/strict';
import { BlameParseError, chunkBlameStats, parseBlamePorcelain } from '../../../server/src/engine/git/blame';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const ZERO = '0'.repeat(40);

/** A --porcelain stream: commit details only the first time each commit appears. */
const PORCELAIN = [
  `${A} 1 1 2`, 'author Ann', 'author-mail <ann@example.com>', 'author-time 1577836800', 'author-tz +0000', 'committer Ann',
  'committer-mail <ann@example.com>', 'committer-time 1577840400', 'committer-tz +0000', 'summary first', 'boundary', 'filename f.py', '\tdef f():',
  `${A} 2 2`, '\t    return 1',
  `${B} 3 3 1`, 'author Bob', 'author-time 1600000000', 'committer-time 1600003600', 'summary second', `previous ${A} f.py`, 'filename f.py', `\t${A} 9 9 9`,
  `${ZERO} 4 4 1`, 'author Not Committed Yet', 'author-time 1900000000', 'committer-time 1900000000', 'summary Version of f.py from f.py', 'filename f.py', '\t# new',
  `${A} 3 5 1`, '\t',
  '',
].join('\n');

describe('git blame porcelain parser', () => {
  it('maps each final line to its commit, with author and committer times', () => {
    const b = parseBlamePorcelain(PORCELAIN);
    assert.equal(b.lineCount, 5);
    const shaOf = (line: number) => b.commits[b.lineCommit[line]].sha;
    assert.deepEqual([1, 2, 3, 4, 5].map(shaOf), [A, A, B, ZERO, A]);
    const a = b.commits.find((c) => c.sha === A)!;
    assert.equal(a.authorTimeMs, 1577836800_000);
    assert.equal(a.committerTimeMs, 1577840400_000);
    assert.equal(a.uncommitted, false);
    assert.equal(b.commits.find((c) => c.sha === ZERO)!.uncommitted, true);
  });

  it('reads a Buffer with bytes that are not UTF-8, and content that looks like a header', () => {
    const bytes = Buffer.concat([Buffer.from(`${A} 1 1 1\nauthor-time 10\n\t`), Buffer.from([0xff, 0xfe, 0x00, 0x80]), Buffer.from('\n')]);
    const b = parseBlamePorcelain(bytes);
    assert.equal(b.lineCount, 1);
    assert.equal(b.commits[0].authorTimeMs, 10_000);
    // Line 3 of PORCELAIN has content `<sha> 9 9 9`: still one line of commit B, not a header.
    assert.equal(parseBlamePorcelain(PORCELAIN).commits.length, 3);
  });

  it('accepts SHA-256 object names and empty output (an empty file)', () => {
    const b = parseBlamePorcelain(`${'c'.repeat(64)} 1 1 1\nauthor-time 5\n\tx\n`);
    assert.equal(b.commits[0].sha.length, 64);
    const empty = parseBlamePorcelain('');
    assert.equal(empty.lineCount, 0);
    assert.deepEqual(chunkBlameStats(empty, 1, 10), { commits: 0, lastModifiedMs: 0, uncommittedLines: 0 });
  });

  it('rejects output that is not porcelain blame', () => {
    assert.throws(() => parseBlamePorcelain('usage: git blame [<options>]\n'), BlameParseError);
    assert.throws(() => parseBlamePorcelain(`${A} 1 1 1\nauthor-time 5\n`), BlameParseError, 'truncated inside a record');
  });

  describe('chunk statistics', () => {
    const b = parseBlamePorcelain(PORCELAIN);
    it('counts distinct commits and takes the latest author time', () => {
      assert.deepEqual(chunkBlameStats(b, 1, 2), { commits: 1, lastModifiedMs: 1577836800_000, uncommittedLines: 0 });
      assert.deepEqual(chunkBlameStats(b, 1, 3), { commits: 2, lastModifiedMs: 1600000000_000, uncommittedLines: 0 });
    });
    it('does not count uncommitted lines as commits; they date from the given time, else from git', () => {
      assert.deepEqual(chunkBlameStats(b, 3, 5, 1700000000_000), { commits: 2, lastModifiedMs: 1700000000_000, uncommittedLines: 1 });
      assert.deepEqual(chunkBlameStats(b, 4, 4), { commits: 0, lastModifiedMs: 1900000000_000, uncommittedLines: 1 });
      // An older file time never moves last-modified back.
      assert.equal(chunkBlameStats(b, 3, 4, 1000).lastModifiedMs, 1600000000_000);
    });
    it('clamps ranges to the file', () => {
      assert.deepEqual(chunkBlameStats(b, 0, 99), chunkBlameStats(b, 1, 5));
      assert.deepEqual(chunkBlameStats(b, 7, 9), { commits: 0, lastModifiedMs: 0, uncommittedLines: 0 });
    });
  });
});
