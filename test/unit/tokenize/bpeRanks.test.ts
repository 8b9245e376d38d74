import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BpeRanks } from '../../../server/src/engine/tokenize/bpeRanks';
import { O200K_PATTERN, o200kTablePath, RANK_TABLE_FILE } from '../../../server/src/engine/tokenize/tokenCount';
import { REPO_ROOT, removeDir, tempDir } from '../../support/workspace';

// the oracle: gpt-tokenizer's own o200k encoder, over the same table
// eslint-disable-next-line @typescript-eslint/no-require-imports
const encoder = require('gpt-tokenizer/encoding/o200k_base') as { encode: (t: string, o?: { disallowedSpecial?: Set<string> }) => number[] };
const reference = (piece: string) => encoder.encode(piece, { disallowedSpecial: new Set() }).length;

describe('BPE rank table (bpeRanks.ts)', () => {
  const table = BpeRanks.fromTiktoken(readFileSync(o200kTablePath(), 'utf8'));
  const pieces = (text: string) => [...text.matchAll(new RegExp(O200K_PATTERN, 'gu'))].map((m) => m[0]);

  it('reads every token of o200k_base and finds each by its bytes', () => {
    assert.equal(table.size, 199_998);
    const lines = readFileSync(o200kTablePath(), 'utf8').split('\n').filter(Boolean);
    for (const line of [lines[0]!, lines[255]!, lines[1000]!, lines[123_456]!, lines.at(-1)!]) {
      const [b64, rank] = line.split(' ');
      const bytes = Buffer.from(b64!, 'base64');
      assert.equal(table.rank(bytes, 0, bytes.length), Number(rank), line);
    }
    const none = Buffer.from('zzqxzzqxzzqxzzqx');
    assert.equal(table.rank(none, 0, none.length), -1);
  });

  it('counts pieces exactly as the encoder does: code, prose, CJK, emoji, combining marks, lone surrogates, long runs', () => {
    const samples = [
      'hello world', 'getUserById', ' if err != nil {', '\t\t\t\t', ' '.repeat(300), 'x'.repeat(500), '0123456789',
      'naïve café', 'Ünïcödé ŝtrïñg', '東京都の天気は晴れです', '한국어 텍스트', 'emoji 😀🎉👩‍👩‍👧 done', 'e\u0301\u0301\u0301',
      'lone \ud800 surrogate', '\udfff', 'mixed_snake_CaseWithNumbers123', '==>>>=<<=!==', '/* comment */', "it's we'll they'RE",
      'ab'.repeat(400), '\u200b\u200b', 'Ωμέγα', 'ﷺ', 'a\u0000b',
    ];
    for (const s of samples) for (const p of pieces(s)) assert.equal(table.countPiece(p), reference(p), JSON.stringify(p));
  });

  it('counts every piece of real source files exactly', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (statSync(p).size < 100_000) files.push(p);
      }
    };
    walk(join(REPO_ROOT, 'test', 'fixtures', 'polyglot'));
    walk(join(REPO_ROOT, 'server', 'src', 'engine', 'tokenize'));
    const seen = new Set<string>();
    for (const f of files) for (const p of pieces(readFileSync(f, 'utf8'))) seen.add(p);
    assert.ok(seen.size > 2000, `${seen.size} distinct pieces`);
    for (const p of seen) assert.equal(table.countPiece(p), reference(p), JSON.stringify(p));
  });

  it('refuses a file that is not a .tiktoken table, naming the line', () => {
    assert.throws(() => BpeRanks.fromTiktoken(''), /no tokens/);
    assert.throws(() => BpeRanks.fromTiktoken('IQ== 0\nnot-a-table\n'), /line 2/);
    assert.throws(() => BpeRanks.fromTiktoken('IQ== zero\n'), /line 1/);
    assert.throws(() => BpeRanks.fromTiktoken('I*Q== 0\n'), /line 1/);
  });

  it('writes a binary image that reads back as the same table, and refuses a damaged one', () => {
    const image = table.toBinary();
    // a Buffer from a file may start at any offset of a shared pool: read back from an unaligned copy
    const unaligned = Buffer.alloc(image.length + 3).subarray(3);
    unaligned.set(image);
    const back = BpeRanks.fromBinary(unaligned);
    assert.equal(back.size, table.size);
    const text = readFileSync(join(REPO_ROOT, 'server', 'src', 'engine', 'tokenize', 'bpeRanks.ts'), 'utf8') + ' 東京都 😀 naïve';
    for (const p of new Set(pieces(text))) assert.equal(back.countPiece(p), table.countPiece(p), JSON.stringify(p));
    assert.deepEqual(BpeRanks.fromBinary(back.toBinary()).toBinary(), image);
    assert.throws(() => BpeRanks.fromBinary(image.subarray(0, image.length - 4)), /truncated or inconsistent/);
    assert.throws(() => BpeRanks.fromBinary(new Uint8Array(64)), /not a Quarry BPE rank table/);
    const otherVersion = image.slice();
    otherVersion[4] = 99;
    assert.throws(() => BpeRanks.fromBinary(otherVersion), /format 99/);
  });

  it('the build writes the image the bundles read (dist/o200k_base.ranks) from this table', () => {
    const built = join(REPO_ROOT, 'dist', RANK_TABLE_FILE);
    assert.ok(existsSync(built), `${built} is missing: run npm run build`);
    assert.deepEqual(new Uint8Array(readFileSync(built)), table.toBinary());
  });

  it('a bundle beside a good image counts without gpt-tokenizer installed; beside a damaged one it says what to do', async function () {
    this.timeout(60_000);
    const { build } = await import('esbuild');
    const dir = tempDir('quarry-ranks-');
    try {
      // outside the repository: nothing resolves gpt-tokenizer from there (as in the .vsix, which leaves its files out)
      await build({ entryPoints: [join(REPO_ROOT, 'server', 'src', 'engine', 'tokenize', 'tokenCount.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: join(dir, 'count.cjs'), logLevel: 'silent' });
      const run = () => spawnSync(process.execPath, ['-e', `process.stdout.write(String(require(${JSON.stringify(join(dir, 'count.cjs'))}).countTokens('hello world, again')))`], { encoding: 'utf8', cwd: dir });
      writeFileSync(join(dir, RANK_TABLE_FILE), table.toBinary());
      const good = run();
      assert.equal(good.status, 0, good.stderr);
      assert.equal(Number(good.stdout), reference('hello world, again'));
      writeFileSync(join(dir, RANK_TABLE_FILE), Buffer.from('QBPE but not really'));
      const bad = run();
      assert.notEqual(bad.status, 0);
      assert.match(bad.stderr, /could not be read from its binary image \(.*not a Quarry BPE rank table.*\) nor from/);
      assert.match(bad.stderr, /Reinstall Quarry/);
    } finally {
      removeDir(dir);
    }
  });
});
