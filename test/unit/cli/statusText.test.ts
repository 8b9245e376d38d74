/** The text of `quarry status`: the skipped files of the last whole-workspace run, capped, and the notes. */
import assert from 'node:assert/strict';
import { formatStatus, STATUS_SKIPPED_SHOWN } from '../../../server/src/cli/format';
import type { IndexStatus } from '../../../server/src/engine/engine';
import type { SkippedRecord } from '../../../server/src/engine/indexer/indexer';

const status = (over: Partial<IndexStatus> = {}): IndexStatus => ({
  root: '/p', indexDir: '/p/.quarry', exists: true, files: 1, chunks: 1, conformances: 0, chunksByKind: {}, chunksByLanguage: {},
  lastIndexed: null, lastDurationMs: null, indexSizeBytes: 0, indexing: null, problems: [], notes: [], ...over,
});

describe('quarry status text', () => {
  it('names the first skipped files with their reasons, notable reasons first, then says how many more and where to see them', () => {
    const files: SkippedRecord['files'] = [];
    for (let i = 0; i < 30; i++) files.push({ path: `dist/gen${String(i).padStart(2, '0')}.js`, reason: 'gitignored' });
    files.push({ path: 'z/blob.bin.ts', reason: 'binary', detail: 'NUL bytes' });
    const text = formatStatus(status(), undefined, { at: '2026-01-01T00:00:00.000Z', byReason: {}, files, notListed: 5 });
    const lines = text.split('\n');
    const head = lines.findIndex((l) => l.startsWith('Skipped files (36,'));
    assert.ok(head >= 0, text);
    assert.equal(lines[head + 1], '  z/blob.bin.ts  binary (NUL bytes)');
    assert.equal(lines.slice(head + 1).filter((l) => l.startsWith('  dist/')).length, STATUS_SKIPPED_SHOWN - 1);
    assert.ok(lines.includes(`  … and ${36 - STATUS_SKIPPED_SHOWN} more; \`quarry status --json\` lists all`), text);
  });

  it('a short list has no "more" line; no record, no section; notes are listed', () => {
    const text = formatStatus(status({ notes: ['a full rebuild did not finish'] }), undefined, { at: 'x', byReason: {}, files: [{ path: 'a\nb.ts', reason: 'binary' }], notListed: 0 });
    assert.match(text, /^ {2}a\\nb\.ts {2}binary$/m);
    assert.doesNotMatch(text, /more; `quarry status --json`/);
    assert.match(text, /Notes:\n {2}- a full rebuild did not finish/);
    assert.doesNotMatch(formatStatus(status(), undefined, null), /Skipped files/);
    // Quarry's own folder is not listed
    const own = formatStatus(status(), undefined, { at: 'x', byReason: {}, files: [{ path: '.quarry', reason: 'excluded', detail: 'built-in exclusion' }, { path: 'big.ts', reason: 'too-large' }], notListed: 0 });
    assert.match(own, /Skipped files \(1,/);
    assert.doesNotMatch(own, /^ {2}\.quarry/m);
  });
});
