/** Markdown heading sections and the text window chunker. */
import assert from 'node:assert/strict';
import { languageForPath } from '../../../server/src/engine/languages';
import { chunk, chunkFixture } from './helpers';
import { windows } from '../../../server/src/engine/chunking/text';
import { countTokens } from '../../../server/src/engine/tokenize/tokenCount';

describe('chunking: markdown and text', () => {
  it('splits Markdown by heading sections with the heading path as symbol', async () => {
    const chunks = await chunkFixture('README.md');
    assert.deepEqual(chunks.map((c) => c.symbol), [
      'Stockroom',
      'Stockroom > Architecture',
      'Stockroom > Architecture > Storage',
      'Stockroom > Getting Started',
      'Stockroom > Getting Started > Install',
      'Stockroom > Getting Started > Configuration',
      'Stockroom > Glossary',
    ]);
    const install = chunks[4];
    assert.equal(install.kind, 'section');
    assert.equal(install.name, 'Install');
    assert.equal(install.container, 'Stockroom > Getting Started');
    assert.equal(install.source, 'markdown');
    assert.equal(install.semanticClass, 'DOCUMENTATION_STRUCTURED');
    assert.equal(install.signature, '### Install');
    assert.equal(install.startLine, 17);
    assert.ok(install.content.startsWith('### Install\n'));
  });

  it('names a section by its heading\'s text, links and badges reduced to their text', async () => {
    const md = '# [hyper](https://hyper.rs) [![CI](https://ci.example/badge.svg)](https://ci.example)\n\nA fast HTTP library.\n\n## Using [the client](docs/client.md "Client guide")\n\nCall `get`.\n';
    const chunks = await chunk('markdown', 'README.md', md);
    assert.deepEqual(chunks.map((c) => c.symbol), ['hyper CI', 'hyper CI > Using the client']);
    const first = chunks[0]!;
    assert.ok(first.content.startsWith('# [hyper](https://hyper.rs)'), 'the text keeps the links');
  });

  it('ignores # lines inside fenced code and handles setext headings and a preamble', async () => {
    const md = 'Intro text.\n\nGuide\n=====\n\n```sh\n# not a heading\n```\n\nSetup\n-----\nRun it.\n';
    const chunks = await chunk('markdown', 'docs/g.md', md);
    assert.deepEqual(chunks.map((c) => c.symbol), ['', 'Guide', 'Guide > Setup']);
    assert.match(chunks[1].content, /# not a heading/);
  });

  it('splits a long section at paragraph boundaries, keeping the heading path', async () => {
    const para = (i: number) => `Paragraph ${i} ` + 'lorem ipsum dolor sit amet '.repeat(20) + '\n\n';
    const md = '# Big\n\n' + Array.from({ length: 12 }, (_, i) => para(i)).join('');
    const chunks = await chunk('markdown', 'big.md', md, { targetTokens: 300 });
    assert.ok(chunks.length >= 4);
    assert.ok(chunks.every((c) => c.symbol === 'Big' && c.tokenCount <= 300));
    assert.equal(new Set(chunks.map((c) => c.id)).size, chunks.length);
    assert.ok(chunks.slice(1).every((c) => /^Paragraph \d+/.test(c.content)), 'cuts fall on paragraph starts');
  });

  it('a section\'s last line after a full window joins it instead of being a unit of its own', async () => {
    // a paragraph just under the target, then one short line: packed, the two would not fit in one window
    let para = 'Redaction replaces the values at the given paths.';
    while (countTokens(para + ' lorem ipsum') < 590) para += ' lorem ipsum';
    const tail = 'See the API docs for the redact option and its censor and remove settings, with examples.\n';
    const md = `# Redaction\n\n${para}\n\n${tail}`;
    assert.equal(windows(md, 0, md.length, 600).length, 2, 'packing alone leaves the line on its own');
    const chunks = await chunk('markdown', 'docs/redaction.md', md, { targetTokens: 600, minTokens: 200 });
    assert.equal(chunks.length, 1, chunks.map((c) => c.tokenCount).join(', '));
    assert.equal(chunks[0]!.content, md);
    // a lone short section stays a section of its own (windows never cross headings)
    const two = await chunk('markdown', 'a.md', `# A\n\n${para}\n\n# B\n\nShort.\n`, { targetTokens: 600, minTokens: 200 });
    assert.deepEqual(two.map((c) => c.symbol), ['A', 'B']);
  });

  it('windows plain text by paragraphs within the target size', async () => {
    const text = Array.from({ length: 40 }, (_, i) => `Line block ${i}: ` + 'words and more words '.repeat(8)).join('\n\n') + '\n';
    const chunks = await chunk('text', 'notes.txt', text, { targetTokens: 200 });
    assert.ok(chunks.length >= 5);
    for (const c of chunks) {
      assert.equal(c.kind, 'text');
      assert.equal(c.source, 'text');
      assert.equal(c.semanticClass, 'OPERATION_DATA');
      assert.ok(c.tokenCount <= 200, `${c.tokenCount}`);
      assert.ok(c.tokenCount >= 100 || c === chunks[chunks.length - 1], 'windows are filled toward the target');
    }
    assert.equal(chunks.map((c) => c.content).join(''), text, 'windows cover the file exactly');
    const one = await chunk('json', 'a.json', '{"a": 1}\n');
    assert.equal(one.length, 1);
    assert.equal(one[0].startLine, 1);
  });

  it('cuts a single over-long line', async () => {
    const text = 'x'.repeat(20000);
    const chunks = await chunk('text', 'long.txt', text, { targetTokens: 200, maxTokens: 400 });
    assert.ok(chunks.length > 1);
    assert.equal(chunks.map((c) => c.content).join(''), text);
    assert.ok(chunks.every((c) => c.tokenCount <= 200));
  });

  it('AsciiDoc: = titles give heading paths; delimited blocks are not headings', async () => {
    const text = '= User Guide\n\nIntro.\n\n== Install\n\nRun the installer.\n\n----\n== not a heading (listing block)\n----\n\n=== From source\n\nBuild it.\n\n== Usage\n\nStart it.\n';
    const chunks = await chunk('asciidoc', 'docs/guide.adoc', text, { minTokens: 1 });
    assert.deepEqual(chunks.map((c) => [c.kind, c.symbol]), [
      ['section', 'User Guide'], ['section', 'User Guide > Install'], ['section', 'User Guide > Install > From source'], ['section', 'User Guide > Usage'],
    ]);
    assert.equal(chunks.map((c) => c.content).join(''), text, 'nothing lost');
    assert.equal(languageForPath('a/b.adoc')?.id, 'asciidoc');
  });

  it('reStructuredText: underlined (and overlined) titles, levels in order of first appearance', async () => {
    const text = '=========\nProject\n=========\n\nAbout.\n\nInstall\n=======\n\nUse pip.\n\nFrom source\n-----------\n\nClone it.\n\nUsage\n=====\n\nRun ``tool``.\n\nShort\n==\n';
    const chunks = await chunk('restructuredtext', 'docs/index.rst', text, { minTokens: 1 });
    assert.deepEqual(chunks.map((c) => c.symbol), ['Project', 'Project > Install', 'Project > Install > From source', 'Project > Usage']);
    assert.equal(chunks.map((c) => c.content).join(''), text, 'nothing lost (a too-short underline is text)');
    assert.equal(languageForPath('x.rst')?.id, 'restructuredtext');
  });
});
