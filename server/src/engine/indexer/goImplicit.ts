/**
 * Go interfaces are satisfied implicitly: a type implements an interface when its method set holds every method of
 * the interface; no declaration says so. This post-indexing pass derives those conformances from the Go chunks of
 * the store and writes them as conformance rows (`kind` 'implicit', 'implicit-pointer' or 'implicit-interface', see
 * `IMPLICIT_KINDS`) on the implementing type's declaration chunk, so that "what implements X" finds them through the
 * same lookup as explicit conformances.
 *
 * What is matched: method names AND signatures. A type's method set is its own methods (`func (r T) M`,
 * `func (r *T) M`, in any file of the same directory = package) plus those promoted from embedded fields; an
 * interface's is its methods plus those of embedded interfaces (`error` included). Every method carries its
 * signature, parsed with tree-sitter (interface methods from the type declaration, concrete methods from their
 * header in the chunk text, all headers of a file in one parse): parameter and result types in order, names dropped,
 * `a, b int` counted twice, `...T` (variadic) distinct from `[]T`, `byte` = `uint8`, `rune` = `int32`,
 * `any` = `interface{}`, whitespace and parentheses insignificant, pointer/slice/array/map/chan (with direction)/func
 * structure kept, interface literals compared as sorted method sets. A named type compares by name and package: the
 * qualifier as written (an import alias is mapped to the imported path's last element), or for an unqualified name the
 * package of the file that declares the method or interface; so `Reader` in package io equals `io.Reader` anywhere,
 * while `Reader` in package stream does not; a type alias declared in the index (`type FileMode = fs.FileMode`)
 * stands for its target. A method matches the interface's when both signatures are equal.
 * Where a side is not fully known the match loosens, never disappears: a type parameter (of a generic interface or of
 * a generic receiver) and a type the parser did not understand match any type in that position (arity and
 * variadic-ness still count); an unqualified name in a file with a dot import matches that name in any package; a
 * method whose header did not parse (or was not found whole in the chunk text) matches by name only. When build tags
 * give a method several signatures (one per file), any of them may match.
 *
 * Skipped: interfaces without methods, interfaces with type terms (constraints), interfaces whose embedded
 * interfaces cannot be resolved in the index (their method set is unknown), pairs already declared explicitly
 * (embedding), a type and itself. An interface with an unexported method can only be implemented inside its own
 * package, and an unexported interface is matched with its own package's types only (elsewhere it would list every
 * `String()` of the index). Another interface implements I when its method set is a superset of I's.
 *
 * Lifecycle: rows hang on the type's declaration chunk, so deleting a path deletes them like any conformance row;
 * the rows of unchanged types whose methods live in a changed file are fixed by re-running the pass after every
 * run that touched a Go file. The pass reads what it needs from the store (type declarations and method headers are
 * parsed with tree-sitter), keeps per-file facts in memory (checked against the file records, so another process's
 * writes are seen), recomputes the join and writes only the difference. Method headers are parsed once per distinct
 * (package context, header text) in a pass: one parse per file for the headers not seen yet, a header the parser
 * cannot recover from parsed again on its own so that it cannot spoil its neighbours.
 *
 * Measured on Go's standard library (Go 1.19 sources from the benchmark's cache: 5,555 Go files, 68k Go chunks, 19.1k
 * method headers = 9.1k distinct, 1.2k interface methods; 19,140 headers and every interface method got a signature):
 * 8.1k derived rows where matching names only gave 12.6k (the 4.5k dropped are signature mismatches such as `Read()
 * string` or `Open(string) (http.File, error)` vs `Open(string) (fs.File, error)`). On a shared machine (load 2-5),
 * in alternating runs: 1.5-2.6 s for the first pass of a process (reading the Go chunks, parsing type declarations
 * and method headers) against 1.1-2.4 s for the name-only pass on the same index (quiet pairs: 1.5 s vs 1.15 s);
 * 0.22-0.56 s for later ones (one file re-read, the join, the difference), the same as before within the noise.
 */
import type { Node, Parser } from 'web-tree-sitter';
import type { ChunkStore, ConformanceRow, FileRecord } from '../store/chunkStore';
import { loadGrammar, parserFor } from '../chunking/parser';

/** Conformance row kinds written by this pass (and only by it). */
export const IMPLICIT_KINDS = ['implicit', 'implicit-pointer', 'implicit-interface'] as const;
export type ImplicitKind = (typeof IMPLICIT_KINDS)[number];

const GO = 'go';
const TYPE_KINDS = new Set(['struct', 'interface', 'type_alias']);

/** A type named in an embedding: `Foo`, `*Foo`, `pkg.Foo` (type arguments dropped). */
export interface GoTypeRef {
  pkg: string;
  name: string;
  pointer: boolean;
}

/**
 * A method's signature, normalised (see the header comment). `params` and `results` hold one canonical type per
 * parameter/result; a named type is written `pkg.Name`. Positions that are not fully known carry markers (`ANY`: any
 * type; `ANY_PKG` before a name: any package) and make the signature `wild`.
 */
export interface GoSignature {
  params: string[];
  results: string[];
  /** `(params) (results)`, markers included: equal keys are equal signatures. */
  key: string;
  wild?: true;
}

/** One named type declared in a file (a `type (...)` group declares several). */
export interface GoTypeDecl {
  name: string;
  /** The declaration chunk (the first piece when an over-long declaration was split). */
  chunkId: string;
  path: string;
  interface: boolean;
  /** An interface's own method names. */
  methods: string[];
  /** The signatures of `methods`, index for index (null: not understood, matched by name only); interfaces only. */
  signatures?: Array<GoSignature | null>;
  /** Embedded interfaces (interface) or embedded fields (struct). */
  embeds: GoTypeRef[];
  /** An interface with type terms (`~int | ~string`, `comparable`): a constraint, never a target. */
  constraint: boolean;
  /** Conformances the chunker already recorded for the chunk (explicit embedding), bare names. */
  explicit: string[];
}

