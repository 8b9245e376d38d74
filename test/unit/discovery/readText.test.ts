import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { looksMinified, readTextFile } from '../../../server/src/engine/discovery';
import { rmrf, tmpDir } from './helpers';

describe('discovery: readTextFile()', () => {
  let dir: string;
  beforeEach(() => {
    dir = tmpDir();
  });
  afterEach(() => rmrf(dir));

  function file(name: string, content: string | Buffer): string {
    const p = path.join(dir, name);
    fs.writeFileSync(p, content);
    return p;
  }

  it('reads plain UTF-8 text (multi-byte characters included)', async () => {
    assert.deepEqual(await readTextFile(file('a.ts', 'const s = "héllo → 世界";\n')), { text: 'const s = "héllo → 世界";\n' });
    assert.deepEqual(await readTextFile(file('empty.ts', '')), { text: '' });
  });

  it('strips a UTF-8 BOM and says so', async () => {
    const r = await readTextFile(file('bom.ts', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('let a = 1;\n')])));
    assert.deepEqual(r, { text: 'let a = 1;\n', bom: true });
  });

  it('skips binary content', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 0, 1, 0, 0, 0, 1, 0, 8, 6, 0, 0, 0]);
    const r = await readTextFile(file('image.ts', png));
    assert.deepEqual(r, { skip: 'binary', detail: 'binary content' });
    const nul = await readTextFile(file('nul.ts', Buffer.concat([Buffer.from('abc'), Buffer.alloc(100), Buffer.from('def')])));
    assert.equal('skip' in nul && nul.skip, 'binary');
  });

  it('skips invalid UTF-8 (Latin-1 text) as binary with detail "invalid UTF-8"', async () => {
    const latin1 = Buffer.from('// caf\u00e9 cr\u00e8me br\u00fbl\u00e9e\nconst x = 1;\n', 'latin1');
    assert.deepEqual(await readTextFile(file('latin.ts', latin1)), { skip: 'binary', detail: 'invalid UTF-8' });
  });

  it('skips UTF-16 text', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('let a = 1;\n', 'utf16le')]);
    const r = await readTextFile(file('u16.ts', utf16));
    assert.equal('skip' in r && r.skip, 'binary');
  });

  it('checks the size from stat before reading', async () => {
    const p = file('big.ts', 'let x = 1;\n'.repeat(500));
    assert.deepEqual(await readTextFile(p, { maxFileSizeBytes: 4096 }), { skip: 'too-large', detail: '5500 bytes > 4096' });
    assert.ok('text' in (await readTextFile(p)));
  });

  it('detects minified bundles by name and by line length', async () => {
    assert.deepEqual(await readTextFile(file('x.min.js', 'a')), { skip: 'minified', detail: 'bundle file name' });
    const oneLine = 'var a=1;'.repeat(400); // 3200 chars on one line
    assert.deepEqual(await readTextFile(file('bundle.js', `/*! license */\n${oneLine}\n`)), { skip: 'minified', detail: 'very long lines' });
    // Few lines with one line over minifiedLineLength.
    const few = `// header\n${'x'.repeat(600)}\n// end\n`;
    assert.ok('text' in (await readTextFile(file('few.js', few))), 'under the default 1000');
    assert.equal((await readTextFile(file('few2.js', few), { minifiedLineLength: 500 }) as { skip: string }).skip, 'minified');
    // A long normal file with one long line is not minified.
    const normal = Array.from({ length: 300 }, (_, i) => `const v${i} = ${i};`).join('\n') + '\n' + 'const s = "' + 'y'.repeat(2000) + '";\n';
    assert.ok('text' in (await readTextFile(file('normal.ts', normal))));
  });

  it('looksMinified: average rule needs a non-tiny file; few-lines rule uses the threshold', () => {
    assert.equal(looksMinified('x'.repeat(900)), false, 'tiny one-liner');
    assert.equal(looksMinified('x'.repeat(1100)), true, '> minifiedLineLength in a one-line file');
    assert.equal(looksMinified(('y'.repeat(350) + '\n').repeat(20)), true, 'average > 300');
    assert.equal(looksMinified(('y'.repeat(250) + '\n').repeat(200)), false);
    assert.equal(looksMinified(''), false);
  });

  it('reports missing and unreadable files as unreadable', async () => {
    assert.deepEqual(await readTextFile(path.join(dir, 'missing.ts')), { skip: 'unreadable', detail: 'ENOENT' });
    assert.deepEqual(await readTextFile(dir), { skip: 'unreadable', detail: 'not a regular file' });
  });
});
