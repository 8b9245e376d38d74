/**
 * What went wrong with the index on disk, told apart: a problem of the environment (disk full, no permission,
 * read-only file system, another live process holding a lock) is NOT damage. The index is derived data, but it is
 * only deleted or reset when it is proven damaged; environmental failures are reported as what they are, with the
 * operation and the fix, and the index is left as it was.
 */
import { FileLockedError } from '../fileLock';

export type EnvironmentCause = 'ENOSPC' | 'EDQUOT' | 'EACCES' | 'EPERM' | 'EROFS' | 'EMFILE' | 'ENFILE' | 'EIO' | 'LOCKED' | 'PANIC';

const CAUSES: Record<EnvironmentCause, { what: string; fix: string }> = {
  ENOSPC: { what: 'No space left on device', fix: 'free disk space and run the command again' },
  EDQUOT: { what: 'Disk quota exceeded', fix: 'free space in your quota and run the command again' },
  EACCES: { what: 'Permission denied', fix: 'give your user write access to the .quarry folder (or run as its owner) and run the command again' },
  EPERM: { what: 'Operation not permitted', fix: 'check the folder\'s permissions and attributes (e.g. chattr +i) and run the command again' },
  EROFS: { what: 'Read-only file system', fix: 'an existing index stays searchable, but to build or update it make the file system writable and run `quarry index`' },
  EMFILE: { what: 'Too many open files', fix: 'raise the open-file limit (ulimit -n) and run the command again' },
  ENFILE: { what: 'Too many open files in the system', fix: 'close other programs or raise the system limit and run the command again' },
  EIO: { what: 'Input/output error', fix: 'check the disk (dmesg) and run the command again' },
  LOCKED: { what: 'Another Quarry process holds the lock', fix: 'wait for it to finish (or stop it) and run the command again' },
  // LanceDB's native code stopped (a Rust panic: its message is printed on stderr; every later call in the process then
  // fails with a "poisoned" lock). Seen with a malformed LANCE_* variable (LANCE_CPU_THREADS=""): not proof that the
  // files are damaged, so the index is not reset for it (issue 21: it was, and a 96k-chunk index was lost).
  PANIC: {
    what: 'LanceDB\'s native library stopped with an internal error (a panic; its message is above on stderr)',
    fix: 'check the LANCE_* and LANCEDB_* environment variables (LANCE_CPU_THREADS and LANCE_IO_THREADS must be whole numbers) and run the command again; if it persists, `quarry index --full` rebuilds the index',
  },
};

/** Patterns of the native (LanceDB, Rust) messages, which carry no errno code. */
const NATIVE: Array<[RegExp, EnvironmentCause]> = [
  [/no space left on device|os error 28\b|ENOSPC/i, 'ENOSPC'],
  [/disk quota exceeded|os error 122\b|EDQUOT/i, 'EDQUOT'],
  [/read-only file system|os error 30\b|EROFS/i, 'EROFS'],
  [/permission denied|os error 13\b|EACCES/i, 'EACCES'],
  [/operation not permitted|os error 1\b|EPERM/i, 'EPERM'],
  [/too many open files|os error 24\b|EMFILE/i, 'EMFILE'],
  [/input\/output error|os error 5\b/i, 'EIO'],
  [/^Panic in async function|instance has previously been poisoned|\bpanicked at\b/i, 'PANIC'],
];

/** The environmental cause of an error, or undefined when it is something else (possibly damage). */
export function environmentCause(e: unknown): EnvironmentCause | undefined {
  if (e instanceof FileLockedError) return 'LOCKED';
  if (e instanceof IndexUnavailableError) return e.cause;
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code && code in CAUSES) return code as EnvironmentCause;
  const msg = e instanceof Error ? e.message : String(e);
  for (const [re, cause] of NATIVE) if (re.test(msg)) return cause;
  return undefined;
}

/**
 * The index could not be used because of the environment (not damage): names the cause, the operation and the fix,
 * and says the index was left as it was.
 */
export class IndexUnavailableError extends Error {
  constructor(
    override readonly cause: EnvironmentCause,
    readonly operation: string,
    readonly path: string,
    readonly detail?: string,
  ) {
    const c = CAUSES[cause];
    super(`${c.what} while ${operation} at ${path}${detail ? ` (${detail})` : ''}: ${c.fix}; the index was left as it was.`);
    this.name = 'IndexUnavailableError';
  }
}

/** Rethrows `e` as an IndexUnavailableError when its cause is environmental; otherwise returns it unchanged. */
export function asEnvironmentError(e: unknown, operation: string, path: string): unknown {
  if (e instanceof IndexUnavailableError) return e;
  const cause = environmentCause(e);
  if (!cause) return e;
  const detail = e instanceof FileLockedError ? e.message : undefined;
  return new IndexUnavailableError(cause, operation, path, detail);
}

/** The table or folder is unreadable for a reason that is not the environment: proven damage (reset is allowed). */
export class StoreDamagedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreDamagedError';
  }
}
