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
