/**
 * Line attribution for a whole workspace from ONE `git log` stream ("history replay"), instead of one `git blame`
 * process per file.
 *
 * `git log --first-parent --reverse -p -U0 -M` prints every first-parent commit, oldest first, with the zero-context
 * hunks it made to each file (a merge: its diff against the first parent). Replaying those hunks keeps, for every file,
 * which commit last touched each of its lines; a final `git diff -U0 HEAD` adds the working tree's uncommitted edits
 * (the all-zero commit, as `git blame` reports them). The result has the shape of a parsed blame (`BlameResult`), so
 * `chunkBlameStats` gives the per-chunk numbers either way.
 *
 * The attribution is that of `git blame --first-parent` on the working tree: lines that reached the branch through a
 * merge belong to the merge commit (with plain `git blame`, to the side branch's commits). Whole-file renames inside
 * the workspace are followed (`-M`, like blame); renames from outside the workspace folder, and copies, start afresh.
 *
 * A file whose diffs cannot be replayed (binary diffs, output this parser does not expect) is left out, and so is a
 * file whose replayed line count differs from the working tree (`verifyLineCounts`): the caller blames those.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlameCommit, BlameResult } from './blame';
import { GitError, streamGit, type GitRunOptions } from './run';

export interface LineHistory {
  commits: BlameCommit[];
  /**
   * Workspace-relative path → the commit index (into `commits`) of each line, line 1 at `[0]`: arrays while the replay
   * runs, the smallest typed array once it is done (`replayHistory`).
   */
  files: Map<string, number[] | Uint16Array | Uint32Array>;
  /** Paths whose history could not be replayed (binary diffs, unexpected output): blame them instead. */
  unreliable: Set<string>;
  /** Bytes of `git log` output read. */
  bytes: number;
}

export interface ReplayOptions extends Pick<GitRunOptions, 'gitPath' | 'env' | 'signal'> {
  /** Kill `git log` after this long (default 10 minutes: the pass runs after the index is searchable). */
  timeoutMs?: number;
}

/** Options that make `git log` / `git diff` output what the parser reads, whatever the user's configuration. */
const DIFF_ARGS = [
  '-p', '-U0', '--no-color', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/', '--relative',
  '--diff-algorithm=myers', '--inter-hunk-context=0',
];
const COMMIT_MARK = 0x01;

/**
 * Replays the first-parent history of HEAD (limited to the workspace folder `root`) and the working tree's edits.
 * HEAD must exist (the caller handles an unborn branch: every line is uncommitted). Throws a GitError when git fails
 * (the caller falls back to blame) or `signal` aborts.
 */
export async function replayHistory(root: string, options: ReplayOptions = {}): Promise<LineHistory> {
  const history: LineHistory = { commits: [], files: new Map(), unreliable: new Set(), bytes: 0 };
  const parser = new DiffReplayer(history);
  const run = { gitPath: options.gitPath, env: options.env, signal: options.signal, timeoutMs: options.timeoutMs ?? 600_000 };
  const onLine = (line: Buffer) => {
    history.bytes += line.length + 1;
    parser.line(line);
  };
  await streamGit(
    root,
    [
      '-c', 'log.showSignature=false', '-c', 'log.follow=false', 'log', '--first-parent', '--diff-merges=first-parent', '--reverse', '--no-decorate',
      '--find-renames', '--format=format:%x01%H %at', ...DIFF_ARGS, 'HEAD', '--', '.',
    ],
    { ...run, onLine },
  );
  // The working tree against HEAD (staged and unstaged edits, files added to the index): the all-zero commit.
  parser.commit({ sha: '0'.repeat(40), authorTimeMs: 0, committerTimeMs: 0, uncommitted: true });
  await streamGit(root, ['diff', '--no-renames', ...DIFF_ARGS, 'HEAD', '--', '.'], { ...run, onLine });
  parser.end();
  compactLines(history);
  return history;
}

/**
 * Each file's line → commit list as a typed array: 2 bytes a line (4 past 65,536 commits) instead of a JavaScript
 * array's 8 (issue 21: 24 MB of arrays for the Go tree's 3 million lines, held from the lexical phase, where a one-shot
 * run replays the history beside it, until the git pass at its end).
 */
function compactLines(history: LineHistory): void {
  const Typed = history.commits.length <= 0x10000 ? Uint16Array : Uint32Array;
  for (const [path, lines] of history.files) if (Array.isArray(lines)) history.files.set(path, Typed.from(lines));
}

/** The replayed lines of one file as a blame result; undefined when the file has none or is unreliable. */
export function historyBlame(history: LineHistory, path: string): BlameResult | undefined {
  if (history.unreliable.has(path)) return undefined;
  const lines = history.files.get(path);
  if (!lines) return undefined;
  const lineCommit = new Int32Array(lines.length + 1);
  lineCommit[0] = -1;
  for (let i = 0; i < lines.length; i++) lineCommit[i + 1] = lines[i];
  return { commits: history.commits, lineCommit, lineCount: lines.length };
}

