import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { chunkFile } from '../../../server/src/engine/chunking';
import { AST_WALK } from '../../../server/src/engine/chunking/ast';
import { defaultConfig } from '../../../server/src/engine/config/schema';
import { languageForPath } from '../../../server/src/engine/languages';
import { REPO_ROOT } from '../../support/workspace';

/**
 * A large file's tree is walked for comments and identifier leaves a window of lines at a time (issue 19: one walk of
 * a 1 MB generated file handed over hundreds of thousands of nodes at once). The chunks must not depend on the window.
 */
describe('chunker: the windowed walk of a large file', function () {
  this.timeout(60_000);
  const root = join(REPO_ROOT, 'test', 'fixtures', 'polyglot');
  const files = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && extname(e.name))
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))
    .filter((p) => languageForPath(p)?.id && readFileSync(p, 'utf8').split('\n').length > 40)
    .sort();

  it('gives the same chunks, references and doc comments with any window', async () => {
    assert.ok(files.length >= 5, `${files.length} fixture files`);
    const saved = AST_WALK.windowLines;
    let syntax = 0;
    try {
      for (const file of files) {
        const language = languageForPath(file)!.id;
        // several copies make a file long enough for many windows; a block comment may straddle a window's edge
        const content = Array.from({ length: 4 }, () => readFileSync(file, 'utf8')).join('\n');
        const input = { path: file.slice(root.length + 1), language, content };
        AST_WALK.windowLines = 1_000_000;
        const whole = await chunkFile(input, defaultConfig().chunking);
        for (const window of [7, 13, 50]) {
          AST_WALK.windowLines = window;
          assert.deepEqual(await chunkFile(input, defaultConfig().chunking), whole, `${input.path}, windows of ${window} lines`);
        }
        if (whole.some((c) => c.source === 'ast')) {
          syntax++;
          assert.ok(whole.some((c) => c.references.length > 0), `${input.path}: references found`);
        }
      }
      assert.ok(syntax >= 5, `${syntax} files chunked by their syntax`);
    } finally {
      AST_WALK.windowLines = saved;
    }
  });
});
