/**
 * Turns training/.cache/pairs.jsonl into the model's input features with the engine's own feature code
 * (server/src/engine/embedding/static/features.ts), so training and run time share one tokenizer.
 *
 *   npx tsx training/encode-pairs.ts [--vocab 60000] [--buckets 32768] [--min-df 5]
 *
 * Writes training/.cache/encoded/: vocab.json, spec.json, and per split (train, valid) and per field
 * (q, doc, code) three little-endian arrays — <field>.rows.u32, <field>.weights.f32, <field>.offsets.u32
 * (n + 1 offsets into the rows) — plus <split>.meta.json (language and package per pair).
 */
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { featuresOf, subwords, FeatureSpec } from '../server/src/engine/embedding/static/features';
import type { Pair } from './extract-pairs';

const HERE = __dirname;
const IN = process.env.QUARRY_PAIRS ?? join(HERE, '.cache', 'pairs.jsonl');
const OUT = process.env.QUARRY_ENCODED ?? join(HERE, '.cache', 'encoded');
const FIELDS = ['q', 'doc', 'code'] as const;

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}

async function readPairs(): Promise<Pair[]> {
  const out: Pair[] = [];
  const rl = createInterface({ input: createReadStream(IN), crlfDelay: Infinity });
  for await (const line of rl) if (line.trim()) out.push(JSON.parse(line) as Pair);
  return out;
}

export const MAX_WORDS = 1024;

async function main(): Promise<void> {
  const vocabSize = arg('vocab', 60_000);
  const buckets = arg('buckets', 32_768);
  const minDf = arg('min-df', 5);
  const pairs = await readPairs();
  process.stderr.write(`encode: ${pairs.length} pairs\n`);

  // Vocabulary: sub-words and joined identifiers by document frequency over the training split.
  const df = new Map<string, number>();
  for (const p of pairs) {
    if (p.split !== 'train') continue;
    for (const text of [p.q, p.code]) {
      const seen = new Set<string>();
      subwords(text, MAX_WORDS, (w, joined) => {
        seen.add(w);
        if (joined) seen.add(joined);
      });
      for (const w of seen) df.set(w, (df.get(w) ?? 0) + 1);
    }
  }
  const words = [...df.entries()]
    .filter(([, n]) => n >= minDf)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, vocabSize)
    .map(([w]) => w);
  const spec: FeatureSpec = { vocab: new Map(words.map((w, i) => [w, i])), buckets, maxWords: MAX_WORDS };
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'vocab.json'), JSON.stringify(words));
  writeFileSync(join(OUT, 'spec.json'), JSON.stringify({ vocab: words.length, buckets, maxWords: MAX_WORDS, rows: words.length + buckets }));
  process.stderr.write(`encode: vocabulary ${words.length} words (df >= ${minDf}), ${buckets} trigram buckets\n`);

  for (const split of ['train', 'valid'] as const) {
    const subset = pairs.filter((p) => p.split === split);
    for (const field of FIELDS) {
      const rows: number[] = [];
      const weights: number[] = [];
      const offsets = new Uint32Array(subset.length + 1);
      subset.forEach((p, i) => {
        const f = featuresOf(p[field], spec);
        for (let k = 0; k < f.rows.length; k++) {
          rows.push(f.rows[k]!);
          weights.push(f.weights[k]!);
        }
        offsets[i + 1] = rows.length;
      });
      writeFileSync(join(OUT, `${split}.${field}.rows.u32`), new Uint32Array(rows));
      writeFileSync(join(OUT, `${split}.${field}.weights.f32`), new Float32Array(weights));
      writeFileSync(join(OUT, `${split}.${field}.offsets.u32`), offsets);
    }
    writeFileSync(join(OUT, `${split}.meta.json`), JSON.stringify(subset.map((p) => [p.lang, p.pkg])));
    process.stderr.write(`encode: ${split}: ${subset.length} pairs\n`);
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