/** Lines of a file as git counts them: newlines, plus one for a last line without a newline. */
export function countLines(content: Buffer): number {
  let n = 0;
  for (let i = content.indexOf(10); i >= 0; i = content.indexOf(10, i + 1)) n++;
  if (content.length > 0 && content[content.length - 1] !== 10) n++;
  return n;
}

/**
 * Marks unreliable every path (among `paths`) whose replayed line count differs from its working-tree file, and
 * returns those paths. A file that cannot be read is marked too.
 */
export async function verifyLineCounts(root: string, history: LineHistory, paths: readonly string[]): Promise<string[]> {
  const bad: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++];
      const lines = history.files.get(path);
      if (!lines || history.unreliable.has(path)) continue;
      const ok = await readFile(join(root, path)).then((b) => countLines(b) === lines.length, () => false);
      if (!ok) {
        history.unreliable.add(path);
        bad.push(path);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return bad;
}

/**
 * The `git log -p -U0` / `git diff -U0` parser and replayer. Reads header lines only; hunk bodies are skipped by the
 * counts in their `@@` headers, so file contents (any bytes) are never decoded.
 */
export class DiffReplayer {
  private current = -1;
  /** The file the hunks being read apply to (undefined: skip them). */
  private target: number[] | undefined;
  /** The diff being read: paths from its header. */
  private headerPath: string | undefined;
  private oldPath: string | null | undefined;
  private newPath: string | null | undefined;
  private renameFrom: string | undefined;
  private oldLeft = 0;
  private newLeft = 0;

  /** The history's files while it is replayed: arrays (they become typed arrays when the replay ends). */
  private get files(): Map<string, number[]> {
    return this.history.files as Map<string, number[]>;
  }

  constructor(private readonly history: LineHistory) {}

  commit(c: BlameCommit): void {
    this.endFile();
    this.current = this.history.commits.length;
    this.history.commits.push(c);
  }

  end(): void {
    this.endFile();
  }

  line(b: Buffer): void {
    if (this.oldLeft > 0 || this.newLeft > 0) {
      const c = b[0];
      if (c === 0x2d /* - */ && this.oldLeft > 0) {
        this.oldLeft--;
        return;
      }
      if (c === 0x2b /* + */ && this.newLeft > 0) {
        this.newLeft--;
        return;
      }
      if (c === 0x5c /* \ No newline at end of file */) return;
      // Not what the counts promised: this file's attribution cannot be trusted.
      this.markUnreliable();
      this.oldLeft = this.newLeft = 0;
    }
    if (b.length === 0) return;
    const c = b[0];
    if (c === COMMIT_MARK) {
      const text = b.toString('latin1', 1);
      const space = text.indexOf(' ');
      const sha = space < 0 ? text : text.slice(0, space);
      const at = space < 0 ? 0 : Number(text.slice(space + 1));
      this.commit({ sha, authorTimeMs: Number.isFinite(at) && at > 0 ? at * 1000 : 0, committerTimeMs: 0, uncommitted: false });
      return;
    }
    if (c === 0x5c && b.length > 1 && b[1] === 0x20 /* "\ No newline" after a hunk */) return;
    if (c === 0x64 /* d */ && startsWith(b, 'diff --git ')) {
      this.endFile();
      this.headerPath = headerPath(b.toString('utf8', 11));
      return;
    }
    if (c === 0x40 /* @ */ && startsWith(b, '@@ ')) {
      this.hunk(b.toString('latin1'));
      return;
    }
    if (c === 0x2d && startsWith(b, '--- ')) {
      this.oldPath = diffPath(b.toString('utf8', 4), 'a/');
      return;
    }
    if (c === 0x2b && startsWith(b, '+++ ')) {
      this.newPath = diffPath(b.toString('utf8', 4), 'b/');
      this.beginContent();
      return;
    }
    if (c === 0x6e /* n */ && startsWith(b, 'new file mode ')) {
      // An added file, also an empty one (no `---`/`+++` lines follow for it).
      if (this.headerPath !== undefined) {
        this.files.set(this.headerPath, []);
        this.history.unreliable.delete(this.headerPath);
      }
      return;
    }
    if (c === 0x72 /* r */ && startsWith(b, 'rename from ')) {
      this.renameFrom = unquote(b.toString('utf8', 12));
      return;
    }
    if (c === 0x72 && startsWith(b, 'rename to ')) {
      const to = unquote(b.toString('utf8', 10));
      if (this.renameFrom !== undefined) this.rename(this.renameFrom, to);
      return;
    }
    if (c === 0x42 /* B */ && startsWith(b, 'Binary files ')) {
      this.markUnreliable();
      return;
    }
    // Anything else (index, mode, similarity lines, `deleted file mode`, commit header text) needs nothing.
  }

  private rename(from: string, to: string): void {
    const files = this.files;
    const lines = files.get(from);
    files.delete(from);
    if (lines) files.set(to, lines);
    else files.delete(to);
    if (this.history.unreliable.has(from)) this.history.unreliable.add(to);
  }

