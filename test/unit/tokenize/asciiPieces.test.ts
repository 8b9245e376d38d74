import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { asciiPieceEnd, isAscii } from '../../../server/src/engine/tokenize/asciiPieces';
import { countTokens, O200K_PATTERN } from '../../../server/src/engine/tokenize/tokenCount';
import { REPO_ROOT } from '../../support/workspace';

// the oracle for counts: gpt-tokenizer's own o200k encoder
// eslint-disable-next-line @typescript-eslint/no-require-imports
const encoder = require('gpt-tokenizer/encoding/o200k_base') as { encode: (t: string, o?: { disallowedSpecial?: Set<string> }) => number[] };

const byPattern = (text: string): string[] => [...text.matchAll(new RegExp(O200K_PATTERN, 'gu'))].map((m) => m[0]);
function byScanner(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const end = asciiPieceEnd(text, i, text.length);
    assert.ok(end > i, `no progress at ${i} of ${JSON.stringify(text)}`);
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

function asciiFiles(dirs: string[]): string[] {
  const texts: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (statSync(p).size < 200_000) {
        const t = readFileSync(p, 'utf8');
        if (isAscii(t)) texts.push(t);
      }
    }
  };
  dirs.forEach(walk);
  return texts;
}

describe('the o200k pre-tokenizer for ASCII text (asciiPieces.ts)', () => {
  it('cuts exactly where the pattern does: odd cases', () => {
    const cases = [
      "it's we'll they'RE don'T A'LL x'Ve ab'll' 'll 's '", '  \n  x', ' \t\n\r\n  \u000b\f y', '\u0000\u0001ab', '__foo', '((foo', 'FOObar FOO Bar fooBAR',
      '12345x 1 22 333 4444', 'a\'', 'x\'sx', ' ', '\n', '  ', '\r\n\r\n', '}\n//x', 'a //b\n', '\t\tfoo', ' \tfoo', 'x \n', 'x  ', '  \t', '/*',
      ' /', ' (a)', '\t(', ' 1', '  1', '\n\n\tfunc() {', 'if err != nil {\n\t\treturn nil, err\n\t}\n', '"quoted" `raw` $var @dec #x ~y',
    ];
    for (const c of cases) assert.deepEqual(byScanner(c), byPattern(c), JSON.stringify(c));
  });

  it('cuts exactly where the pattern does on every ASCII file of the repository sources, tests and fixtures', () => {
    const texts = asciiFiles([join(REPO_ROOT, 'server', 'src'), join(REPO_ROOT, 'test', 'fixtures'), join(REPO_ROOT, 'client', 'src')]);
    assert.ok(texts.length > 200, `${texts.length} files`);
    for (const t of texts) assert.deepEqual(byScanner(t), byPattern(t));
  });

  it('cuts exactly where the pattern does on 5,000 random strings of the characters that decide it', () => {
    const alphabet = ['a', 'b', 'Z', 'Q', '0', '7', ' ', ' ', '\t', '\n', '\r', '\u000b', '\f', "'", 's', 'l', 'L', 'v', 'e', 'R', 'd', 'm', 't', '/', '(', '_', '-', '.', '\u0000', '"', '{', '}'];
    let seed = 42;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let k = 0; k < 5000; k++) {
      let s = '';
      const len = 1 + Math.floor(next() * 24);
      for (let i = 0; i < len; i++) s += alphabet[Math.floor(next() * alphabet.length)];
      assert.deepEqual(byScanner(s), byPattern(s), JSON.stringify(s));
    }
  });

  it('countTokens through the scanner equals the encoder on whole ASCII files, repeated (from the piece table)', () => {
    const texts = asciiFiles([join(REPO_ROOT, 'server', 'src', 'engine', 'chunking')]).slice(0, 40);
    for (let round = 0; round < 2; round++) {
      for (const t of texts) assert.equal(countTokens(t), encoder.encode(t, { disallowedSpecial: new Set() }).length);
    }
  });
});