export interface GoMethodDecl {
  receiver: string;
  name: string;
  pointer: boolean;
  /** The method's signature when its header was parsed (absent: matched by name only). */
  sig?: GoSignature;
}

/** What one Go file contributes. */
export interface GoFileFacts {
  path: string;
  /** The `package` clause's name when a chunk of the file shows it. */
  packageName?: string;
  types: GoTypeDecl[];
  methods: GoMethodDecl[];
  /** Type aliases to named types (`type FileMode = fs.FileMode`): canonical alias name → canonical target. */
  aliases?: Array<[string, string]>;
}

/** The columns of a stored Go chunk the pass reads. */
export interface GoChunkRow {
  id: string;
  path: string;
  kind: string;
  symbol: string;
  name: string;
  startByte: number;
  content: string;
}

export interface ImplicitRow extends ConformanceRow {
  kind: ImplicitKind;
}

/** How the type names of a file resolve. */
export interface GoNameContext {
  /** The file's package name ('' when unknown: unqualified names stay bare). */
  pkg: string;
  /** Import aliases: alias → the imported package's name (the path's last element). */
  aliases?: ReadonlyMap<string, string>;
  /** The file dot-imports a package: its unqualified names may come from anywhere. */
  dotImport?: boolean;
  /** Type parameters in scope (a generic interface's or receiver's): they stand for any type. */
  typeParams?: ReadonlySet<string>;
}

// ---------------------------------------------------------------- reading chunk text