  /** The `+++` line: from here on, hunks apply to the new path. */
  private beginContent(): void {
    const files = this.files;
    const { oldPath, newPath } = this;
    if (newPath === null || newPath === undefined) {
      // Deleted (`+++ /dev/null`): its hunks need not be applied.
      if (oldPath) files.delete(oldPath);
      this.target = undefined;
      return;
    }
    if (oldPath === null) {
      // Added: a fresh file (also when a file of that name existed before and was deleted).
      const lines: number[] = [];
      files.set(newPath, lines);
      this.history.unreliable.delete(newPath);
      this.target = lines;
      return;
    }
    let lines = files.get(newPath);
    if (!lines) {
      // Changed but never seen added (history limited by a shallow clone does not do that; a parse slip might).
      lines = [];
      files.set(newPath, lines);
      this.history.unreliable.add(newPath);
    }
    this.target = lines;
  }

  private hunk(text: string): void {
    const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(text);
    if (!m) {
      this.markUnreliable();
      return;
    }
    const oldCount = m[2] === undefined ? 1 : Number(m[2]);
    const newStart = Number(m[3]);
    const newCount = m[4] === undefined ? 1 : Number(m[4]);
    this.oldLeft = oldCount;
    this.newLeft = newCount;
    const lines = this.target;
    if (!lines) return;
    // Hunks come in order and earlier ones are already applied, so new-file coordinates index `lines` directly. With
    // no new lines, newStart is the line after which old lines were removed.
    const at = newCount > 0 ? newStart - 1 : newStart;
    if (at < 0 || at > lines.length || at + oldCount > lines.length) {
      this.markUnreliable();
      this.target = undefined;
      return;
    }
    splice(lines, at, oldCount, newCount, this.current);
  }

  private markUnreliable(): void {
    const path = this.newPath ?? this.oldPath ?? this.headerPath;
    if (path) this.history.unreliable.add(path);
    if (this.headerPath) this.history.unreliable.add(this.headerPath);
  }

  private endFile(): void {
    this.target = undefined;
    this.headerPath = undefined;
    this.oldPath = undefined;
    this.newPath = undefined;
    this.renameFrom = undefined;
    this.oldLeft = this.newLeft = 0;
  }
}

/** Replaces `remove` elements at `at` with `insert` copies of `value`, without spreading large argument lists. */
function splice(lines: number[], at: number, remove: number, insert: number, value: number): void {
  const common = Math.min(remove, insert);
  for (let i = 0; i < common; i++) lines[at + i] = value;
  if (remove > insert) {
    lines.splice(at + common, remove - insert);
  } else if (insert > remove) {
    const extra = insert - remove;
    const tail = lines.splice(at + common);
    for (let i = 0; i < extra; i++) lines.push(value);
    for (let i = 0; i < tail.length; i++) lines.push(tail[i]);
  }
}

function startsWith(b: Buffer, prefix: string): boolean {
  if (b.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (b[i] !== prefix.charCodeAt(i)) return false;
  return true;
}

/** `a/P b/P` → P when both halves name the same file (the only case needed: binary and mode-only diffs). */
function headerPath(rest: string): string | undefined {
  if (rest.startsWith('"')) {
    const end = closingQuote(rest);
    return end < 0 ? undefined : stripPrefix(unquote(rest.slice(0, end + 1)), 'a/');
  }
  // Unquoted: "a/<p> b/<p>" with the same p, so the split is at the middle.
  if ((rest.length - 1) % 2 !== 0) return undefined;
  const half = (rest.length - 1) / 2;
  const a = rest.slice(0, half);
  const b = rest.slice(half + 1);
  if (rest[half] !== ' ' || !a.startsWith('a/') || !b.startsWith('b/') || a.slice(2) !== b.slice(2)) return undefined;
  return a.slice(2);
}

/** A `---` / `+++` path: null for /dev/null, else without its prefix (and the tab git adds after names with spaces). */
function diffPath(rest: string, prefix: string): string | null {
  let p = rest.endsWith('\t') ? rest.slice(0, -1) : rest;
  if (p === '/dev/null') return null;
  p = unquote(p);
  return stripPrefix(p, prefix);
}

function stripPrefix(p: string, prefix: string): string {
  return p.startsWith(prefix) ? p.slice(prefix.length) : p;
}

function closingQuote(s: string): number {
  for (let i = 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i;
  }
  return -1;
}

/** Git's C-style quoting (`"a\tb\303\251"`): escapes, and octal bytes decoded as UTF-8. Unquoted names as they are. */
export function unquote(s: string): string {
  if (!s.startsWith('"') || !s.endsWith('"') || s.length < 2) return s;
  const bytes: number[] = [];
  const body = s.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch !== '\\') {
      for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
      continue;
    }
    const n = body[++i];
    if (n >= '0' && n <= '7') {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
      continue;
    }
    const map: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };
    bytes.push(map[n] ?? n.charCodeAt(0));
  }
  return Buffer.from(bytes).toString('utf8');
}

export { GitError };
