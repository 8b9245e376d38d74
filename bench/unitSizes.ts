/**
 * Unit sizes (seed 002 FR-006, issue 18): `npm run bench:units [-- --repos a,b]`. Chunks every file of the frozen
 * evaluation's trees (bench/.cache/eval/<repo>/tree, fetched by `npx tsx bench/eval/fetch.ts`) with the current
 * chunker and default settings, and reports the token counts of the code units (Markdown sections and text windows
 * left out) twice: the unit's own text, and what the default embedding model reads (`codeView` for Quarry's code
 * model: path, container, doc when the body does not carry it, code). Tokens are Quarry's BPE count
 * (tokenize/tokenCount.ts). Prints a Markdown table; nothing is written.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkFile, initChunking } from '../server/src/engine/chunking';
import { defaultConfig } from '../server/src/engine/config/schema';
import { discover } from '../server/src/engine/discovery';
import { codeView } from '../server/src/engine/embedding/views';
import { countTokens } from '../server/src/engine/tokenize/tokenCount';
import { percentile } from './metrics';

const EVAL_CACHE = join(__dirname, '.cache', 'eval');
const PROSE = new Set(['markdown', 'text', 'asciidoc', 'restructuredtext']);

interface Sizes {
  own: number[];
  embedded: number[];
}

async function measure(tree: string): Promise<Sizes> {
  const config = defaultConfig();
  const { files } = await discover(tree, config.discovery);
  const sizes: Sizes = { own: [], embedded: [] };
  for (const f of files) {
    if (PROSE.has(f.language)) continue;
    const chunks = await chunkFile({ path: f.path, language: f.language, content: readFileSync(f.absPath, 'utf8') }, config.chunking);
    for (const c of chunks) {
      if (c.source !== 'ast') continue;
      sizes.own.push(c.tokenCount);
      // the static code model reads the whole view (up to its 1,024 sub-words itself): see embedding/viewFor.ts
      sizes.embedded.push(countTokens(codeView(c, { maxChars: 16_000 })));
    }
  }
  return sizes;
}

function row(name: string, s: Sizes): string {
  const stats = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    const mean = xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const under = xs.filter((x) => x < 200).length / Math.max(1, xs.length);
    return `${Math.round(mean)} | ${percentile(sorted, 5)} | ${percentile(sorted, 50)} | ${percentile(sorted, 95)} | ${Math.round(under * 100)}%`;
  };
  return `| ${name} | ${s.own.length} | ${stats(s.own)} | ${stats(s.embedded)} |`;
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--repos');
  const only = i >= 0 ? new Set(process.argv[i + 1]!.split(',')) : undefined;
  if (!existsSync(EVAL_CACHE)) throw new Error(`${EVAL_CACHE} is missing: fetch the evaluation trees first (npx tsx bench/eval/fetch.ts)`);
  await initChunking();
  const repos = readdirSync(EVAL_CACHE).filter((r) => existsSync(join(EVAL_CACHE, r, 'tree')) && (!only || only.has(r))).sort();
  const all: Sizes = { own: [], embedded: [] };
  const lines = [
    '| tree | code units | own text: mean | p5 | median | p95 | under 200 | embedded view: mean | p5 | median | p95 | under 200 |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of repos) {
    const s = await measure(join(EVAL_CACHE, r, 'tree'));
    process.stderr.write(`units: ${r} done\n`);
    if (!s.own.length) continue; // a documentation-only tree
    all.own.push(...s.own);
    all.embedded.push(...s.embedded);
    lines.push(row(r, s));
  }
  lines.push(row('all', all));
  console.log(lines.join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
