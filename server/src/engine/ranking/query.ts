/**
 * Query understanding: the query language and the query's form.
 *
 *   "exact phrase"         quoted phrases: results containing all of them come first (seed 001)
 *   lang:python,go         language filter (also `language:`)
 *   path:src/**\/*.ts       path filter (repeatable; any may match): a glob; a glob without a slash matches file
 *                          names (`*.test.ts`); a value without glob characters, paths containing it (`operators`)
 *   kind:function,class    chunk kind / type filter (also `type:`), applied after ranking
 *   -word                  exclude chunks containing the word
 *
 * Recognised forms set a target: "what implements X", "implementations of X", "types conforming to X" →
 * implementations; "X protocol", "interface X" → protocol; "what is X", "where is X defined", "definition of
 * X" → definition; "who calls X", "callers of X", "usages of X" → callers. A lone identifier is an identifier
 * query. Invalid syntax is an error that names the problem, never a silent empty result.
 */
import picomatch from 'picomatch';
import { FUNCTION_WORDS, identifierParts, identifierTokens, isIdentifierLike, exactNameToken, looseNameToken, nameStemTokens, partTokens, stemTokens, words } from '../tokenize/codeTokenizer';
import type { FieldWeights } from '../config/schema';
import type { QueryTerm } from '../store/lexical/lexicalIndex';
import { INTENT_TYPES } from '../api/intentTypes';
import { expansionsOf } from '../tokenize/abbreviations';
import { knownLanguageIds, languageIdFor } from '../languages';
import { CHUNK_KINDS } from '../types';

export type QueryForm = 'identifier' | 'natural';
export type TargetRelation = 'implementations' | 'protocol' | 'definition' | 'callers';

/** Chunk types for `kind:` / `--type` (seed 003 FR-7): the fine kinds plus the coarse groups. */
export const CHUNK_TYPE_GROUPS: Record<string, readonly string[]> = {
  function: ['function', 'constructor'],
  method: ['method'],
  class: ['class', 'struct', 'enum', 'interface', 'protocol', 'trait', 'extension', 'impl', 'type_alias'],
  code: ['code', 'variable', 'module', 'namespace'],
  knowledge: ['section', 'text'],
  reasoning: ['reasoning'],
};

/** Seed 003 FR-7.1's types, in its order. */
export const CHUNK_TYPES = ['function', 'method', 'class', 'code', 'reasoning', 'knowledge'] as const;

export function validChunkTypes(): string[] {
  return [...new Set([...Object.keys(CHUNK_TYPE_GROUPS), ...CHUNK_KINDS])].sort();
}

/** Levenshtein distance, for "did you mean" hints. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

export interface QueryFilters {
  languages: string[];
  /** Path globs (any may match). */
  paths: string[];
  /** Chunk kinds after expanding groups (`class` → class, struct, enum, ...). */
  kinds: string[];
  /** Words that exclude a chunk (lower-cased). */
  excludes: string[];
}

export interface QueryTarget {
  relation: TargetRelation;
  /** The identifier the form is about (`ChunkStore`). */
  name: string;
}

export interface ParsedQuery {
  raw: string;
  /** The searchable text: the query without filters and exclusions (phrases included, unquoted). */
  text: string;
  form: QueryForm;
  /** Identifier-looking words of the query, case preserved. */
  identifiers: string[];
  /** Known intent (upper-case) or null when absent or unknown (seed 002 FR-028). */
  intent: string | null;
  phrases: string[];
  filters: QueryFilters;
  target: QueryTarget | null;
}

export class QueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueryError';
  }
}

export function normalizeIntent(intent: string | null | undefined): string | null {
  if (!intent) return null;
  const up = intent.trim().toUpperCase();
  return (INTENT_TYPES as readonly string[]).includes(up) ? up : null;
}

const IDENT = String.raw`([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)`;
/** "the X interface", "the X trait", "X base class": the name inside such a wrapper. */
const KIND_WORDS = String.raw`(?:interface|protocol|trait|abstract\s+class|base\s+class|class|type|module|mixin)`;
const TARGET = String.raw`(?:the\s+|an?\s+)?(?:abstract\s+)?(?:${KIND_WORDS}\s+)?${IDENT}(?:\s+${KIND_WORDS})?`;
const IMPLEMENTERS = String.raw`(?:implementations?|implementers?|implementors?|conformers?|subclasses|subtypes|subclass|derived\s+classes|child\s+classes|impls|adopters?)`;
/** The verbs of conformance, with an optional "directly" ("inherits directly from", "derived directly from"). */
const IMPLEMENTING = String.raw`(?:(?:directly\s+)?(?:implements?|implementing|implemented|conforms?\s+to|conforming\s+to|extends?|extending|extended|adopts?|adopting|satisf(?:y|ies|ying)|(?:inherits?|inheriting|derives?|deriving|derived)\s+(?:directly\s+)?from|subclass(?:es)?|subclassing|built\s+(?:on\s+top\s+of|on|upon))(?:\s+directly)?)`;
const THINGS = String.raw`(?:types?|classes|class|structs?|enums?|objects?|records?|impls?|implementations?|things|concrete\s+types?)`;
/**
 * What a list of implementers is called in a question: the words above, or any plural noun ("formatters", "handlers",
 * "middlewares"), after at most two modifiers ("template node types", "error classes", "mock implementations").
 */
