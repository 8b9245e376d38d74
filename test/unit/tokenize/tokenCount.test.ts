import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from '../../../server/src/engine/tokenize/tokenCount';
import { REPO_ROOT } from '../../support/workspace';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const encoder = require('gpt-tokenizer/encoding/o200k_base') as { countTokens: (t: string, o?: { disallowedSpecial?: Set<string> }) => number };
const reference = (text: string) => encoder.countTokens(text, { disallowedSpecial: new Set() });

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (statSync(p).size < 200_000) out.push(p);
  }
  return out;
}

describe('token counting (o200k, counted by line segments and remembered)', () => {
  it('counts exactly what the encoder counts where lines glue together: blank lines, `}` before `//`, CRLF, odd spaces', () => {
    const cases = ['a\n/b', '}\n//x\n', 'x\n\n\ny', 'x \n \ny', '{\n\t// c\n}', 'x\r\n\ty\r\n', ')\n/* c */\n', 'a\n \u2028b', 'a\n\u00a0b\n', "it's\n's", '\n\n', '}\n\n//', 'foo\n\n// bar', '<|endoftext|>\n'];
    for (const c of cases) {
      for (const text of [c, c.repeat(40), 'y'.repeat(170) + c, c.repeat(3) + 'z'.repeat(2000)]) {
        assert.equal(countTokens(text), reference(text), JSON.stringify(text.slice(0, 80)));
      }
    }
  });

  it('counts whole files and arbitrary slices of this repository exactly, and again from memory', () => {
    const files = sources(join(REPO_ROOT, 'server', 'src', 'engine', 'chunking')).concat(sources(join(REPO_ROOT, 'test', 'fixtures', 'polyglot')));
    let seed = 21;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    let checked = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (let pass = 0; pass < 2; pass++) {
        assert.equal(countTokens(text), reference(text), f);
        for (let k = 0; k < 4; k++) {
          const s = Math.floor(rand() * text.length);
          const slice = text.slice(s, s + Math.floor(rand() * 3000));
          assert.equal(countTokens(slice), reference(slice), `${f} [${s}]`);
          checked++;
        }
      }
    }
    assert.ok(checked > 200, `${checked} slices`);
  });
});
