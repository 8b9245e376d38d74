/**
 * The per-file work of an indexing run: read the file, hash it, and chunk it unless its content is the one already
 * indexed. Pure of the run's bookkeeping (the summary, the records), so that it can run in a worker thread
 * (chunkPool.ts) as well as in the indexing thread; the run applies the results in file order.
 */
import { createHash } from 'node:crypto';
import type { ChunkingConfig } from '../config/schema';
import type { Chunk, SkipReason } from '../types';
import { readTextFile, type ReadTextOptions } from '../discovery/readText';
import { chunkFile } from '../chunking';

export interface FileJob {
  path: string;
  absPath: string;
  language: string;
  /** The content hash of the file's record: a file whose content has it is not chunked again. */
  previousHash?: string;
  read: ReadTextOptions;
  chunking: ChunkingConfig;
}

export type FileWork =
  | { kind: 'skip'; skip: SkipReason; detail: string }
  | { kind: 'unchanged'; hash: string }
  | { kind: 'chunks'; hash: string; chunks: Chunk[] }
  | { kind: 'error'; error: { path: string; operation: 'read' | 'chunk'; message: string } };

/** Reads and chunks one file; retries once on failure (seed 002 FR-009a), never throws. */
export async function prepareFile(job: FileJob): Promise<FileWork> {
  let lastError: { path: string; operation: 'read' | 'chunk'; message: string } | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    let text: string;
    try {
      const read = await readTextFile(job.absPath, job.read);
      if ('skip' in read) return { kind: 'skip', skip: read.skip, detail: read.detail };
      text = read.text;
    } catch (e) {
      lastError = { path: job.path, operation: 'read', message: (e as Error).message };
      continue;
    }
    const hash = createHash('sha256').update(text).digest('hex');
    if (job.previousHash === hash) return { kind: 'unchanged', hash };
    try {
      const chunks = await chunkFile({ path: job.path, language: job.language, content: text }, job.chunking);
      return { kind: 'chunks', hash, chunks };
    } catch (e) {
      lastError = { path: job.path, operation: 'chunk', message: (e as Error).message };
    }
  }
  return { kind: 'error', error: lastError! };
}