const MODIFIERS = String.raw`(?:[A-Za-z][\w-]*\s+){0,2}?`;
const NAMED_THINGS = String.raw`(?:${MODIFIERS}(?:${THINGS}|[A-Za-z][\w-]*[a-z]s))`;
/** A name written as a type's: capitalised, or qualified (`Faraday::Options`, `io.Reader`). */
const TYPE_NAME = /^[A-Z]|\.|::/;
const FORMS: Array<{ relation: TargetRelation; re: RegExp; typeName?: boolean }> = [
  // what/which/who (types|classes ...) implement(s)/extend(s)/satisfy/inherit from X
  { relation: 'implementations', re: new RegExp(String.raw`^(?:what|which|who|(?:list|show|find)(?:\s+me)?(?:\s+(?:all|everything|anything))?|all|everything|anything)(?:\s+(?:are\s+)?(?:the\s+)?${NAMED_THINGS})?\s+(?:that\s+|which\s+)?(?:do\s+|does\s+)?${IMPLEMENTING}\s+${TARGET}`, 'i') },
  // (all) implementations / subclasses / implementers of X
  { relation: 'implementations', re: new RegExp(String.raw`^(?:(?:list|show|find)\s+|what\s+are\s+)?(?:all\s+)?(?:the\s+)?(?:known\s+)?${MODIFIERS}${IMPLEMENTERS}\s+(?:of|for)\s+${TARGET}`, 'i') },
  // types/classes (that) implement X
  { relation: 'implementations', re: new RegExp(String.raw`^(?:all\s+)?(?:the\s+)?${NAMED_THINGS}\s+(?:that\s+|which\s+)?${IMPLEMENTING}\s+${TARGET}`, 'i') },
  // classes/types that inherit X (only with a word for types: "which processes inherit the file descriptors" is not one)
  { relation: 'implementations', re: new RegExp(String.raw`^(?:what|which|all|list|show|find)?\s*(?:the\s+)?${THINGS}\s+(?:that\s+|which\s+)?(?:inherits?|inheriting)\s+${TARGET}`, 'i') },
  // implements X, conforms to X, extends X, impl X for
  { relation: 'implementations', re: new RegExp(String.raw`^(?:${IMPLEMENTING}|impl)\s+${TARGET}(?:\s+for)?\s*\??$`, 'i') },
  // X implementations, X subclasses, "Observer implementers", "list every Dispatcher subclass"
  { relation: 'implementations', re: new RegExp(String.raw`^(?:(?:list|show|find)\s+)?(?:all\s+|every\s+|each\s+)?(?:the\s+)?(?:[A-Za-z][\w-]*\s+)?${IDENT}(?:\s+${KIND_WORDS})?\s+${IMPLEMENTERS}\s*\??$`, 'i') },
  // X's subclasses, X's implementations
  { relation: 'implementations', re: new RegExp(String.raw`^(?:(?:list|show|find)\s+)?(?:all\s+)?(?:the\s+)?${IDENT}(?:\s+${KIND_WORDS})?'s\s+${IMPLEMENTERS}\s*\??$`, 'i') },
  // concrete X classes, concrete implementations of X
  { relation: 'implementations', re: new RegExp(String.raw`^(?:(?:list|show|find|what\s+are)\s+)?(?:all\s+)?(?:the\s+)?concrete\s+${IDENT}\s+(?:classes|types|structs|implementations)\s*\??$`, 'i') },
  // classes based on X, modules that include X, classes that mix in X (only a name written as a type's: "delays based
  // on the response" is a description)
  { relation: 'implementations', typeName: true, re: new RegExp(String.raw`^(?:what|which|all|list|show|find)?\s*(?:the\s+)?${NAMED_THINGS}\s+(?:that\s+|which\s+)?(?:are\s+)?(?:based\s+on|includes?|including|mix(?:es)?\s+in|mixing\s+in)\s+${TARGET}\s*\??$`, 'i') },
  // where is X implemented, who implements X
  { relation: 'implementations', re: new RegExp(String.raw`^(?:where|how)\s+(?:is|are)\s+${TARGET}\s+implemented\s*\??$`, 'i') },
  { relation: 'callers', re: new RegExp(String.raw`^(?:who|what)\s+(?:calls|uses|references)\s+${IDENT}`, 'i') },
  { relation: 'callers', re: new RegExp(String.raw`^(?:callers|usages|uses|references)\s+of\s+${IDENT}`, 'i') },
  { relation: 'definition', re: new RegExp(String.raw`^(?:what\s+is|what's|where\s+is|find|show)\s+(?:the\s+)?${IDENT}(?:\s+defined)?\s*\??$`, 'i') },
  { relation: 'definition', re: new RegExp(String.raw`^(?:definition\s+of|declaration\s+of)\s+${IDENT}`, 'i') },
  { relation: 'definition', re: new RegExp(String.raw`^${IDENT}\s+(?:definition|declaration)\s*$`, 'i') },
  { relation: 'protocol', re: new RegExp(String.raw`^(?:the\s+)?${IDENT}\s+(?:protocol|interface|trait)\s*$`, 'i') },
  { relation: 'protocol', re: new RegExp(String.raw`^(?:the\s+)?(?:protocol|interface|trait)\s+${IDENT}\s*$`, 'i') },
];

