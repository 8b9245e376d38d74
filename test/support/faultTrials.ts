/**
 * Helpers for the fault-injection suites (issue 20): a small real workspace in two versions, a seeded random
 * source, the CLI killed at a chosen moment, and a fingerprint of an index's answers to a fixed set of queries
 * (taken in-process with the real engine, so that a trial costs one CLI start less per query).
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, writeFiles } from './workspace';
import { Engine } from '../../server/src/engine/engine';
import { CHECKPOINT_FILE } from '../../server/src/engine/indexer/checkpoint';
import { GENERATION_TABLES, listGenerations, resolveGeneration } from '../../server/src/engine/store/generations';

/** A small seeded PRNG (mulberry32: reproducible kill points). */
export { prng as seededRandom } from '../../bench/metrics';

export type TrialConfig = 'rules' | 'default';

/** `rules`: BM25 only (no embedder, no reranker). `default`: no config file (the bundled static model and reranker). */
export function writeConfig(root: string, config: TrialConfig): void {
  mkdirSync(join(root, '.quarry'), { recursive: true });
  const file = join(root, '.quarry', 'config.yml');
  if (config === 'rules') writeFileSync(file, 'embedding:\n  provider: none\nrerank:\n  provider: none\n');
  else rmSync(file, { force: true });
}

const ts = (i: number, verb: string) =>
  `/** ${verb} the settings record number ${i} from its text form. */\nexport function loadSettings${i}(text: string): Record<string, unknown> {\n  const out: Record<string, unknown> = {};\n  for (const line of text.split('\\n')) {\n    const [k, v] = line.split('=');\n    if (k) out[k.trim()] = v?.trim();\n  }\n  return out;\n}\n\nexport class Cache${i} {\n  private readonly map = new Map<string, number>();\n  /** Stores a value under a key for item ${i}. */\n  put(key: string, value: number): void {\n    this.map.set(key, value);\n  }\n}\n`;
const retry = (i: number, how = 'exponential backoff') =>
  `/** Retries an HTTP request ${i} with ${how}. */\nexport async function retryRequest${i}(url: string, attempts = 3): Promise<Response> {\n  for (let n = 0; ; n++) {\n    try {\n      return await fetch(url);\n    } catch (e) {\n      if (n + 1 >= attempts) throw e;\n      await new Promise((r) => setTimeout(r, 2 ** n * 100));\n    }\n  }\n}\n`;

/** Version A of the workspace: 14 TypeScript files (one grammar: a trial pays for one parser load). */
export function writeVersionA(root: string): void {
  const files: Record<string, string> = {};
  for (let i = 0; i < 10; i++) files[`src/settings${i}.ts`] = ts(i, 'Parses');
  for (let i = 0; i < 4; i++) files[`src/net/retry${i}.ts`] = retry(i);
  writeFiles(root, files);
}

/** A → B: two files changed, one deleted, two added (what an incremental run has to do). */
export function applyVersionB(root: string): void {
  writeFiles(root, {
    'src/settings2.ts': ts(2, 'Decodes').replace('loadSettings2', 'decodeSettings2'),
    'src/net/retry1.ts': retry(1, 'jittered backoff and a deadline'),
    'src/tokenBucket.ts': `/** A token bucket rate limiter: take() spends a token, refill() adds them back over time. */\nexport class TokenBucket {\n  constructor(private tokens: number) {}\n  take(): boolean {\n    if (this.tokens <= 0) return false;\n    this.tokens--;\n    return true;\n  }\n}\n`,
    'src/net/checksum.ts': `/** Computes the CRC-32 checksum of a byte string. */\nexport function crc32Checksum(data: Uint8Array): number {\n  let c = ~0;\n  for (const b of data) c = (c >>> 8) ^ TABLE[(c ^ b) & 0xff]!;\n  return ~c >>> 0;\n}\nconst TABLE: number[] = [];\n`,
  });
  rmSync(join(root, 'src', 'settings7.ts'));
}

