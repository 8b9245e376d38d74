/**
 * Reading Go chunk text without a parser: comments and literals blanked, method headers (`func (r *T) M(...) R`)
 * found and cut out whole, and the cheap tests that tell whether a type declaration needs the parser at all.
 */
import type { MethodHeader } from './types';

const NOISE = /\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|`[^`]*`?|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?/g;

/** Comments and string/rune literals blanked to spaces (newlines kept), so that line-anchored patterns see code only. */
export function blankGoNoise(text: string): string {
  return text.replace(NOISE, (m) => m.replace(/[^\n]/g, ' '));
}

export const ID = String.raw`[\p{L}_][\p{L}\p{N}_]*`;
/** `func (r *T[K]) Name(` at the start of a line (gofmt puts every top-level declaration there). */
const METHOD_HEADER = new RegExp(
  String.raw`^func[ \t]*\([ \t]*(?:${ID}[ \t]+)?(\*?)[ \t]*(${ID})[ \t]*(\[[^\]\n]*\])?[ \t]*\)[ \t]*(${ID})[ \t]*[(\[]`,
  'gmu',
);
const MAYBE_METHOD = /^func[ \t]*\(/m;
const IDENT_CHAR = /[\p{L}\p{N}_]/u;
const isIdentChar = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_' || (c > '\x7f' && IDENT_CHAR.test(c));

/**
 * From an opening bracket at `i`, the index after its closing bracket (nesting of ( [ {, strings, runes and comments
 * skipped); -1 when the text ends first.
 */
function skipBalanced(code: string, i: number): number {
  let depth = 0;
  const n = code.length;
  for (; i < n; i++) {
    const c = code[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (--depth === 0) return i + 1;
    } else if (c === '"' || c === "'") {
      for (i++; i < n && code[i] !== c && code[i] !== '\n'; i++) if (code[i] === '\\') i++;
    } else if (c === '`') {
      i = code.indexOf('`', i + 1);
      if (i < 0) return -1;
    } else if (c === '/' && code[i + 1] === '/') {
      i = code.indexOf('\n', i);
      if (i < 0) return -1;
    } else if (c === '/' && code[i + 1] === '*') {
      i = code.indexOf('*/', i + 2);
      if (i < 0) return -1;
      i++;
    }
  }
  return -1;
}

/**
 * The end of a method header whose receiver and name were matched up to the bracket at `i` (type parameters or
 * parameters): the body's `{`, or the end of the line for a declaration without a body; -1 when the header is cut off.
 * Result types may hold brackets and braces (`func() interface{}`, `map[K]struct{}`), which are skipped whole.
 */
function headerEnd(code: string, i: number): number {
  const n = code.length;
  if (code[i] === '[') {
    i = skipBalanced(code, i);
    if (i < 0) return -1;
    while (code[i] === ' ' || code[i] === '\t') i++;
    if (code[i] !== '(') return -1;
  }
  i = skipBalanced(code, i);
  if (i < 0) return -1;
  for (;;) {
    while (i < n && (code[i] === ' ' || code[i] === '\t')) i++;
    if (i >= n) return n;
    const c = code[i];
    if (c === '{' || c === '\n' || c === '\r' || c === ';') return i;
    if (c === '/' && (code[i + 1] === '/' || code[i + 1] === '*')) return i;
    if (c === '(' || c === '[') {
      i = skipBalanced(code, i);
      if (i < 0) return -1;
    } else if (isIdentChar(c)) {
      const from = i;
      while (i < n && isIdentChar(code[i])) i++;
      const word = code.slice(from, i);
      if (word === 'interface' || word === 'struct') {
        while (code[i] === ' ' || code[i] === '\t') i++;
        if (code[i] === '{') {
          i = skipBalanced(code, i);
          if (i < 0) return -1;
        }
      }
    } else {
      i++;
    }
  }
}
export function methodHeadersIn(text: string): MethodHeader[] {
  if (!MAYBE_METHOD.test(text)) return [];
  const out: MethodHeader[] = [];
  // a line can only start inside a comment or string when a block comment or a raw string is around
  const code = text.includes('/*') || text.includes('`') ? blankGoNoise(text) : text;
  for (const m of code.matchAll(METHOD_HEADER)) {
    const from = m.index + m[0].length - 1;
    const end = headerEnd(code, from);
    const typeParams = m[3] ? m[3].slice(1, -1).split(',').map((p) => p.trim().split(/\s+/)[0]).filter(Boolean) : [];
    const sigText = end < 0 ? undefined : code.slice(from, end).trimEnd();
    out.push({ decl: { pointer: m[1] === '*', receiver: m[2], name: m[4] }, sigText, typeParams });
  }
  return out;
}

export const TYPE_GROUP = /^type[ \t]*\(/m;
/** A line of a struct body that is a lone (maybe qualified, pointer or generic) type name: an embedded field. */
const EMBED_LINE = new RegExp(String.raw`^[ \t]*\*?[ \t]*${ID}(?:\.${ID})?(?:\[[^\]\n]*\])?[ \t]*;?[ \t]*$`, 'mu');

/** `struct{ io.Reader }` on one line (the parser decides whether it embeds). */
const ONE_LINE_STRUCT = /\bstruct[ \t]*\{[^\n}]*\S[^\n}]*\}/;

/** `type A = B` (or `A = B` inside a group): an alias. */
const ALIAS_SPEC = new RegExp(String.raw`^(?:type)?[ \t]+${ID}[ \t]*=[^=]`, 'mu');

/**
 * Whether a type declaration chunk needs the parser: interfaces, `type (...)` groups, aliases and structs with an
 * embedded field. A plain struct or `type X int` declares one non-interface type without embeddings: its name says it
 * all (the chunk's kind is its first type's).
 */
export function needsParse(kind: string, text: string): boolean {
  if (kind === 'interface' || TYPE_GROUP.test(text)) return true;
  if (kind === 'type_alias') return ALIAS_SPEC.test(text);
  if (kind !== 'struct') return false;
  return (EMBED_LINE.test(text) || ONE_LINE_STRUCT.test(text)) && (EMBED_LINE.test(blankGoNoise(text)) || ONE_LINE_STRUCT.test(blankGoNoise(text)));
}
