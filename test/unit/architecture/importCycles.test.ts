import assert from 'node:assert/strict';
import { join } from 'node:path';
import madge from 'madge';
import { REPO_ROOT } from '../../support/workspace';

/**
 * No import cycles in the shipped code, type-only imports included (ARCHITECTURE.md: api/ holds data shapes, the
 * engine knows no door, ranking stages depend on the candidate contract and not the other way round).
 */
describe('module structure', function () {
  this.timeout(120_000);
  it('has no import cycles in server/src and client/src (madge)', async () => {
    const res = await madge([join(REPO_ROOT, 'server', 'src'), join(REPO_ROOT, 'client', 'src')], {
      fileExtensions: ['ts'],
      tsConfig: join(REPO_ROOT, 'tsconfig.json'),
    });
    const cycles = res.circular();
    assert.deepEqual(cycles, [], cycles.map((c) => c.join(' > ')).join('\n'));
    assert.ok(Object.keys(res.obj()).length > 100, 'madge saw the modules');
  });
});
