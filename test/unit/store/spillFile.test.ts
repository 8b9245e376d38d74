import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SpillFile } from '../../../server/src/engine/store/spillFile';

describe('spill file (a read snapshot\'s chunk text)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'quarry-spill-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates its folder in an existing generation folder, and holds what was appended', () => {
    const file = SpillFile.create(join(dir, 'snapshots'), 'chunks');
    const bytes = Buffer.from('héllo wörld');
    const at = file.append(bytes, 0, bytes.length);
    assert.equal(file.text(at, bytes.length), 'héllo wörld');
    file.close();
  });

  it('never brings back a removed index folder: a missing generation folder is an error and nothing is created', () => {
    const gone = join(dir, '.quarry', 'gen-1');
    assert.throws(() => SpillFile.create(join(gone, 'snapshots'), 'chunks'), /ENOENT/);
    assert.equal(existsSync(join(dir, '.quarry')), false);
  });
});