const NOISE = /\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|`[^`]*`?|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?/g;

/** Comments and string/rune literals blanked to spaces (newlines kept), so that line-anchored patterns see code only. */
export function blankGoNoise(text: string): string {
  return text.replace(NOISE, (m) => m.replace(/[^\n]/g, ' '));
}

const ID = String.raw`[\p{L}_][\p{L}\p{N}_]*`;
/** `func (r *T[K]) Name(` at the start of a line (gofmt puts every top-level declaration there). */
const METHOD_HEADER = new RegExp(
  String.raw`^func[ \t]*\([ \t]*(?:${ID}[ \t]+)?(\*?)[ \t]*(${ID})[ \t]*(\[[^\]\n]*\])?[ \t]*\)[ \t]*(${ID})[ \t]*[(\[]`,
  'gmu',
);
const PACKAGE_CLAUSE = new RegExp(String.raw`^package[ \t]+(${ID})`, 'mu');
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

interface MethodHeader {
  decl: GoMethodDecl;
  /** The header from the parameters on (`(p []byte) (n int, err error)`), when the whole header is in the text. */
  sigText?: string;
  /** A generic receiver's type parameters (`func (l *List[K, V])` → K, V). */
  typeParams: string[];
}

function methodHeadersIn(text: string): MethodHeader[] {
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

/** Parsed signatures by context and header text, shared by the files of one pass (null: not understood). */
export type GoSignatureMemo = Map<string, GoSignature | null>;

/**
 * Sets each method's signature: headers already seen in the same context come from `memo`, the others are parsed
 * (all of them in one parse). A header that does not parse cleanly leaves its method without one (matched by name only).
 */
function attachSignatures(parser: Parser, items: MethodHeader[], cx: GoNameContext, memo: GoSignatureMemo = new Map()): void {
  const context = `${cx.pkg}\0${cx.dotImport ? '.' : ''}\0${cx.aliases?.size ? [...cx.aliases].join(';') : ''}\0`;
  const waiting = new Map<string, MethodHeader[]>();
  for (const item of items) {
    if (item.sigText === undefined) continue;
    const key = `${context}${item.typeParams.join(',')}\0${item.sigText}`;
    const known = memo.get(key);
    if (known !== undefined) {
      if (known) item.decl.sig = known;
      continue;
    }
    const list = waiting.get(key);
    if (list) list.push(item);
    else waiting.set(key, [item]);
  }
  if (!waiting.size) return;
  const parse = (keys: string[]) => {
    const rows = new Map<number, string>();
    let source = '';
    let row = 0;
    for (const key of keys) {
      rows.set(row, key);
      const text = `func (_ _) _${waiting.get(key)![0].sigText} {}\n`;
      source += text;
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) row++;
    }
    const tree = parser.parse(source);
    try {
      for (const node of namedKids(tree?.rootNode)) {
        if (node.type !== 'method_declaration' || node.startPosition.column !== 0) continue;
        const key = rows.get(node.startPosition.row);
        const list = key === undefined ? undefined : waiting.get(key);
        if (!list || node.hasError) continue;
        const sig = signatureOf(node.childForFieldName('parameters'), node.childForFieldName('result'), withTypeParams(cx, list[0].typeParams));
        memo.set(key!, sig ?? null);
        if (sig) for (const item of list) item.decl.sig = sig;
      }
    } finally {
      tree?.delete();
    }
  };
  parse([...waiting.keys()]);
  // a header the parser could not recover from may have spoiled its neighbours: those get a parse of their own
  const left = [...waiting.keys()].filter((key) => !memo.has(key));
  if (left.length > 1) for (const key of left) parse([key]);
  for (const key of left) if (!memo.has(key)) memo.set(key, null);
}

function withTypeParams(cx: GoNameContext, names: string[]): GoNameContext {
  return names.length ? { ...cx, typeParams: new Set([...(cx.typeParams ?? []), ...names]) } : cx;
}

/**
 * Method declarations (receiver type, name, pointer receiver) in a piece of Go source; with a parser, each with its
 * signature (type names resolved in `cx`) when its header parses.
 */
export function goMethodsIn(text: string, parser?: Parser, cx: GoNameContext = { pkg: '' }): GoMethodDecl[] {
  const items = methodHeadersIn(text);
  if (parser && items.length) attachSignatures(parser, items, cx);
  return items.map((i) => i.decl);
}

function packageIn(text: string): string | undefined {
  if (!PACKAGE_CLAUSE.test(text)) return undefined;
  const m = PACKAGE_CLAUSE.exec(text.includes('/*') || text.includes('`') ? blankGoNoise(text) : text);
  return m ? m[1] : undefined;
}

const IMPORT_SPEC = new RegExp(String.raw`^(?:import)?[ \t]*(${ID}|\.)?[ \t]*"([^"\n]+)"`, 'gmu');
const IMPORT_BLOCK = /^import[ \t]*\(([\s\S]*?)^\)/gm;
const IMPORT_LINE = /^import[ \t]+[^(\n]*$/gm;

/** The package name an import path gives by default: its last element (`math/rand/v2` → rand, `yaml.v3` → yaml). */
export function goPackageNameOfPath(path: string): string {
  const parts = path.split('/');
  let last = parts[parts.length - 1] ?? '';
  if (/^v\d+$/.test(last) && parts.length > 1) last = parts[parts.length - 2];
  return last.replace(/\.v\d+$/, '').replace(/^go-/, '').replace(/[.-]/g, '_');
}

/** Import aliases (`alias "path"` → alias → the path's package name) and whether a dot import is among the imports. */
export function goImportsIn(text: string): { aliases: Map<string, string>; dotImport: boolean } {
  const aliases = new Map<string, string>();
  let dotImport = false;
  if (!/^import\b/m.test(text)) return { aliases, dotImport };
  const specs: string[] = [];
  for (const m of text.matchAll(IMPORT_BLOCK)) specs.push(m[1]);
  for (const m of text.matchAll(IMPORT_LINE)) specs.push(m[0]);
  for (const block of specs) {
    for (const m of block.matchAll(IMPORT_SPEC)) {
      const alias = m[1];
      if (alias === '.') dotImport = true;
      else if (alias && alias !== '_') aliases.set(alias, goPackageNameOfPath(m[2]));
    }
  }
  return { aliases, dotImport };
}

// ---------------------------------------------------------------- signatures

/** Marker: any type (a type parameter, a type not understood). */
const ANY = '\u0000';
/** Marker before a name: any package (an unqualified name in a file with a dot import). */
const ANY_PKG = '\u0001';
const PREDECLARED = new Set([
  'bool', 'complex64', 'complex128', 'error', 'float32', 'float64', 'int', 'int8', 'int16', 'int32', 'int64',
  'string', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr', 'comparable',
]);
const PREDECLARED_ALIASES = new Map([['byte', 'uint8'], ['rune', 'int32'], ['any', 'interface{}']]);

/** Thrown (one shared instance) for a type the normaliser does not understand. */
const UNKNOWN = new Error('unknown Go type');

/** A type's canonical text (see `GoSignature`); throws `UNKNOWN` for what it does not understand. */
function canonType(n: Node | null | undefined, cx: GoNameContext): string {
  if (!n) throw UNKNOWN;
  switch (n.type) {
    case 'type_identifier': {
      const name = n.text;
      if (cx.typeParams?.has(name)) return ANY;
      const alias = PREDECLARED_ALIASES.get(name);
      if (alias !== undefined) return alias;
      if (PREDECLARED.has(name)) return name;
      if (cx.dotImport) return ANY_PKG + name;
      return cx.pkg ? `${cx.pkg}.${name}` : name;
    }
    case 'qualified_type': {
      const pkg = n.childForFieldName('package')?.text;
      const name = n.childForFieldName('name')?.text;
      if (!pkg || !name) throw UNKNOWN;
      return `${cx.aliases?.get(pkg) ?? pkg}.${name}`;
    }
    case 'pointer_type':
      return `*${canonType(namedKids(n)[0], cx)}`;
    case 'slice_type':
      return `[]${canonType(n.childForFieldName('element'), cx)}`;
    case 'array_type': {
      const length = n.childForFieldName('length');
      if (!length) throw UNKNOWN;
      return `[${length.text.replace(/\s+/g, '')}]${canonType(n.childForFieldName('element'), cx)}`;
    }
    case 'map_type':
      return `map[${canonType(n.childForFieldName('key'), cx)}]${canonType(n.childForFieldName('value'), cx)}`;
    case 'channel_type': {
      const tokens = n.children.filter((c) => c && !c.isNamed).map((c) => c!.type);
      const dir = tokens[0] === '<-' ? '<-chan ' : tokens.includes('<-') ? 'chan<- ' : 'chan ';
      return dir + canonType(n.childForFieldName('value'), cx);
    }
    case 'function_type':
      return `func${signatureText(n.childForFieldName('parameters'), n.childForFieldName('result'), cx)}`;
    case 'interface_type': {
      const elements: string[] = [];
      for (const el of namedKids(n)) {
        if (el.type === 'comment') continue;
        if (el.type === 'method_spec' || el.type === 'method_elem') {
          elements.push(`${el.childForFieldName('name')?.text ?? ''}${signatureText(el.childForFieldName('parameters'), el.childForFieldName('result'), cx)}`);
        } else if (el.type === 'constraint_elem' || el.type === 'type_elem') {
          elements.push(namedKids(el).map((k) => canonType(k, cx)).join('|'));
        } else {
          throw UNKNOWN;
        }
      }
      return `interface{${elements.sort().join(';')}}`;
    }
    case 'struct_type': {
      const fields: string[] = [];
      for (const f of namedKids(namedKids(n).find((c) => c.type === 'field_declaration_list'))) {
        if (f.type === 'comment') continue;
        if (f.type !== 'field_declaration') throw UNKNOWN;
        const names = f.childrenForFieldName('name').filter((c): c is Node => !!c).map((c) => c.text);
        const star = !names.length && f.children.some((c) => c && !c.isNamed && c.type === '*');
        const type = (star ? '*' : '') + canonType(f.childForFieldName('type'), cx);
        const tag = f.childForFieldName('tag')?.text;
        const suffix = tag ? ` ${tag}` : '';
        if (names.length) for (const name of names) fields.push(`${name} ${type}${suffix}`);
        else fields.push(type + suffix);
      }
      return `struct{${fields.join(';')}}`;
    }
    case 'generic_type':
      return `${canonType(n.childForFieldName('type'), cx)}[${namedKids(n.childForFieldName('type_arguments')).map((a) => canonType(a, cx)).join(',')}]`;
    case 'parenthesized_type':
      return canonType(namedKids(n)[0], cx);
    case 'type_elem':
    case 'constraint_elem':
    case 'union_type':
      return namedKids(n).map((k) => canonType(k, cx)).join('|');
    case 'negated_type':
      return `~${canonType(namedKids(n)[0], cx)}`;
    default:
      throw UNKNOWN;
  }
}

/** A parameter's type, or `ANY` when the normaliser does not understand it. */
function typeOrAny(n: Node | null | undefined, cx: GoNameContext): string {
  try {
    return canonType(n, cx);
  } catch (err) {
    if (err === UNKNOWN) return ANY;
    throw err;
  }
}

/**
 * One canonical type per parameter (`a, b int` → two, `...T` variadic) of a parameter list, or of a lone result type.
 * `strict`: a type not understood throws (inside a nested func type) instead of becoming `ANY`; null when the list
 * holds something that is not a parameter.
 */
function paramTypes(list: Node | null | undefined, cx: GoNameContext, strict: boolean): string[] | null {
  if (!list) return [];
  const type = strict ? canonType : typeOrAny;
  if (list.type !== 'parameter_list') return [type(list, cx)];
  const out: string[] = [];
  for (const p of namedKids(list)) {
    if (p.type === 'comment') continue;
    if (p.type === 'parameter_declaration') {
      const t = type(p.childForFieldName('type'), cx);
      const names = p.childrenForFieldName('name').length;
      for (let i = 0; i < Math.max(1, names); i++) out.push(t);
    } else if (p.type === 'variadic_parameter_declaration') {
      out.push(`...${type(p.childForFieldName('type'), cx)}`);
    } else if (strict) {
      throw UNKNOWN;
    } else {
      return null;
    }
  }
  return out;
}

/** `(T1,T2) R` / `(T1) (R1,R2)`: a nested func type or interface-literal method, canonical. */
function signatureText(params: Node | null, result: Node | null, cx: GoNameContext): string {
  const ps = paramTypes(params, cx, true)!;
  const rs = paramTypes(result, cx, true)!;
  return `(${ps.join(',')})${rs.length === 0 ? '' : rs.length === 1 && !rs[0].startsWith('...') ? ` ${rs[0]}` : ` (${rs.join(',')})`}`;
}

/** A signature from canonical parameter and result types. */
export function makeGoSignature(params: string[], results: string[]): GoSignature {
  const sig: GoSignature = { params, results, key: `(${params.join(', ')}) (${results.join(', ')})` };
  if (sig.key.includes(ANY) || sig.key.includes(ANY_PKG)) sig.wild = true;
  return sig;
}

/** The signature of a method (`parameters` and `result` fields of its node), or undefined when the lists are not understood. */
function signatureOf(params: Node | null, result: Node | null, cx: GoNameContext): GoSignature | undefined {
  const ps = paramTypes(params, cx, false);
  const rs = paramTypes(result, cx, false);
  return ps && rs ? makeGoSignature(ps, rs) : undefined;
}

/**
 * The signature of a func type written in Go (`func(p []byte) (n int, err error)`), names resolved in `cx`; `typeParams`
 * stand for any type. Undefined when it does not parse as a func type.
 */
export function goFuncTypeSignature(parser: Parser, funcType: string, cx: GoNameContext = { pkg: '' }): GoSignature | undefined {
  const tree = parser.parse(`type _ ${funcType}\n`);
  if (!tree) return undefined;
  try {
    const spec = tree.rootNode.descendantsOfType('type_spec')[0];
    const t = spec?.childForFieldName('type');
    if (!t || t.type !== 'function_type' || tree.rootNode.hasError) return undefined;
    return signatureOf(t.childForFieldName('parameters'), t.childForFieldName('result'), cx);
  } finally {
    tree.delete();
  }
}

/** A signature as Go-like text: `(io.Reader, ...int) (int, error)`; `?` for any type, `?.` for any package. */
export function formatGoSignature(sig: GoSignature | null | undefined): string {
  return sig ? sig.key.replaceAll(ANY, '?').replaceAll(ANY_PKG, '?.') : '(?)';
}

const patterns = new Map<string, RegExp>();
function wildPattern(type: string): RegExp {
  let re = patterns.get(type);
  if (!re) {
    const body = type
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replaceAll(ANY, '.+')
      .replaceAll(ANY_PKG, String.raw`(?:[\p{L}\p{N}_]+\.)?`);
    patterns.set(type, (re = new RegExp(`^${body}$`, 'u')));
  }
  return re;
}

const isWild = (type: string) => type.includes(ANY) || type.includes(ANY_PKG);

function typesMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const wa = isWild(a);
  const wb = isWild(b);
  if (!wa && !wb) return false;
  if (a.startsWith('...') !== b.startsWith('...')) return false;
  if (wa && wb) return true; // two partly unknown types (a generic interface and a generic receiver): lenient
  return wa ? wildPattern(a).test(b) : wildPattern(b).test(a);
}

/**
 * Whether a concrete method's signature satisfies an interface method's (symmetric). Unknown (null/undefined) on
 * either side: true (name-only match). Fully known: equal canonical types in order. Partly known: same arity, and
 * each position equal or matching the unknown part.
 */
export function goSignaturesMatch(a: GoSignature | null | undefined, b: GoSignature | null | undefined): boolean {
  if (!a || !b) return true;
  if (!a.wild && !b.wild) return a.key === b.key;
  if (a.params.length !== b.params.length || a.results.length !== b.results.length) return false;
  return a.params.every((t, i) => typesMatch(t, b.params[i])) && a.results.every((t, i) => typesMatch(t, b.results[i]));
}

// ---------------------------------------------------------------- type declarations (tree-sitter)

const namedKids = (n: Node | null | undefined): Node[] => (n ? n.namedChildren.filter((c): c is Node => !!c) : []);

/** `Foo`, `pkg.Foo`, `Foo[T]`, `*Foo` as a reference; null for anything else (`[]int`, `map[..]`, `~int`, unions). */
function typeRef(node: Node | null | undefined, pointer = false): GoTypeRef | null {
  if (!node) return null;
  switch (node.type) {
    case 'type_identifier':
      return { pkg: '', name: node.text, pointer };
    case 'qualified_type':
      return { pkg: node.childForFieldName('package')?.text ?? '', name: node.childForFieldName('name')?.text ?? '', pointer };
    case 'generic_type':
      return typeRef(node.childForFieldName('type'), pointer);
    case 'pointer_type':
      return typeRef(namedKids(node)[0], true);
    case 'parenthesized_type':
      return typeRef(namedKids(node)[0], pointer);
    default:
      return null;
  }
}

function interfaceFacts(t: Node, cx: GoNameContext): Pick<GoTypeDecl, 'methods' | 'signatures' | 'embeds' | 'constraint'> {
  const methods: string[] = [];
  const signatures: Array<GoSignature | null> = [];
  const embeds: GoTypeRef[] = [];
  let constraint = false;
  for (const el of namedKids(t)) {
    if (el.type === 'method_spec' || el.type === 'method_elem') {
      const name = el.childForFieldName('name')?.text;
      if (name && !methods.includes(name)) {
        methods.push(name);
        const sig = el.hasError ? undefined : signatureOf(el.childForFieldName('parameters'), el.childForFieldName('result'), cx);
        signatures.push(sig ?? null);
      }
    } else if (el.type === 'constraint_elem' || el.type === 'type_elem') {
      const parts = namedKids(el);
      const ref = parts.length === 1 ? typeRef(parts[0]) : null;
      if (ref && !ref.pointer && ref.name) embeds.push(ref);
      else constraint = true;
    } else if (el.type !== 'comment') {
      constraint = true;
    }
  }
  return methods.length ? { methods, signatures, embeds, constraint } : { methods, embeds, constraint };
}

/** Names of a generic type's parameters (`type G[K comparable, V any]` → K, V). */
function typeParamNames(spec: Node): string[] {
  const list = spec.childForFieldName('type_parameters');
  const out: string[] = [];
  for (const p of namedKids(list)) {
    for (const n of p.childrenForFieldName('name')) if (n) out.push(n.text);
  }
  return out;
}

function structEmbeds(t: Node): GoTypeRef[] {
  const out: GoTypeRef[] = [];
  const list = namedKids(t).find((c) => c.type === 'field_declaration_list');
  for (const f of namedKids(list).filter((c) => c.type === 'field_declaration')) {
    if (f.childForFieldName('name')) continue;
    // `*pkg.T` parses as a field whose type is `pkg.T` preceded by an anonymous `*`
    const star = f.children.some((c) => c && !c.isNamed && c.type === '*');
    const ref = typeRef(f.childForFieldName('type'), star);
    if (ref?.name) out.push(ref);
  }
  return out;
}

type DeclaredType = Omit<GoTypeDecl, 'chunkId' | 'path' | 'explicit'>;

/** The named types and the aliases of named types a piece of Go source declares (top-level declarations only). */
function declarationsIn(parser: Parser, text: string, cx: GoNameContext): { types: DeclaredType[]; aliases: Array<[string, string]> } {
  const types: DeclaredType[] = [];
  const aliases: Array<[string, string]> = [];
  const tree = parser.parse(text);
  if (!tree) return { types, aliases };
  try {
    for (const decl of namedKids(tree.rootNode)) {
      if (decl.type !== 'type_declaration') continue;
      for (const spec of namedKids(decl)) {
        const name = spec.childForFieldName('name')?.text;
        const t = spec.childForFieldName('type');
        if (!name || !t) continue;
        if (spec.type === 'type_alias') {
          // `type A = B` shares B's method set (not a type of its own); in signatures, A is B
          if (cx.pkg && !spec.hasError && (t.type === 'type_identifier' || t.type === 'qualified_type')) {
            const target = typeOrAny(t, cx);
            if (!isWild(target)) aliases.push([`${cx.pkg}.${name}`, target]);
          }
          continue;
        }
        if (spec.type !== 'type_spec') continue;
        if (t.type === 'interface_type') types.push({ name, interface: true, ...interfaceFacts(t, withTypeParams(cx, typeParamNames(spec))) });
        else types.push({ name, interface: false, methods: [], embeds: t.type === 'struct_type' ? structEmbeds(t) : [], constraint: false });
      }
    }
    return { types, aliases };
  } finally {
    tree.delete();
  }
}

/**
 * The named types a piece of Go source declares (top-level `type` declarations only); interface method signatures
 * have their type names resolved in `cx`.
 */
export function goTypesIn(parser: Parser, text: string, cx: GoNameContext = { pkg: '' }): DeclaredType[] {
  return declarationsIn(parser, text, cx).types;
}

const TYPE_GROUP = /^type[ \t]*\(/m;
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
function needsParse(kind: string, text: string): boolean {
  if (kind === 'interface' || TYPE_GROUP.test(text)) return true;
  if (kind === 'type_alias') return ALIAS_SPEC.test(text);
  if (kind !== 'struct') return false;
  return (EMBED_LINE.test(text) || ONE_LINE_STRUCT.test(text)) && (EMBED_LINE.test(blankGoNoise(text)) || ONE_LINE_STRUCT.test(blankGoNoise(text)));
}

/** The package a folder's files belong to when no `package` clause was seen: its name (`math/rand/v2` → rand). */
function folderPackage(dir: string): string {
  const parts = dir.split('/');
  let base = parts[parts.length - 1] ?? '';
  if (/^v\d+$/.test(base) && parts.length > 1) base = parts[parts.length - 2];
  return base;
}

/** Facts of one file from its stored chunks. */
export function goFileFacts(path: string, chunks: readonly GoChunkRow[], parser: Parser, memo?: GoSignatureMemo): GoFileFacts {
  const facts: GoFileFacts = { path, types: [], methods: [] };
  // over-long declarations are split into contiguous pieces with the same symbol: parse them whole
  const typePieces = new Map<string, GoChunkRow[]>();
  const headers: MethodHeader[] = [];
  let imports: ReturnType<typeof goImportsIn> | undefined;
  for (const c of [...chunks].sort((a, b) => a.startByte - b.startByte)) {
    if (!facts.packageName) {
      facts.packageName = packageIn(c.content);
      // the package clause and the imports are kept with the file's first chunk
      if (facts.packageName) imports = goImportsIn(c.content);
    }
    if (TYPE_KINDS.has(c.kind)) {
      const key = `${c.kind}\0${c.symbol}`;
      const pieces = typePieces.get(key);
      if (pieces) pieces.push(c);
      else typePieces.set(key, [c]);
    } else {
      headers.push(...methodHeadersIn(c.content));
    }
  }
  const cx: GoNameContext = { pkg: facts.packageName ?? folderPackage(dirOf(path)), aliases: imports?.aliases, dotImport: imports?.dotImport };
  attachSignatures(parser, headers, cx, memo);
  facts.methods = headers.map((h) => h.decl);
  for (const pieces of typePieces.values()) {
    const first = pieces[0];
    const text = pieces.map((p) => p.content).join('');
    const lone: DeclaredType[] = first.name ? [{ name: first.name, interface: false, methods: [], embeds: [], constraint: false }] : [];
    let types = lone;
    if (needsParse(first.kind, text)) {
      const found = declarationsIn(parser, text, cx);
      if (found.aliases.length) (facts.aliases ??= []).push(...found.aliases);
      // a lone `type A = B` still counts as a type named A (methods declared on receiver A land there)
      if (first.kind !== 'type_alias' || TYPE_GROUP.test(text)) types = found.types;
    }
    // what the chunker recorded as conformances: embedded types (explicit rows exist for the group's first type)
    for (const t of types) facts.types.push({ ...t, chunkId: first.id, path, explicit: t.embeds.map((e) => e.name) });
  }
  return facts;
}

// ---------------------------------------------------------------- the join

const dirOf = (path: string) => {
  const i = path.lastIndexOf('/');
  return i === -1 ? '' : path.slice(0, i);
};
const keyOf = (dir: string, name: string) => `${dir}\0${name}`;
const exported = (name: string) => /^\p{Lu}/u.test(name);

/** A method's signatures within a method set: one per distinct declaration (build tags), null = unknown. */
type Signatures = Array<GoSignature | null>;
/** Method name → signatures. */
type MethodMap = Map<string, Signatures>;

/** Method sets of the predeclared interfaces. */
const BUILTIN_INTERFACES = new Map<string, MethodMap>([
  ['error', new Map([['Error', [makeGoSignature([], ['string'])]]])],
  ['any', new Map()],
]);

function addSignature(set: MethodMap, name: string, sig: GoSignature | null): void {
  const list = set.get(name);
  if (!list) set.set(name, [sig]);
  else if (!list.some((s) => s === sig || (s && sig && s.key === sig.key))) list.push(sig);
}

function addAll(into: MethodMap, from: MethodMap): void {
  for (const [name, sigs] of from) for (const sig of sigs) addSignature(into, name, sig);
}

const QUALIFIED_NAME = /(?<![\p{L}\p{N}_])[\p{L}_][\p{L}\p{N}_]*\.[\p{L}_][\p{L}\p{N}_]*/gu;

/**
 * Signatures with type aliases replaced by their targets (`os.FileMode` → `fs.FileMode`, chains followed), from the
 * aliases the files declare; the identity when there are none.
 */
function aliasResolver(files: readonly GoFileFacts[]): (sig: GoSignature) => GoSignature {
  const aliases = new Map<string, string>();
  for (const f of files) for (const [from, to] of f.aliases ?? []) if (from !== to) aliases.set(from, to);
  if (!aliases.size) return (sig) => sig;
  const target = (name: string) => {
    let t = name;
    for (let i = 0; i < 8; i++) {
      const next = aliases.get(t);
      if (next === undefined) break;
      t = next;
    }
    return t;
  };
  const rewrite = (type: string) => (type.includes('.') ? type.replace(QUALIFIED_NAME, target) : type);
  const done = new Map<GoSignature, GoSignature>();
  return (sig) => {
    let out = done.get(sig);
    if (!out) {
      const params = sig.params.map(rewrite);
      const results = sig.results.map(rewrite);
      out = params.some((p, i) => p !== sig.params[i]) || results.some((r, i) => r !== sig.results[i]) ? makeGoSignature(params, results) : sig;
      done.set(sig, out);
    }
    return out;
  };
}

/** Whether some signature the set has for a method satisfies some signature the interface gives it. */
const satisfies = (have: Signatures | undefined, want: Signatures) => !!have && want.some((w) => have.some((h) => goSignaturesMatch(w, h)));

interface TypeInfo {
  key: string;
  dir: string;
  name: string;
  decls: GoTypeDecl[];
  interface: boolean;
}

interface MethodSets {
  value: MethodMap;
  pointer: MethodMap;
}

/** Derived conformance rows of every interface/implementer pair in the given files. */
export function implicitConformances(files: Iterable<GoFileFacts>): ImplicitRow[] {
  const types = new Map<string, TypeInfo>();
  const own = new Map<string, MethodSets>();
  const packageDirs = new Map<string, Set<string>>();
  const addPackage = (name: string, dir: string) => {
    let dirs = packageDirs.get(name);
    if (!dirs) packageDirs.set(name, (dirs = new Set()));
    dirs.add(dir);
  };
  const all = [...files];
  const unalias = aliasResolver(all);
  for (const f of all) {
    const dir = dirOf(f.path);
    if (f.packageName && !f.packageName.endsWith('_test')) addPackage(f.packageName, dir);
    for (const t of f.types) {
      const key = keyOf(dir, t.name);
      let info = types.get(key);
      if (!info) types.set(key, (info = { key, dir, name: t.name, decls: [], interface: t.interface }));
      info.decls.push(t);
    }
    for (const m of f.methods) {
      const key = keyOf(dir, m.receiver);
      let sets = own.get(key);
      if (!sets) own.set(key, (sets = { value: new Map(), pointer: new Map() }));
      const sig = m.sig ? unalias(m.sig) : null;
      if (!m.pointer) addSignature(sets.value, m.name, sig);
      addSignature(sets.pointer, m.name, sig);
    }
  }
  // a package without a clause seen in the index is known by its folder's name (`math/rand/v2` → rand)
  for (const info of types.values()) {
    const base = folderPackage(info.dir);
    if (base && !packageDirs.get(base)?.has(info.dir)) addPackage(base, info.dir);
  }

  const resolve = (ref: GoTypeRef, fromDir: string): TypeInfo | 'builtin' | null => {
    if (!ref.pkg) return types.get(keyOf(fromDir, ref.name)) ?? (BUILTIN_INTERFACES.has(ref.name) ? 'builtin' : null);
    const dirs = [...(packageDirs.get(ref.pkg) ?? [])].filter((d) => types.has(keyOf(d, ref.name)));
    if (!dirs.length) return null;
    dirs.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
    return types.get(keyOf(dirs[0], ref.name))!;
  };

  // interfaces: own methods plus embedded interfaces'; complete when every embedding resolved to an interface
  interface IfaceSet {
    methods: MethodMap;
    complete: boolean;
    constraint: boolean;
  }
  const ifaceSets = new Map<string, IfaceSet>();
  const ifaceSet = (info: TypeInfo, seen = new Set<string>()): IfaceSet => {
    const cached = ifaceSets.get(info.key);
    if (cached) return cached;
    const result: IfaceSet = { methods: new Map(), complete: true, constraint: false };
    if (seen.has(info.key)) return { ...result, complete: false };
    seen.add(info.key);
    const decl = info.decls.find((d) => d.interface)!;
    decl.methods.forEach((m, i) => {
      const sig = decl.signatures?.[i];
      addSignature(result.methods, m, sig ? unalias(sig) : null);
    });
    result.constraint = decl.constraint;
    for (const e of decl.embeds) {
      const r = resolve(e, info.dir);
      if (r === 'builtin') {
        addAll(result.methods, BUILTIN_INTERFACES.get(e.name)!);
      } else if (!r) {
        if (!e.pkg && e.name === 'comparable') result.constraint = true;
        result.complete = false;
      } else if (!r.interface) {
        result.constraint = true; // `interface{ MyInt }`: a type term
      } else {
        const sub = ifaceSet(r, seen);
        addAll(result.methods, sub.methods);
        result.complete &&= sub.complete;
        result.constraint ||= sub.constraint;
      }
    }
    seen.delete(info.key);
    ifaceSets.set(info.key, result);
    return result;
  };

  // other named types: own methods plus those promoted from embedded fields (depth rules ignored)
  const typeSets = new Map<string, MethodSets>();
  const copy = (m: MethodMap | undefined): MethodMap => new Map([...(m ?? [])].map(([k, v]) => [k, [...v]]));
  const typeSet = (info: TypeInfo, seen = new Set<string>()): MethodSets => {
    const cached = typeSets.get(info.key);
    if (cached) return cached;
    const mine = own.get(info.key);
    const result: MethodSets = { value: copy(mine?.value), pointer: copy(mine?.pointer) };
    if (seen.has(info.key)) return result;
    seen.add(info.key);
    for (const decl of info.decls) {
      for (const e of decl.embeds) {
        const r = resolve(e, info.dir);
        if (!r) continue;
        if (r === 'builtin' || r.interface) {
          const methods = r === 'builtin' ? BUILTIN_INTERFACES.get(e.name)! : ifaceSet(r).methods;
          addAll(result.value, methods);
          addAll(result.pointer, methods);
        } else {
          const sub = typeSet(r, seen);
          addAll(result.value, e.pointer ? sub.pointer : sub.value);
          addAll(result.pointer, sub.pointer);
        }
      }
    }
    seen.delete(info.key);
    if (seen.size === 0) typeSets.set(info.key, result);
    return result;
  };

  // candidates by method name: every type whose (pointer) method set has it
  const byMethod = new Map<string, TypeInfo[]>();
  const candidateSets = new Map<string, MethodSets>();
  for (const info of types.values()) {
    let sets: MethodSets;
    if (info.interface) {
      const s = ifaceSet(info);
      if (s.constraint) continue;
      sets = { value: s.methods, pointer: s.methods };
    } else {
      sets = typeSet(info);
    }
    if (!sets.pointer.size) continue;
    candidateSets.set(info.key, sets);
    for (const m of sets.pointer.keys()) {
      const list = byMethod.get(m);
      if (list) list.push(info);
      else byMethod.set(m, [info]);
    }
  }

  const rows: ImplicitRow[] = [];
  const emitted = new Set<string>();
  for (const iface of types.values()) {
    if (!iface.interface) continue;
    const s = ifaceSet(iface);
    if (!s.complete || s.constraint || s.methods.size === 0) continue;
    const wanted = [...s.methods];
    // an unexported method can only be implemented inside the package; an unexported interface is the package's own
    // abstraction (types elsewhere may satisfy it, but listing every String() method of the index is noise)
    const samePackageOnly = !exported(iface.name) || wanted.some(([m]) => !exported(m));
    let rarest: TypeInfo[] | undefined;
    for (const [m] of wanted) {
      const list = byMethod.get(m) ?? [];
      if (!rarest || list.length < rarest.length) rarest = list;
    }
    for (const t of rarest ?? []) {
      if (t.key === iface.key || (samePackageOnly && t.dir !== iface.dir)) continue;
      const sets = candidateSets.get(t.key)!;
      if (!wanted.every(([m, sigs]) => satisfies(sets.pointer.get(m), sigs))) continue;
      const kind: ImplicitKind = t.interface ? 'implicit-interface' : wanted.every(([m, sigs]) => satisfies(sets.value.get(m), sigs)) ? 'implicit' : 'implicit-pointer';
      for (const decl of t.decls) {
        if (decl.explicit.includes(iface.name)) continue;
        const id = `${decl.chunkId}\0${iface.name}`;
        if (emitted.has(id)) continue;
        emitted.add(id);
        rows.push({ chunkId: decl.chunkId, protocolName: iface.name, path: decl.path, typeName: t.name, kind });
      }
    }
  }
  rows.sort((a, b) => (a.protocolName < b.protocolName ? -1 : a.protocolName > b.protocolName ? 1 : a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
  return rows;
}

// ---------------------------------------------------------------- the pass

export interface GoImplicitSummary {
  /** Go files whose facts were (re)read from the store. */
  filesRead: number;
  /** Derived rows after the pass. */
  rows: number;
  added: number;
  removed: number;
  durationMs: number;
}

/**
 * Per-store cache of file facts. An entry is valid while the file's record is the one it was read under: the hash
 * (content) and the time the file was chunked (a re-chunk with other settings keeps the hash, not the time).
 */
const caches = new WeakMap<ChunkStore, Map<string, { token: string; facts: GoFileFacts }>>();
const recordToken = (r: FileRecord) => `${r.hash}@${r.indexedAt}`;

/**
 * Recomputes the implicit Go conformances of the whole index and writes the difference. `records` are the file
 * records after the run (read from the store when omitted).
 */
export async function refreshGoImplicitConformances(store: ChunkStore, records?: Map<string, FileRecord>): Promise<GoImplicitSummary> {
  const started = Date.now();
  records ??= await store.fileRecords();
  const goFiles = new Map<string, string>();
  for (const r of records.values()) if (r.language === GO) goFiles.set(r.path, recordToken(r));

  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new Map()));
  for (const p of [...cache.keys()]) if (goFiles.get(p) !== cache.get(p)!.token) cache.delete(p);
  const stale = [...goFiles.keys()].filter((p) => !cache!.has(p));

  if (stale.length) {
    const lang = await loadGrammar(GO);
    if (!lang) throw new Error('the Go grammar could not be loaded');
    const parser = parserFor(GO, lang);
    const byPath = new Map<string, GoChunkRow[]>(stale.map((p) => [p, []]));
    const all = stale.length > 200 || stale.length > goFiles.size / 2;
    const rows = await store.chunkColumns({ language: GO, paths: all ? undefined : stale }, ['id', 'path', 'kind', 'symbol', 'name', 'start_byte', 'content']);
    for (const r of rows) {
      byPath.get(r.path as string)?.push({
        id: r.id as string, path: r.path as string, kind: r.kind as string, symbol: r.symbol as string, name: r.name as string,
        startByte: r.start_byte as number, content: r.content as string,
      });
    }
    const memo: GoSignatureMemo = new Map();
    for (const [path, chunks] of byPath) cache.set(path, { token: goFiles.get(path)!, facts: goFileFacts(path, chunks, parser, memo) });
  }

  const desired = goFiles.size ? implicitConformances([...cache.values()].map((e) => e.facts)) : [];
  const present = await store.conformancesOfKinds(IMPLICIT_KINDS);
  const rowKey = (r: ConformanceRow) => `${r.chunkId}\0${r.protocolName}\0${r.kind}\0${r.typeName}\0${r.path}`;
  const byChunk = (rows: ConformanceRow[]) => {
    const m = new Map<string, string[]>();
    for (const r of rows) {
      const list = m.get(r.chunkId);
      if (list) list.push(rowKey(r));
      else m.set(r.chunkId, [rowKey(r)]);
    }
    for (const list of m.values()) list.sort();
    return m;
  };
  const want = byChunk(desired);
  const have = byChunk(present);
  // a chunk whose rows differ in any way gets all of its rows rewritten
  const changed = new Set<string>();
  for (const [id, keys] of want) if (have.get(id)?.join('\n') !== keys.join('\n')) changed.add(id);
  for (const id of have.keys()) if (!want.has(id)) changed.add(id);
  const add = desired.filter((r) => changed.has(r.chunkId));
  const removed = present.filter((r) => changed.has(r.chunkId)).length;
  if (changed.size) await store.replaceConformancesOfKinds(IMPLICIT_KINDS, [...changed], add);
  return { filesRead: stale.length, rows: desired.length, added: add.length, removed, durationMs: Date.now() - started };
}