/** Splits the raw query into tokens, keeping quoted phrases whole. */
function lex(raw: string): Array<{ kind: 'phrase' | 'word'; value: string }> {
  const out: Array<{ kind: 'phrase' | 'word'; value: string }> = [];
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '"') {
      const end = raw.indexOf('"', i + 1);
      if (end < 0) throw new QueryError(`Unclosed quote in query ${JSON.stringify(raw)}: close the phrase with a second " (or remove the quote).`);
      const phrase = raw.slice(i + 1, end).trim();
      if (!phrase) throw new QueryError(`Empty phrase "" in query ${JSON.stringify(raw)}: put words between the quotes or remove them.`);
      out.push({ kind: 'phrase', value: phrase });
      i = end + 1;
      continue;
    }
    let j = i;
    while (j < raw.length && !/\s/.test(raw[j]) && raw[j] !== '"') j++;
    out.push({ kind: 'word', value: raw.slice(i, j) });
    i = j;
  }
  return out;
}

function listValue(key: string, value: string): string[] {
  const items = value.split(',').map((v) => v.trim()).filter(Boolean);
  if (!items.length) throw new QueryError(`Filter ${key}: needs a value, e.g. ${key}:${key === 'path' ? 'src/**' : key === 'lang' ? 'python' : 'function'}.`);
  return items;
}

export function expandChunkTypes(types: readonly string[], source: string): string[] {
  const valid = validChunkTypes();
  const out = new Set<string>();
  for (const t of types) {
    const key = t.toLowerCase();
    if (!valid.includes(key)) {
      const finer = valid.filter((v) => !(CHUNK_TYPES as readonly string[]).includes(v));
      const near = valid.map((v) => [v, editDistance(key, v)] as const).filter(([, d]) => d <= 2).sort((x, y) => x[1] - y[1])[0];
      throw new QueryError(
        `Invalid chunk type '${t}'. Valid types: ${CHUNK_TYPES.join(', ')}` +
          ` (finer kinds: ${finer.join(', ')}).${near ? ` Did you mean '${near[0]}'?` : ''} (in ${source})`,
      );
    }
    for (const k of CHUNK_TYPE_GROUPS[key] ?? [key]) out.add(k);
  }
  return [...out];
}

/**
 * "what extends the standard Response class": a lower-case word the form took for the target is an adjective when a
 * capitalised identifier follows it — the target is that identifier.
 */
