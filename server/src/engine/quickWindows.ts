/**
 * The windows of a first index's quick keyword pass (indexer/quickPass.ts) as search sees them: their ids
 * (`~quick:<startLine>-<endLine>:<path>`), and the chunks a search shows for them, read from the files (no store rows
 * exist for them). Shared by retrieval (hydration), the ranking stages and the pass.
 */
import { readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Chunk } from './types';

/** Prefix of a quick window's id (chunk ids are hex digests: never this). */
export const QUICK_PREFIX = '~quick:';

export function isQuickId(id: string): boolean {
  return id.startsWith(QUICK_PREFIX);
}

/** The id of a file's window (its lines, 1-based, inclusive). */
export function quickId(path: string, startLine: number, endLine: number): string {
  return `${QUICK_PREFIX}${startLine}-${endLine}:${path}`;
}

/** The [path, startLine, endLine] a quick id names, or undefined when it is not one. */
export function parseQuickId(id: string): { path: string; startLine: number; endLine: number } | undefined {
  const m = /^~quick:(\d+)-(\d+):(.+)$/s.exec(id);
  if (!m) return undefined;
  return { startLine: Number(m[1]), endLine: Number(m[2]), path: m[3]! };
}

/** A window as a chunk: `code` of the file's language, no symbol, its lines as content. */
export function quickChunk(path: string, language: string, startLine: number, endLine: number, content: string, startByte = 0): Chunk {
  return {
    id: quickId(path, startLine, endLine),
    path,
    language,
    kind: 'code',
    symbol: '',
    name: '',
    container: '',
    symbols: [],
    references: [],
    conformances: [],
    doc: '',
    signature: '',
    startLine,
    endLine,
    startByte,
    endByte: startByte + Buffer.byteLength(content),
    content,
    semanticClass: 'BOUNDARY_MODULE',
    // not counted (the point of the pass): about four characters a token
    tokenCount: Math.ceil(content.length / 4),
    contentHash: createHash('sha256').update(content).digest('hex'),
    source: 'text',
  };
}

/**
 * Chunks for quick ids, read from the files under `root` (the lines each id names; a file that is gone, or shorter
 * now, gives what is left of the window or nothing). In the order asked; ids that name nothing are skipped.
 */
export function quickChunks(root: string, ids: readonly string[], languageOf: (path: string) => string | undefined): Chunk[] {
  const out: Chunk[] = [];
  const texts = new Map<string, string | null>();
  for (const id of ids) {
    const q = parseQuickId(id);
    if (!q) continue;
    const abs = resolve(root, q.path);
    const rel = relative(resolve(root), abs);
    if (!rel || rel.startsWith('..') || isAbsolute(rel)) continue; // never outside the workspace
    let text = texts.get(q.path);
    if (text === undefined) {
      try {
        text = statSync(abs).isFile() ? readFileSync(abs, 'utf8') : null;
      } catch {
        text = null;
      }
      texts.set(q.path, text);
    }
    if (text === null) continue;
    const lines = text.split('\n');
    if (q.startLine > lines.length) continue;
    const before = lines.slice(0, q.startLine - 1);
    const content = lines.slice(q.startLine - 1, q.endLine).join('\n') + (q.endLine < lines.length ? '\n' : '');
    if (!content.trim()) continue;
    const startByte = before.length ? Buffer.byteLength(before.join('\n')) + 1 : 0;
    const chunk = quickChunk(q.path, languageOf(q.path) ?? 'text', q.startLine, Math.min(q.endLine, lines.length), content, startByte);
    chunk.id = id;
    out.push(chunk);
  }
  return out;
}

/** The explanation line of a hydrated quick window. */
export const QUICK_EXPLANATION = 'quick keyword pass: this file is being indexed (not parsed yet); lines shown as a window';

