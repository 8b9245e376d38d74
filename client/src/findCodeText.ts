/**
 * Find Code's wording that depends only on data (pure, no vscode import; unit-tested): the notice for quoted phrases
 * no result contains, and the indexing state shown in the title instead of a row.
 */

/** The double-quoted phrases of a query, as typed (`"take units" stock` → ['take units']). */
export function quotedPhrases(query: string): string[] {
  const out: string[] = [];
  for (const m of query.matchAll(/"([^"]+)"/g)) {
    const p = m[1].trim();
    if (p && !out.includes(p)) out.push(p);
  }
  return out;
}

/**
 * `No exact match for "…"` when the query has quoted phrases and no result contains them all; undefined otherwise.
 * The server marks each result ("phrase: contains …" / "phrase: missing …" in its explanation): a result with
 * "phrase: contains" has every phrase. Without those marks (an older server, explanations off) nothing is claimed,
 * unless there are no results at all.
 */
export function phraseNotice(query: string, matches: ReadonlyArray<{ explanation?: string[] }>): string | undefined {
  const phrases = quotedPhrases(query);
  if (!phrases.length) return undefined;
  const text = `No exact match for ${phrases.map((p) => `"${p}"`).join(', ')}`;
  if (!matches.length) return text;
  const marks = matches.map((m) => (m.explanation ?? []).find((e) => e.startsWith('phrase: ')));
  if (marks.some((e) => e?.startsWith('phrase: contains'))) return undefined;
  if (marks.some((e) => e?.startsWith('phrase: missing'))) return `${text}; showing the closest results`;
  return undefined;
}

export interface FolderState {
  name: string;
  state: string;
  searchable?: boolean;
}

/** The indexing state for Find Code's title/placeholder ('' when every folder is ready). */
export function indexNote(folders: ReadonlyArray<FolderState>): string {
  const busy = folders.filter((f) => f.state === 'opening' || f.state === 'indexing' || f.state === 'embedding');
  const errors = folders.filter((f) => f.state === 'error');
  if (errors.length) return `index error in ${errors.map((f) => f.name).join(', ')}`;
  if (!busy.length) return '';
  if (busy.every((f) => f.state === 'embedding' && f.searchable)) return 'indexing embeddings: results may improve';
  return 'indexing: results may be incomplete';
}

/** Strips internal model ids ("(static:quarry-code-v3)", "local-use:use-lite-512") from status messages. */
export function withoutModelIds(message: string): string {
  return message
    .replace(/\s*\((?:[a-z][\w-]*):[^()\s]+\)/gi, '')
    .replace(/\b(?:voyage|onnx|static|local-use|quarry):[\w./-]+/gi, '')
    .replace(/\s{2,}/g, ' ')
    .trim();
}
