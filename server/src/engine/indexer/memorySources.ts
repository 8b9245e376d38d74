/**
 * Sources the indexer reads from Quarry's own memory (`.quarry/memory/`), which discovery never enters:
 * today the agents' pattern log, indexed as reasoning chunks (memory/patterns.ts, chunking/patterns.ts).
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { DiscoveredFile } from '../types';
import { PATTERNS_PATH, REASONING_LANGUAGE } from '../memory/patterns';

export function isMemoryPath(rel: string): boolean {
  return rel === PATTERNS_PATH;
}

/** The pattern log as a discovered file, or undefined when it does not exist (yet). */
export async function memoryFile(root: string): Promise<DiscoveredFile | undefined> {
  const absPath = join(root, PATTERNS_PATH);
  try {
    const st = await fs.stat(absPath);
    if (!st.isFile()) return undefined;
    return { path: PATTERNS_PATH, absPath, language: REASONING_LANGUAGE, size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return undefined;
  }
}
