/**
 * A chunking worker thread (chunkPool.ts): reads, hashes and chunks the files it is sent, one message per file.
 * Built as its own bundle (dist/chunk-worker.js) next to the CLI's; under tsx it runs from this source file.
 */
import { parentPort } from 'node:worker_threads';
import { prepareFile, type FileJob } from './fileWork';

const port = parentPort;
/** Files are done one at a time, in the order sent (the pool keeps a few queued per worker). */
let queue: Promise<void> = Promise.resolve();
if (port) {
  port.on('message', (message: { id: number; job: FileJob }) => {
    queue = queue.then(() =>
      prepareFile(message.job).then(
        (work) => port.postMessage({ id: message.id, work }),
        (e: unknown) => port.postMessage({ id: message.id, failed: e instanceof Error ? e.message : String(e) }),
      ),
    );
  });
}
