/**
 * Running git: `execFile` (no shell), `-c core.quotepath=off`, a timeout, an AbortSignal, output as a Buffer.
 * Failures become a `GitError` whose `kind` says why: the executable is missing, it timed out, the caller aborted,
 * or git ran and failed (exit status and stderr kept).
 */
import { execFile, spawn } from 'node:child_process';

export interface GitRunOptions {
  /** The git executable: a name looked up on PATH (`env.PATH` when `env` is given) or a path. Default `git`. */
  gitPath?: string;
  /** Environment for git (default: this process's). Variables that redirect git (GIT_DIR, ...) are removed. */
  env?: NodeJS.ProcessEnv;
  /** Kill git after this many milliseconds (default 30 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Largest stdout accepted (default 256 MiB); more is a failure. */
  maxBytes?: number;
}

export type GitFailureKind = 'missing' | 'timeout' | 'aborted' | 'failed';

export class GitError extends Error {
  constructor(
    message: string,
    readonly kind: GitFailureKind,
    readonly exitCode?: number,
    readonly stderr = '',
  ) {
    super(message);
    this.name = 'GitError';
  }
}

/**
 * Variables a parent git may have set (a hook running `quarry index`) that would point git at another repository,
 * work tree or index file; the workspace is found from the working directory instead.
 */
const REDIRECTING = [
  'GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_PREFIX', 'GIT_NAMESPACE',
];

export function gitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const k of REDIRECTING) delete env[k];
  // English messages (for "not a git repository"), no prompts, no optional locks: these are read-only commands that
  // run beside the user's own git.
  env.LC_ALL = 'C';
  env.LANGUAGE = 'C';
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_OPTIONAL_LOCKS = '0';
  return env;
}

/** Runs `git -c core.quotepath=off <args>` in `cwd`; resolves with stdout, rejects with a GitError. */
export function runGit(cwd: string, args: readonly string[], options: GitRunOptions = {}): Promise<Buffer> {
  const git = options.gitPath ?? 'git';
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new GitError(`git ${args[0] ?? ''} aborted`, 'aborted'));
      return;
    }
    try {
      execFile(
        git,
        ['-c', 'core.quotepath=off', ...args],
        {
          cwd, env: gitEnv(options.env), timeout: timeoutMs, killSignal: 'SIGKILL', signal: options.signal,
          maxBuffer: options.maxBytes ?? 256 * 1024 * 1024, encoding: 'buffer', windowsHide: true,
        },
        (err, stdout, stderr) => {
          if (!err) {
            resolve(stdout);
            return;
          }
          reject(toGitError(err as ExecError, git, args, timeoutMs, options.signal, String(stderr ?? '')));
        },
      );
    } catch (e) {
      // execFile throws synchronously for some invalid arguments (e.g. a NUL byte in a path).
      reject(new GitError(`git ${args[0] ?? ''} could not start: ${(e as Error).message}`, 'failed'));
    }
  });
}

type ExecError = Error & { code?: number | string; killed?: boolean; signal?: NodeJS.Signals | null };

function toGitError(err: ExecError, git: string, args: readonly string[], timeoutMs: number, signal: AbortSignal | undefined, stderr: string): GitError {
  const command = `git ${args[0] ?? ''}`.trim();
  if (signal?.aborted || err.name === 'AbortError' || err.code === 'ABORT_ERR') return new GitError(`${command} aborted`, 'aborted');
  if (err.code === 'ENOENT') return new GitError(`git executable not found (${git})`, 'missing');
  if (err.code === 'EACCES') return new GitError(`git executable not runnable (${git}: permission denied)`, 'missing');
  if (err.killed && err.signal) return new GitError(`${command} timed out after ${timeoutMs} ms`, 'timeout');
  if (err.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return new GitError(`${command} produced too much output`, 'failed');
  const exit = typeof err.code === 'number' ? err.code : undefined;
  const detail = firstLine(stderr) || err.message;
  return new GitError(`${command} failed${exit !== undefined ? ` (exit ${exit})` : ''}: ${detail}`, 'failed', exit, stderr);
}

function firstLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  // git prints hints after the error; the `fatal:` / `error:` line is the useful one.
  return lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[0] ?? '';
}

export interface GitStreamOptions extends GitRunOptions {
  /** Receives stdout as it arrives, one line at a time (without the newline; a Buffer that is only valid during the call). */
  onLine: (line: Buffer) => void;
}

/**
 * Runs `git -c core.quotepath=off <args>` in `cwd` and streams stdout line by line (for outputs too large to buffer:
 * `git log -p` over a whole history). Resolves when git exits with status 0; rejects with a GitError like `runGit`
 * (also when `onLine` throws: git is killed). `maxBytes` does not apply; `timeoutMs` (default 30 s) does.
 */
export function streamGit(cwd: string, args: readonly string[], options: GitStreamOptions): Promise<void> {
  const git = options.gitPath ?? 'git';
  const timeoutMs = options.timeoutMs ?? 30_000;
  // The subcommand's name for messages: the first argument that is not an option or a `-c` value.
  const command = `git ${args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '-c') ?? ''}`.trim();
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new GitError(`${command} aborted`, 'aborted'));
      return;
    }
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(git, ['-c', 'core.quotepath=off', ...args], { cwd, env: gitEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    } catch (e) {
      reject(new GitError(`${command} could not start: ${(e as Error).message}`, 'failed'));
      return;
    }
    let settled = false;
    let failure: GitError | undefined;
    const stderr: Buffer[] = [];
    let stderrBytes = 0;
    const kill = (why: GitError) => {
      failure ??= why;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill(new GitError(`${command} timed out after ${timeoutMs} ms`, 'timeout')), timeoutMs);
    const onAbort = () => kill(new GitError(`${command} aborted`, 'aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (error?: GitError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    };
    let rest: Buffer | undefined;
    child.stdout!.on('data', (chunk: Buffer) => {
      if (failure) return;
      let data = rest ? Buffer.concat([rest, chunk]) : chunk;
      rest = undefined;
      let start = 0;
      try {
        for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
          options.onLine(data.subarray(start, nl));
          start = nl + 1;
        }
      } catch (e) {
        kill(new GitError(`${command} output could not be read: ${(e as Error).message}`, 'failed'));
        return;
      }
      if (start < data.length) rest = Buffer.from(data.subarray(start));
      data = Buffer.alloc(0);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderrBytes < 64 * 1024) stderr.push(chunk);
      stderrBytes += chunk.length;
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') finish(new GitError(`git executable not found (${git})`, 'missing'));
      else if (err.code === 'EACCES') finish(new GitError(`git executable not runnable (${git}: permission denied)`, 'missing'));
      else finish(new GitError(`${command} failed: ${err.message}`, 'failed'));
    });
    child.on('close', (code) => {
      if (failure) return finish(failure);
      if (code === 0) {
        try {
          if (rest?.length) options.onLine(rest);
        } catch (e) {
          return finish(new GitError(`${command} output could not be read: ${(e as Error).message}`, 'failed'));
        }
        return finish();
      }
      const text = Buffer.concat(stderr).toString('utf8');
      finish(new GitError(`${command} failed${code !== null ? ` (exit ${code})` : ''}: ${firstLine(text) || 'no message'}`, 'failed', code ?? undefined, text));
    });
  });
}
