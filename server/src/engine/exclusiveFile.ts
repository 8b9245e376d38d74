/**
 * Lock files that are never seen empty (issue 20): the indexer's lock (indexer/lock.ts) and the short cross-process
 * locks of the store and the memory logs (fileLock.ts).
 */
import { closeSync, linkSync, openSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';

/**
 * Creates `path` with `content`, failing with EEXIST when it exists, so that it is never seen empty: the content is
 * written to a file of this process's own and hard-linked into place (one atomic step). A process killed between
 * creating an empty lock file and filling it left a lock that blocked the next run for the grace period (issue 20's
 * kill trials). Where hard links are not supported, the file is created exclusively and then written.
 */
export function createFilled(path: string, content: string): void {
  const own = `${path}.${process.pid}.new`;
  let linked = false;
  try {
    writeFileSync(own, content);
    linkSync(own, path);
    linked = true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || !['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'].includes(code ?? '')) throw e;
  } finally {
    rmSync(own, { force: true });
  }
  if (linked) return;
  const fd = openSync(path, 'wx');
  try {
    writeSync(fd, content);
  } catch (e) {
    // Disk full: an empty lock file would block every indexer for a while; leave none.
    closeSync(fd);
    try {
      unlinkSync(path);
    } catch {
      /* gone */
    }
    throw e;
  }
  closeSync(fd);
}
