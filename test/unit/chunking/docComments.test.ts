import assert from 'node:assert/strict';
import { chunkFile } from '../../../server/src/engine/chunking';
import { defaultConfig } from '../../../server/src/engine/config/schema';

const para = (n: number) => Array.from({ length: n }, (_, i) => `sentence ${i} of prose that explains how the driver is configured and used.`).join('\n');

async function chunks(path: string, language: string, content: string) {
  return chunkFile({ path, language, content } as Parameters<typeof chunkFile>[0], defaultConfig().chunking);
}

describe('long prose comments are split into sections at their headings', () => {
  it("Go package docs (doc.go): old-style and # headings become sections named by their titles", async () => {
    const doc = `/*\nPackage store keeps things.\n\n${para(8)}\n\nConnection Hook\n\n${para(10)}\n\n# Loading Extensions\n\n${para(10)}\n\tdb.Load("x") // indented: an example\n\nTo avoid recursion in cases such as\n\n\tf(x)\n\n${para(4)}\n*/\npackage store\n`;
    const cs = await chunks('doc.go', 'go', doc);
    const sections = cs.filter((c) => c.kind === 'section');
    assert.deepEqual(sections.map((c) => c.name), ['', 'Connection Hook', 'Loading Extensions'], 'a line followed by an indented example is not a heading');
    const hook = sections[1]!;
    assert.equal(doc.split('\n')[hook.nameRange!.line - 1]!.slice(hook.nameRange!.column - 1, hook.nameRange!.endColumn - 1), 'Connection Hook');
    assert.ok(cs.every((c) => c.content.trim()), 'no empty chunk');
  });
  it('a Go comment of // lines with # headings, and a Python module docstring with underlined titles', async () => {
    const go = `// Package x does y.\n//\n${para(12).replace(/^/gm, '// ')}\n//\n// # Usage\n//\n${para(12).replace(/^/gm, '// ')}\npackage x\n`;
    assert.deepEqual((await chunks('doc.go', 'go', go)).filter((c) => c.kind === 'section').map((c) => c.name), ['', 'Usage']);
    const py = `"""Tools for things.\n\n${para(12)}\n\nConfiguration\n-------------\n\n${para(12)}\n"""\n`;
    assert.deepEqual((await chunks('tools.py', 'python', py)).filter((c) => c.kind === 'section').map((c) => c.name), ['', 'Configuration']);
  });
  it("a module docstring is not merged into the first declaration (it is the module's documentation)", async () => {
    const py = `"""Utilities for coroutines.\n\n${para(14)}\n"""\n\nimport os\n\n_T = 1\n\n\ndef run(x):\n    return x\n`;
    const cs = await chunks('gen.py', 'python', py);
    const t = cs.find((c) => c.name === '_T')!;
    assert.ok(t && t.startLine > 14, `_T starts at line ${t?.startLine}: the docstring was merged into it`);
    assert.ok(cs.some((c) => c.kind === 'code' && c.startLine === 1 && c.content.includes('Utilities for coroutines')));
  });
  it('leaves short comments, code with comments and headingless prose alone', async () => {
    const short = `// Package x.\n//\n// Usage\n//\n// more\npackage x\n`;
    assert.ok(!(await chunks('doc.go', 'go', short)).some((c) => c.kind === 'section'));
    const noHeadings = `/*\n${para(40)}\n*/\npackage x\n`;
    assert.ok(!(await chunks('doc.go', 'go', noHeadings)).some((c) => c.kind === 'section'));
    const code = `package x\n\n// Open opens.\n//\n// Usage\n//\n// call it\nfunc Open() error {\n${'\tdo()\n'.repeat(40)}\treturn nil\n}\n`;
    assert.ok(!(await chunks('x.go', 'go', code)).some((c) => c.kind === 'section'));
  });
});

describe('documentation blocks separated from their declaration by a blank line', () => {
  const fn = (name: string) => `function ${name}(req, res, next) {\n  var total = req.items.length;\n  if (total > 10) return next(new Error('too many items for ${name}'));\n  res.send({ total: total, handler: '${name}' });\n}\n`;
  it('a /** … */ block one or two blank lines above documents the declaration below it (express), not the one above', async () => {
    const src = [
      '/*!',
      ' * express',
      ' * MIT Licensed',
      ' */',
      '',
      "'use strict';",
      '',
      '/**',
      ' * Map the given route parameter name to the given callback.',
      ' * @public',
      ' */',
      '',
      fn('param'),
      '/**',
      ' * Dispatch a req, res into the router.',
      ' * @private',
      ' */',
      '',
      '',
      fn('handle'),
      '// a line comment with a blank line after it is not documentation',
      '',
      fn('plain'),
    ].join('\n');
    const cs = await chunks('lib/router.js', 'javascript', src);
    const by = (s: string) => cs.find((c) => c.symbol === s)!;
    assert.equal(by('param').doc, 'Map the given route parameter name to the given callback.\n@public');
    assert.ok(by('param').content.includes('/**\n * Map the given route'), by('param').content);
    assert.ok(by('handle').content.startsWith('/**\n * Dispatch a req'), by('handle').content);
    assert.equal(by('handle').doc, 'Dispatch a req, res into the router.\n@private');
    assert.ok(!by('param').content.includes('Dispatch a req'), 'the next function\'s documentation is not the previous function\'s text');
    assert.equal(by('plain').doc, '');
    assert.ok(!by('param').doc.includes('MIT'), 'the file header (/*!) documents no declaration');
  });
  it("a file's own header block (@module, @license) above the first declaration stays the file's", async () => {
    const cs = await chunks('lib/a.js', 'javascript', `/**\n * Helpers for the router.\n * @module router/helpers\n */\n\n${fn('first')}`);
    assert.equal(cs.find((c) => c.symbol === 'first')!.doc, '');
  });
});