function adjectiveSkipped(name: string, rest: string): string {
  if (name !== name.toLowerCase() || name.includes('.')) return name;
  const next = rest.match(/^\s+([A-Z][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)/);
  return next ? next[1] : name;
}

export function parseQuery(raw: string, intent?: string | null): ParsedQuery {
  const filters: QueryFilters = { languages: [], paths: [], kinds: [], excludes: [] };
  const phrases: string[] = [];
  const kept: string[] = [];
  const tokens = lex(raw);
  for (const [at, tok] of tokens.entries()) {
    if (tok.kind === 'phrase') {
      phrases.push(tok.value);
      kept.push(tok.value);
      continue;
    }
    const m = tok.value.match(/^(lang|language|path|kind|type):(.*)$/i);
    // "the error type: a string" (a sentence pasted from a doc comment): a filter word followed by a space and more
    // words is prose, not a filter without its value (which, last in the query, is still an error that says so)
    if (m && !m[2] && at < tokens.length - 1) {
      kept.push(tok.value);
      continue;
    }
    if (m) {
      const key = m[1].toLowerCase();
      if (key === 'lang' || key === 'language') {
        for (const l of listValue('lang', m[2])) {
          const id = languageIdFor(l);
          if (!id) throw new QueryError(`Unknown language '${l.toLowerCase()}' in lang:. Known languages: ${knownLanguageIds().join(', ')}`);
          filters.languages.push(id);
        }
      } else if (key === 'path') {
        for (const glob of listValue('path', m[2])) {
          try {
            picomatch(glob);
          } catch (e) {
            throw new QueryError(`Invalid path glob '${glob}' in path: (${(e as Error).message}).`);
          }
          filters.paths.push(glob);
        }
      } else {
        filters.kinds.push(...expandChunkTypes(listValue(key, m[2]), `${key}:`));
      }
      continue;
    }
    if (tok.value.length > 1 && tok.value.startsWith('-') && /[\p{L}\p{N}_]/u.test(tok.value[1])) {
      filters.excludes.push(tok.value.slice(1).toLowerCase());
      continue;
    }
    kept.push(tok.value);
  }
  const text = kept.join(' ').trim();
  if (!text) {
    if (raw.trim()) throw new QueryError(`The query ${JSON.stringify(raw)} has filters but nothing to search for: add words or an identifier, e.g. "parse config ${raw.trim()}".`);
    throw new QueryError('Empty query: give some words or an identifier to search for, e.g. quarry search "parse config".');
  }
  if (!words(text).length) throw new QueryError(`The query "${raw}" has no letters or digits to search for.`);
  let target: QueryTarget | null = null;
  if (!phrases.length) {
    for (const f of FORMS) {
      const fm = text.match(f.re);
      if (fm && (!f.typeName || TYPE_NAME.test(fm[1]!))) {
        target = { relation: f.relation, name: adjectiveSkipped(fm[1], text.slice((fm.index ?? 0) + fm[0].length)) };
        break;
      }
    }
  }
  const form: QueryForm = !phrases.length && isIdentifierLike(text) ? 'identifier' : 'natural';
  const identifiers = words(text).filter((w) => identifierParts(w).length > 1 || /[A-Z_]/.test(w));
  if (target && !identifiers.includes(target.name)) identifiers.push(target.name);
  return { raw, text, form, identifiers, intent: normalizeIntent(intent), phrases, filters, target };
}

/** A predicate for the path filters (no globs = everything passes). */
/** Characters that make a `path:` value a glob. */
const GLOB_CHARS = /[*?[\]{}()!+@]/;

/**
 * The `path:` filter (any value may match). A glob with a slash matches the whole workspace-relative path
 * (`src/**\/*.ts`); a glob without one matches file names anywhere (`*.test.ts`); a value without glob characters
 * matches every path that contains it (`operators`, `internal/operators/`, `retry.ts`) — as a glob it matched only a
 * file at the root of that exact name, and the search came back empty.
 */
export function pathMatcher(globs: readonly string[]): (path: string) => boolean {
  if (!globs.length) return () => true;
  const matchers = globs.map((g): ((path: string) => boolean) => {
    if (!GLOB_CHARS.test(g)) {
      const part = g.replace(/^\.\//, '');
      return (path) => path.includes(part);
    }
    return picomatch(g, { dot: true, nocase: false, basename: !g.includes('/') });
  });
  return (path) => matchers.some((m) => m(path));
}

/** Particles that make one word with the verb or noun before them in code (`setup`, `timeout`, `login`, `callback`). */
const PARTICLES = new Set(['up', 'out', 'in', 'on', 'back', 'down', 'off', 'over', 'away']);

/**
 * Adjacent words of a description that code writes as one word: a content word and a particle ("time out" →
 * `timeout`, "set up", "log in", "call back", "look up", "fall back"). Only plain lower-case words of three letters
 * or more lead; function words never do ("how to do" is not `todo`). Two content words are left apart ("test
 * suites" joined matched other things than the suites the question meant).
 */
export function compoundWords(text: string): string[] {
  const ws = text.split(/[^A-Za-z]+/).filter(Boolean);
  const out: string[] = [];
  for (let i = 0; i + 1 < ws.length; i++) {
    const a = ws[i]!;
    const b = ws[i + 1]!;
    if (a !== a.toLowerCase() || b !== b.toLowerCase() || a.length < 3 || FUNCTION_WORDS.has(a)) continue;
    if (PARTICLES.has(b)) out.push(a + b);
  }
  return [...new Set(out)];
}

/**
 * Per-field query terms with the weight profile of the query's form.
 * An identifier query matches the name fields by the WHOLE identifier only (a part such as `parcel` of
 * `dispatchParcel` must not make `ParcelCarrier` look like a definition), and by parts in body and path.
 * A natural-language query matches names by their parts.
 */
export function lexicalTerms(q: ParsedQuery, weights: { identifier: FieldWeights; natural: FieldWeights }, functionWordWeight = 0.2): QueryTerm[] {
  const w = weights[q.form];
  const terms: QueryTerm[] = [];
  const natural = q.form === 'natural';
  const push = (field: QueryTerm['field'], tokens: string[], factor = 1) => {
    for (const token of tokens) {
      if (w[field] <= 0) continue;
      // Function words of a description count little (they are still matched: seed 003 keeps stop words).
      const fw = natural && FUNCTION_WORDS.has(token) ? functionWordWeight : 1;
      terms.push({ field, token, weight: w[field] * factor * fw });
    }
  };
  // A name as written counts fully; the same name in another convention (parse_config for parseConfig) half.
  const names = (list: string[]) => {
    for (const field of ['name', 'symbols'] as const) {
      push(field, list.map(exactNameToken));
      push(field, list.map(looseNameToken), 0.5);
    }
  };
  if (q.form === 'identifier') {
    // The whole name (and for `A.b`, also `b` and `A`), never its parts.
    const marked = /[?!]$/.test(q.text);
    // `merge!` names `merge!` (its exact token keeps the mark); `merge` shares the bare name and ranks after it
    const segments = (marked ? q.text.slice(0, -1) : q.text).split(/\.|::|#/).filter(Boolean);
    if (marked) for (const field of ['name', 'symbols'] as const) push(field, [exactNameToken(segments[segments.length - 1]! + q.text.slice(-1))]);
    names(segments.length > 1 ? [...segments, q.text] : segments);
    // `get.user.data` may also be a name spelled with dots (seed 003 ST-18): the joined name in any convention
    if (segments.length > 1) for (const field of ['name', 'symbols'] as const) push(field, [looseNameToken(segments.join(''))]);
  } else {
    // Parts of every word, plus the whole name of words that look like identifiers (`parseConfig`) and of a
    // recognised form's target (`ChunkStore` in "what implements ChunkStore").
    const parts = words(q.text).flatMap((word) => identifierParts(word));
    push('name', parts);
    // other inflections of a name's parts ("limit concurrent requests" → ConcurrencyLimiter), at half weight
    push('name', nameStemTokens(parts.filter((p) => !FUNCTION_WORDS.has(p)).join(' ')), 0.5);
    push('symbols', parts);
    const whole = words(q.text).filter((word) => identifierParts(word).length > 1);
    if (q.target && !whole.includes(q.target.name)) whole.push(q.target.name);
    names(whole);
    // two words that code spells as one ("time out" → timeout, "set up" → setup, "log in" → login), at half weight
    const joined = compoundWords(q.text);
    for (const field of ['name', 'symbols', 'body'] as const) push(field, joined, 0.5);
  }
  push('ident', identifierTokens(q.text));
  push('body', partTokens(q.text));
  push('path', partTokens(q.text));
  // Descriptions (and a lone lower-case word, which may be English: "authentication") also meet other
  // inflections through the stemmed field, and abbreviations both ways (authentication ↔ auth), at less weight.
  const englishWord = q.form === 'identifier' && /^[a-z]{4,}[?!]?$/.test(q.text);
  if (natural || englishWord) {
    const stemWeight = weights.natural.stem * (natural ? 1 : 0.5);
    const add = (tokens: string[], factor: number) => {
      for (const token of tokens) {
        const fw = FUNCTION_WORDS.has(token) ? functionWordWeight : 1;
        terms.push({ field: 'stem', token, weight: stemWeight * factor * fw });
      }
    };
    add(stemTokens(q.text), 1);
    const expanded = partTokens(q.text).flatMap((t) => expansionsOf(t));
    add(expanded.flatMap((e) => stemTokens(e)), 0.5);
    // A name built from the abbreviation (`AuthMiddleware` for "authentication") is a strong hint too.
    for (const e of expanded) terms.push({ field: 'name', token: e, weight: weights.natural.name * 0.5 });
  }
  return terms;
}
