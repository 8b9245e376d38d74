/**
 * How cost grows with the index: nested subsets of all corpora (files in a fixed shuffled order) sized to
 * about 1k, 10k and 100k chunks, each indexed cold and queried warm with the same mixed query texts.
 */
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Engine } from '../server/src/engine/engine';
import type { CorpusResult } from './run';
import { latency, LatencyReport, sample } from './metrics';

export interface GrowthPoint {
  targetChunks: number;
  files: number;
  chunks: number;
  coldMs: number;
  peakRssMb: number | null;
  diskMb: number;
  query: LatencyReport;
}

interface Source {
  name: string;
  dir: string;
  chunksPerFile: number;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.quarry') continue;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

export async function growthCurve(
  sources: Source[],
  targets: number[],
  queries: string[],
  workDir: string,
  indexDir: (dir: string) => { chunks: number; files: number; coldMs: number; peakRssMb: number | null; diskMb: number },
): Promise<GrowthPoint[]> {
  const pool = sources.flatMap((s) => listFiles(s.dir).map((f) => ({ src: s, rel: f })));
  const order = sample(pool, pool.length, 7);
  const points: GrowthPoint[] = [];
  const total = sources.reduce((n, s) => n + s.chunksPerFile * listFiles(s.dir).length, 0);
  for (const target of targets) {
    if (target > total * 1.05) break;
    const dir = join(workDir, `growth-${target}`);
    rmSync(dir, { recursive: true, force: true });
    let est = 0;
    let files = 0;
    for (const { src, rel } of order) {
      if (est >= target) break;
      const dst = join(dir, src.name, rel);
      mkdirSync(dirname(dst), { recursive: true });
      cpSync(join(src.dir, rel), dst);
      est += src.chunksPerFile;
      files++;
    }
    const idx = indexDir(dir);
    const engine = await Engine.open(dir);
    for (const q of queries.slice(0, 5)) await engine.search(q, { limit: 10 });
    const times: number[] = [];
    for (const q of queries) {
      const t = performance.now();
      await engine.search(q, { limit: 10 });
      times.push(performance.now() - t);
    }
    await engine.close();
    points.push({ targetChunks: target, files, chunks: idx.chunks, coldMs: idx.coldMs, peakRssMb: idx.peakRssMb, diskMb: idx.diskMb, query: latency(times) });
    rmSync(dir, { recursive: true, force: true });
  }
  return points;
}

export function growthSources(results: CorpusResult[], strippedDir: (name: string) => string): Source[] {
  return results.map((r) => ({ name: r.corpus.name, dir: strippedDir(r.corpus.name), chunksPerFile: r.index.chunks / Math.max(1, r.corpus.files) }));
}

