/** How the benchmarks start a build's CLI: as a user's `quarry` starts (its bundle's shebang). */
import { readFileSync } from 'node:fs';

/**
 * How a build's `quarry` starts when a user runs it: the environment variables and node flags of its bundle's shebang
 * (`#!/usr/bin/env -S MALLOC_ARENA_MAX=2 … node --liftoff-only …`), so that the benchmark measures what ships (the
 * variables yield to the benchmark's own environment, for experiments). A bundle without one gets `--liftoff-only`.
 */
export function shippedLaunch(cli: string): { env: Record<string, string>; flags: string[] } {
  const first = readFileSync(cli, 'utf8').split('\n', 1)[0] ?? '';
  const m = /^#!\S*env\s+-S\s+(.*)$/.exec(first);
  if (!m) return { env: {}, flags: ['--liftoff-only'] };
  const words = m[1]!.trim().split(/\s+/);
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!); i++) {
    const [k, ...v] = words[i]!.split('=');
    env[k!] = v.join('=');
  }
  return { env, flags: words.slice(i + 1).filter((w) => w.startsWith('--')) };
}
