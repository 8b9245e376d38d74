import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shippedLaunch } from '../../../bench/launch';
import { REPO_ROOT } from '../../support/workspace';

describe('the benchmark starts a build as its shebang does (bench/launch.ts)', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'quarry-launch-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("reads the environment variables and node flags of the bundle's first line", () => {
    const cli = join(dir, 'cli.js');
    writeFileSync(cli, '#!/usr/bin/env -S MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 node --liftoff-only --max-semi-space-size=4\nconsole.log(1);\n');
    assert.deepEqual(shippedLaunch(cli), { env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' }, flags: ['--liftoff-only', '--max-semi-space-size=4'] });
    writeFileSync(cli, 'console.log(1);\n');
    assert.deepEqual(shippedLaunch(cli), { env: {}, flags: ['--liftoff-only'] }, 'a bundle without a shebang');
  });

  it("the CLI bundle's shebang (scripts/build.mjs) is one it reads, with the memory settings", () => {
    const banner = /banner: \{ js: '([^']+)' \}/.exec(readFileSync(join(REPO_ROOT, 'scripts', 'build.mjs'), 'utf8'))?.[1];
    assert.ok(banner, 'the build script sets the banner');
    const cli = join(dir, 'shipped.js');
    writeFileSync(cli, `${banner}\n`);
    const launch = shippedLaunch(cli);
    assert.equal(launch.env.MALLOC_ARENA_MAX, '2');
    assert.equal(launch.env.MALLOC_MMAP_THRESHOLD_, '131072');
    assert.ok(launch.flags.includes('--liftoff-only') && launch.flags.includes('--max-semi-space-size=4'), launch.flags.join(' '));
  });
});
