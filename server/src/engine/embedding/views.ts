/**
 * What text of a chunk an encoder sees.
 *
 *   documentView(chunk) — for general text encoders (USE, MiniLM): natural language. Names split into words
 *     (`parseConfigFile` → "parse config file"), kind, container, signature, doc comment, path words, then the
 *     start of the body with identifiers split, within a character budget.
 *   codeView(chunk) — for code-aware models (voyage-code-3, code embedders): path, container, doc when the body
 *     does not already carry it, then the code, truncated at a line boundary to the model's input size.
 */
import type { Chunk } from '../types';

/** `parseHTTPRequest_v2` → ['parse', 'http', 'request', 'v', '2']; lower-case words. */
export function splitIdentifier(id: string): string[] {
  return id
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)/g, '$1 $2')
    .replace(/(\d)([A-Za-z])/g, '$1 $2')
    .split(/[^A-Za-z\d]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** Replaces every identifier in `text` by its words and collapses punctuation runs and whitespace. */
export function wordsOf(text: string): string {
  return text
    .replace(/[A-Za-z_$][\w$]*/g, (id) => (/[a-z][A-Z]|[A-Z]{2}[a-z]|_|\d/.test(id) ? splitIdentifier(id).join(' ') : id))
    .replace(/[^\p{L}\p{N}\s.,:;!?'"()-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const KIND_WORDS = new Map<Chunk['kind'], string>([['type_alias', 'type alias']]);

/** File path as words: `server/src/auth/jwtMiddleware.ts` → "server src auth jwt middleware ts". */
export function pathWords(path: string): string {
  return path
    .split(/[\\/]/)
    .flatMap((seg) => splitIdentifier(seg))
    .join(' ');
}

export interface DocumentViewOptions {
  /** Total characters (USE-lite and MiniLM see a few hundred tokens at best). */
  maxChars?: number;
  /** Body lines considered after the header. */
  bodyLines?: number;
}

export function documentView(chunk: Chunk, opts: DocumentViewOptions = {}): string {
  const maxChars = opts.maxChars ?? 1200;
  const bodyLines = opts.bodyLines ?? 20;
  const parts: string[] = [];
  const kind = KIND_WORDS.get(chunk.kind) ?? chunk.kind;
  const nameWords = chunk.name ? splitIdentifier(chunk.name).join(' ') : '';
  const head = [kind, nameWords].filter(Boolean).join(' ');
  if (head) parts.push(`${head}.`);
  if (chunk.container) parts.push(`in ${splitIdentifier(chunk.container).join(' ')}.`);
  const others = chunk.symbols.filter((s) => s !== chunk.name && s !== chunk.symbol).slice(0, 12);
  if (others.length) parts.push(`defines ${others.map((s) => splitIdentifier(s).join(' ')).join(', ')}.`);
  if (chunk.conformances.length) parts.push(`implements ${chunk.conformances.map((s) => splitIdentifier(s).join(' ')).join(', ')}.`);
  if (chunk.doc) parts.push(chunk.doc.replace(/\s+/g, ' ').trim().slice(0, Math.floor(maxChars / 2)));
  if (chunk.signature) parts.push(wordsOf(chunk.signature));
  parts.push(`file ${pathWords(chunk.path)}.`);
  let out = parts.join(' ');
  if (out.length >= maxChars) return cut(out, maxChars);

  // Body: skip the lines that repeat the signature or doc comment, then the first lines as words.
  const lines = chunk.content.split('\n');
  const body: string[] = [];
  for (const line of lines) {
    if (body.length >= bodyLines) break;
    const t = line.trim();
    if (!t || /^(\/\/|\/\*|\*|#|"""|''')/.test(t)) continue;
    const bare = t.replace(/\s*[{:]\s*$/, '');
    if (chunk.signature && bare && chunk.signature.includes(bare)) continue;
    const w = wordsOf(t);
    if (w) body.push(w);
  }
  if (body.length) out += ' ' + body.join(' ');
  return cut(out, maxChars);
}

export interface CodeViewOptions {
  /** Character budget (e.g. model max tokens × ~3 chars per token). */
  maxChars?: number;
}

export function codeView(chunk: Chunk, opts: CodeViewOptions = {}): string {
  const maxChars = opts.maxChars ?? 16_000;
  const header: string[] = [`// ${chunk.path}`];
  if (chunk.container) header.push(`// in ${chunk.container}`);
  const doc = chunk.doc.trim();
  // The chunk content normally starts at the declaration; a doc comment above it may not be included.
  if (doc && !chunk.content.includes(doc.split('\n')[0]!.trim())) header.push(...doc.split('\n').map((l) => `// ${l}`));
  if (chunk.signature && !chunk.content.includes(chunk.signature.split('\n')[0]!.trim())) header.push(chunk.signature);
  const text = header.join('\n') + '\n' + chunk.content;
  if (text.length <= maxChars) return text;
  const cutAt = text.lastIndexOf('\n', maxChars);
  return text.slice(0, cutAt > maxChars / 2 ? cutAt : maxChars);
}

function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const sp = s.lastIndexOf(' ', max);
  return s.slice(0, sp > max / 2 ? sp : max);
}
