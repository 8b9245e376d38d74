/**
 * The quick keyword pass of a large first index (issue 21: "searchable early"). Parsing and chunking a large tree
 * takes most of a first index (tree-sitter and token counts in the chunking worker: ~40 s on the Go tree), and the
 * keyword index used to be complete only when the last batch was chunked. Before that, this pass reads each new file
 * once and indexes it as windows of lines — no grammar, no token counting, no store rows — so that a search finds
 * every file of the workspace within seconds of the start.
 *
 * - A window is `QUICK_WINDOW_LINES` lines (cut at a blank line near the end when there is one). Its keyword document
 *   has two fields of an ordinary chunk: the body (every word's identifier parts, `parseConfig` → parse, config) and
 *   the path. Not the names (nothing is parsed yet), nor the whole identifiers and the stems: the pass costs about
 *   half as much without them, and its dictionary — held until the real pass has replaced every window — a fraction.
 *   An identifier query finds its windows by its parts; a description by its words as written.
 * - Its id names the window (`~quick:<startLine>-<endLine>:<path>`); nothing is written to LanceDB. A search hydrates
 *   such an id by reading those lines from the file (`quickChunks`), as a `code` chunk without a symbol, and says in
 *   its explanation that the file is not parsed yet.
 * - The real pass replaces a file's windows when its batch commits (the lexical index removes a path's documents), so
 *   a run that completes leaves none. A run that stops early removes the windows of the files it did not reach before
 *   it returns (`QuickPass.removeLeft`); a killed one leaves them to the next run's agreement check, which rebuilds the
 *   keyword index from the chunk store (openIndex.ts `lexicalAgreementKnown`, facade/repair.ts).
 */
import { resolve } from 'node:path';
import type { DiscoveredFile } from '../types';
import type { LexicalIndex } from '../store/lexical/lexicalIndex';
import { readTextFile, type ReadTextOptions } from '../discovery/readText';
import { partTokens } from '../tokenize/codeTokenizer';
import { quickId } from '../quickWindows';

/**
 * A first index of at least this many new files starts with the quick pass. Smaller ones are complete in seconds (a
 * thousand files in 5–8 s on 2 cores), and the language server's memory target is measured on such a workspace.
 */
export const QUICK_MIN_FILES = 2000;
/**
 * Source the chunking worker is handed while the quick pass runs on the indexing thread (the first batches of the real
 * pass): the worker, the bottleneck of a large run, starts at once instead of after the pass. Its answers wait in
 * memory until the pass is done.
 */
export const QUICK_AHEAD_BYTES = 8 * 1024 * 1024;
/** Lines per window (the last may be longer by up to half of this, rather than leave a sliver). */
export const QUICK_WINDOW_LINES = 60;

/**
 * A file's windows as [startLine, endLine] (1-based, inclusive) with their [start, end) character offsets: about
 * `QUICK_WINDOW_LINES` lines each, ending after a blank line in their last quarter when there is one.
 */
export function quickWindows(text: string, lines = QUICK_WINDOW_LINES): Array<{ startLine: number; endLine: number; start: number; end: number }> {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const total = starts.length;
  const lineEnd = (l: number) => (l + 1 < total ? starts[l + 1]! : text.length); // l: 0-based line
  const blank = (l: number) => text.slice(starts[l]!, lineEnd(l)).trim() === '';
  const out: Array<{ startLine: number; endLine: number; start: number; end: number }> = [];
  let first = 0;
  while (first < total) {
    let last = Math.min(total - 1, first + lines - 1);
    // no sliver at the end: a remainder under half a window joins this one
    if (total - 1 - last < lines / 2) last = total - 1;
    else {
      for (let l = last; l >= last - Math.floor(lines / 4); l--) {
        if (blank(l)) {
          last = l;
          break;
        }
      }
    }
    const start = starts[first]!;
    const end = lineEnd(last);
    if (text.slice(start, end).trim() !== '') out.push({ startLine: first + 1, endLine: last + 1, start, end });
    first = last + 1;
  }
  return out;
}

export interface QuickPassSummary {
  files: number;
  windows: number;
  ms: number;
}

/** The quick pass of one run: which files it indexed and how many windows each, until the real pass replaces them. */
export class QuickPass {
  /** Path → windows still in the keyword index. */
  private readonly left = new Map<string, number>();
  readonly summary: QuickPassSummary = { files: 0, windows: 0, ms: 0 };

  private constructor(private readonly lexical: LexicalIndex) {}

  /**
   * Indexes `files` (new files of a first index, in path order) as windows and commits them. A file that cannot be read
   * as text is left to the real pass, which reports it. Files outside the workspace (knowledge folders elsewhere) are
   * left out: a search hydrates a window from `root`.
   */
  static async run(root: string, files: readonly DiscoveredFile[], lexical: LexicalIndex, read: ReadTextOptions, signal?: AbortSignal): Promise<QuickPass> {
    const started = Date.now();
    const pass = new QuickPass(lexical);
    const paths = files.map((f) => f.path);
    // documents these paths still have (a quick pass of a run that was killed): replaced, not doubled
    lexical.removePaths(paths);
    let sinceYield = Date.now();
    for (const f of files) {
      if (signal?.aborted) break;
      if (resolve(root, f.path) !== resolve(f.absPath)) continue;
      let text: string;
      try {
        const r = await readTextFile(f.absPath, read);
        if ('skip' in r) continue;
        text = r.text;
      } catch {
        continue;
      }
      let n = 0;
      const path = partTokens(f.path);
      for (const w of quickWindows(text)) {
        lexical.add([{ id: quickId(f.path, w.startLine, w.endLine), path: f.path, fields: { name: [], symbols: [], ident: [], body: partTokens(text.slice(w.start, w.end)), path, stem: [] } }]);
        n++;
      }
      if (n) {
        pass.left.set(f.path, n);
        pass.summary.files++;
        pass.summary.windows += n;
      }
      // let the event loop breathe (progress, the git history prefetch, a signal)
      if (Date.now() - sinceYield > 50) {
        await new Promise<void>((r) => setImmediate(r));
        sinceYield = Date.now();
      }
    }
    await lexical.commit();
    pass.summary.ms = Date.now() - started;
    return pass;
  }

  /** How many of the documents a batch's `removePaths` removed were this pass's windows (they are gone now). */
  replaced(paths: readonly string[]): number {
    let n = 0;
    for (const p of paths) {
      n += this.left.get(p) ?? 0;
      this.left.delete(p);
    }
    return n;
  }

  /** Removes the windows of the files the real pass did not reach (a run that stops early); commits. */
  async removeLeft(): Promise<number> {
    if (!this.left.size) return 0;
    const paths = [...this.left.keys()];
    this.left.clear();
    const n = this.lexical.removePaths(paths);
    await this.lexical.commit();
    return n;
  }
}
