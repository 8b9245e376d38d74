/**
 * A chunking worker thread (chunkPool.ts): reads, hashes and chunks the files it is sent, one message per file, and
 * computes a derived-conformance pass's facts of files it is sent (a language definition's `factsOf`).
 * Built as its own bundle (dist/chunk-worker.js) next to the CLI's; under tsx it runs from this source file.
 */
import { parentPort } from 'node:worker_threads';
import { languageDefinition } from '../chunking/languages/registry';
import type { DerivedFileChunks } from '../chunking/languages/types';
import { prepareFile, type FileJob } from './fileWork';

export type WorkerRequest = { id: number; job: FileJob } | { id: number; derive: { language: string; files: DerivedFileChunks[] } };

const port = parentPort;
/** Requests are done one at a time, in the order sent (the pool keeps a few queued per worker). */
let queue: Promise<void> = Promise.resolve();
if (port) {
  port.on('message', (message: WorkerRequest) => {
    queue = queue.then(() =>
      answer(message).then(
        (reply) => port.postMessage({ id: message.id, ...reply }),
        (e: unknown) => port.postMessage({ id: message.id, failed: e instanceof Error ? e.message : String(e) }),
      ),
    );
  });
}

async function answer(message: WorkerRequest): Promise<{ work: unknown } | { facts: unknown[] }> {
  if ('job' in message) return { work: await prepareFile(message.job) };
  const derived = languageDefinition(message.derive.language)?.derivedConformances;
  if (!derived) throw new Error(`${message.derive.language} derives no conformances`);
  return { facts: await derived.factsOf(message.derive.files) };
}
