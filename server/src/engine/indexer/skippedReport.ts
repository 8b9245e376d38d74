/**
 * How the skipped files of the last whole-workspace run (`.quarry/skipped.json`, indexer.ts `SkippedRecord`) are
 * shown to people — `quarry status` and the editor's index status read the same list: Quarry's own `.quarry` folder
 * left out, the reasons that usually mean a file the user expected in the index first, then by path.
 */
import type { SkippedRecord } from './indexer';

/** Reasons that usually mean a file the user expected in the index: listed first. */
export const NOTABLE_SKIP_REASONS = ['unreadable', 'too-large', 'binary', 'minified', 'symlink-loop', 'symlink-outside-workspace', 'secret'] as const;

/** The record's files in showing order, without Quarry's own folder; `total` counts the files not listed by name too. */
export function skippedForPeople(r: SkippedRecord): { files: SkippedRecord['files']; total: number } {
  const rank = (reason: string) => {
    const i = (NOTABLE_SKIP_REASONS as readonly string[]).indexOf(reason);
    return i < 0 ? NOTABLE_SKIP_REASONS.length : i;
  };
  const files = r.files
    .filter((f) => f.path !== '.quarry' && !f.path.startsWith('.quarry/'))
    .sort((a, b) => rank(a.reason) - rank(b.reason) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, total: files.length + (r.notListed ?? 0) };
}

/** Whether a reason is one a person likely wants to hear about (see NOTABLE_SKIP_REASONS). */
export function isNotableSkip(reason: string): boolean {
  return (NOTABLE_SKIP_REASONS as readonly string[]).includes(reason);
}