/** Queries whose answers are compared: identifiers, phrases, and ones that only version B answers. */
export const QUERIES = ['loadSettings3', 'decodeSettings2', 'retry request with backoff', 'TokenBucket take', 'crc32 checksum', 'Cache5 put value', 'settings7'];

export interface Fingerprint {
  chunks: number;
  files: number;
  answers: Record<string, string[]>;
}

/** The index's answers to QUERIES (path:lines in rank order) and its size, from the real engine in this process. */
export async function fingerprint(root: string): Promise<Fingerprint & { warnings: string[]; problems: string[]; notes: string[] }> {
  const engine = await Engine.open(root);
  try {
    const status = await engine.status();
    const answers: Record<string, string[]> = {};
    const warnings: string[] = [];
    for (const q of QUERIES) {
      const r = await engine.search(q, { limit: 8, explain: false });
      answers[q] = r.matches.map((m) => `${m.file.path}:${m.content.line_range.join('-')}`);
      warnings.push(...r.warnings);
    }
    return { chunks: status.chunks, files: status.files, answers, warnings: [...new Set(warnings)], problems: status.problems, notes: status.notes };
  } finally {
    await engine.close();
  }
}

export interface KillRun {
  /** True when the process was still running when SIGKILL reached it. */
  killed: boolean;
  exitCode: number | null;
  stderr: string;
}

/** Starts `quarry <args>` and kills it with SIGKILL after `afterMs` (unless it ended before). */
export function runAndKill(args: string[], afterMs: number): Promise<KillRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, QUARRY_LOG_LEVEL: 'silent' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    let sent = false;
    const timer = setTimeout(() => {
      sent = child.kill('SIGKILL');
    }, afterMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ killed: sent && signal === 'SIGKILL', exitCode: code, stderr });
    });
  });
}

/** Wall time of an uninterrupted `quarry <args>` (ms), to place kill points inside it. */
export async function timeRun(args: string[]): Promise<number> {
  const t0 = Date.now();
  const r = await runAndKill(args, 10 * 60_000);
  if (r.exitCode !== 0) throw new Error(`quarry ${args.join(' ')} exited ${r.exitCode}: ${r.stderr}`);
  return Date.now() - t0;
}

/** Replaces `dst` with a copy of `src` (a workspace with its index). */
export function copyTree(src: string, dst: string): void {
  if (existsSync(dst)) rmSync(dst, { recursive: true, force: true });
  cpSync(src, dst, { recursive: true });
}

/** The folder of the generation an index answers from now (`.quarry/` itself for generation 0). */
export function currentGenerationDir(root: string): string {
  return resolveGeneration(join(root, '.quarry')).generation.dir;
}

/**
 * What the generations of an index look like on disk: the current one, every generation folder, whether generation 0's
 * files are there beside a later current generation, and whether a checkpoint is left. Clean: one generation, no
 * leftovers.
 */
export function generationLayout(root: string): { current: string; folders: string[]; zeroLeftovers: string[]; checkpoint: boolean } {
  const q = join(root, '.quarry');
  const current = resolveGeneration(q).generation.name;
  const zero = ['state.json', 'store.json', 'lexical', ...GENERATION_TABLES.map((t) => join('lancedb', `${t}.lance`))];
  const zeroLeftovers = current === '' ? [] : zero.filter((f) => existsSync(join(q, f)));
  return { current, folders: listGenerations(q), zeroLeftovers, checkpoint: existsSync(join(q, CHECKPOINT_FILE)) };
}

/** Problems in a layout after a complete run: more folders than the current generation, leftovers, a checkpoint. */
export function layoutProblems(root: string): string[] {
  const l = generationLayout(root);
  const out: string[] = [];
  const extra = l.folders.filter((f) => f !== l.current);
  if (extra.length) out.push(`generation folders left beside the current one (${l.current || 'generation 0'}): ${extra.join(', ')}`);
  if (l.zeroLeftovers.length) out.push(`generation 0 files left: ${l.zeroLeftovers.join(', ')}`);
  if (l.checkpoint) out.push('a checkpoint is left');
  return out;
}

/** Every entry directly under `dir` ([] when it does not exist). */
export function entries(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}
