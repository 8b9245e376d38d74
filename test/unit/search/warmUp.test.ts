import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * warmUp in a fresh process (the BPE tables load once per thread, so an in-process check would see whatever an earlier
 * test loaded). The searchable is a plain object with the interface warmUp reads: it records what was asked.
 */
function warmUpIn(optionsJson: string): { searches: string[]; tables: boolean; snapshots: boolean } {
  const script = `
    const { warmUp } = require(${JSON.stringify(join(ROOT, 'server/src/engine/search/warmUp.ts'))});
    const { tokenTablesLoaded } = require(${JSON.stringify(join(ROOT, 'server/src/engine/tokenize/tokenCount.ts'))});
    const searches = [];
    let snapshots = false;
    const engine = { async search(q) { searches.push(q); return { matches: [] }; }, async keepReadSnapshots() { snapshots = true; } };
    warmUp(engine, undefined, ${optionsJson}).then(() => console.log(JSON.stringify({ searches, tables: tokenTablesLoaded(), snapshots })));
  `;
  const r = spawnSync(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as { searches: string[]; tables: boolean; snapshots: boolean };
}

describe('warm-up of a long-running door', () => {
  it('asks a description and an identifier search, keeps the read snapshots, and loads the BPE tables (MCP)', () => {
    const w = warmUpIn('{}');
    assert.equal(w.searches.length, 2);
    assert.ok(w.searches[0]!.includes(' ') && !w.searches[1]!.includes(' '));
    assert.equal(w.snapshots, true);
    assert.equal(w.tables, true);
  });

  it('leaves the BPE tables unloaded when asked (the language server: its searches never count tokens)', () => {
    const w = warmUpIn('{ tokenCounts: false }');
    assert.equal(w.searches.length, 2);
    assert.equal(w.snapshots, true);
    assert.equal(w.tables, false);
  });
});
