/**
 * `git blame --porcelain` (or `--line-porcelain`) output → which commit last touched each line, and per-chunk
 * statistics over a line range.
 *
 * The format: for every line of the blamed file, a header `<sha> <orig-line> <final-line> [<group-size>]`, then
 * (the first time a commit appears, or always with --line-porcelain) `key value` lines (`author-time`,
 * `committer-time`, `summary`, `boundary`, `filename`, ...), then the line's content prefixed by a TAB. Lines changed
 * in the working tree and not committed carry the all-zero sha ("Not Committed Yet"), with the time git ran blame.
 */

export interface BlameCommit {
  sha: string;
  /** `author-time` in ms since the epoch (0 when git printed none). */
  authorTimeMs: number;
  /** `committer-time` in ms since the epoch (0 when git printed none). */
  committerTimeMs: number;
  /** The all-zero sha: lines changed in the working tree (or staged) and not committed yet. */
  uncommitted: boolean;
}

export interface BlameResult {
  commits: BlameCommit[];
  /** Commit index (into `commits`) of each final line, 1-based (`[0]` is unused); -1 for a line git did not report. */
  lineCommit: Int32Array;
  /** Number of lines of the blamed file (the highest final line seen). */
  lineCount: number;
}

export class BlameParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlameParseError';
  }
}

const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) (\d+) (\d+)(?: (\d+))?$/;
const ZERO = /^0+$/;

/**
 * Parses porcelain blame output. Decoded as latin1: the headers and keys it reads are ASCII, and file contents (which
 * may be any bytes) are skipped, so no decoding error can occur.
 */
export function parseBlamePorcelain(output: string | Buffer): BlameResult {
  const text = typeof output === 'string' ? output : output.toString('latin1');
  const commits: BlameCommit[] = [];
  const bySha = new Map<string, number>();
  const lines: number[] = [0];
  let lineCount = 0;
  let current = -1;
  let finalLine = 0;
  let expectHeader = true;
  let pos = 0;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    const line = text.slice(pos, end);
    pos = end + 1;
    if (expectHeader) {
      if (line === '') continue;
      const m = HEADER.exec(line);
      if (!m) throw new BlameParseError(`unexpected blame line ${JSON.stringify(line.slice(0, 80))}`);
      const sha = m[1];
      let index = bySha.get(sha);
      if (index === undefined) {
        index = commits.length;
        commits.push({ sha, authorTimeMs: 0, committerTimeMs: 0, uncommitted: ZERO.test(sha) });
        bySha.set(sha, index);
      }
      current = index;
      finalLine = Number(m[3]);
      if (finalLine < 1) throw new BlameParseError(`bad final line number in ${JSON.stringify(line)}`);
      expectHeader = false;
      continue;
    }
    if (line.startsWith('\t')) {
      while (lines.length <= finalLine) lines.push(-1);
      lines[finalLine] = current;
      if (finalLine > lineCount) lineCount = finalLine;
      expectHeader = true;
      continue;
    }
    if (line.startsWith('author-time ')) commits[current].authorTimeMs = seconds(line.slice(12)) * 1000;
    else if (line.startsWith('committer-time ')) commits[current].committerTimeMs = seconds(line.slice(15)) * 1000;
  }
  if (!expectHeader) throw new BlameParseError('blame output ended inside a line record');
  const lineCommit = new Int32Array(lineCount + 1).fill(-1);
  for (let i = 1; i < lines.length; i++) lineCommit[i] = lines[i];
  return { commits, lineCommit, lineCount };
}

function seconds(v: string): number {
  const n = Number(v.trim());
  return Number.isFinite(n) && n > 0 ? n : 0;
}

export interface ChunkBlameStats {
  /** Distinct commits among the range's lines (uncommitted lines not counted). */
  commits: number;
  /**
   * Latest author time of those commits; when the range has uncommitted lines, at least `uncommittedTimeMs` (the
   * caller passes the file's modification time; without one, the time git reported for them, i.e. when blame ran).
   * 0 when unknown.
   */
  lastModifiedMs: number;
  /** Lines of the range changed in the working tree and not committed yet. */
  uncommittedLines: number;
}

/**
 * Statistics of lines `startLine..endLine` (1-based, inclusive; clamped to the file). Times are author times: when the
 * change was written, kept by rebases and cherry-picks (committer times are not), and what `git log` and `git blame`
 * show by default.
 */
export function chunkBlameStats(blame: BlameResult, startLine: number, endLine: number, uncommittedTimeMs = 0): ChunkBlameStats {
  const from = Math.max(1, Math.floor(startLine));
  const to = Math.min(blame.lineCount, Math.floor(endLine));
  const seen = new Set<number>();
  let lastModifiedMs = 0;
  let uncommittedLines = 0;
  let uncommittedGitTimeMs = 0;
  for (let line = from; line <= to; line++) {
    const index = blame.lineCommit[line];
    if (index < 0) continue;
    const commit = blame.commits[index];
    if (commit.uncommitted) {
      uncommittedLines++;
      uncommittedGitTimeMs = Math.max(uncommittedGitTimeMs, commit.authorTimeMs);
      continue;
    }
    if (seen.has(index)) continue;
    seen.add(index);
    if (commit.authorTimeMs > lastModifiedMs) lastModifiedMs = commit.authorTimeMs;
  }
  // Uncommitted lines were modified when the file was last written (git itself reports the time blame ran).
  const uncommittedAt = uncommittedTimeMs > 0 ? uncommittedTimeMs : uncommittedGitTimeMs;
  if (uncommittedLines > 0 && uncommittedAt > lastModifiedMs) lastModifiedMs = uncommittedAt;
  return { commits: seen.size, lastModifiedMs, uncommittedLines };
}
