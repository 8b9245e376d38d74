/**
 * Go interfaces are satisfied implicitly: a type implements an interface when its method set holds every method of
 * the interface; no declaration says so. This post-indexing pass derives those conformances from the Go chunks of
 * the store and writes them as conformance rows (`kind` 'implicit', 'implicit-pointer' or 'implicit-interface', see
 * `IMPLICIT_KINDS`) on the implementing type's declaration chunk, so that "what implements X" finds them through the
 * same lookup as explicit conformances.
 *
 * What is matched: method NAMES (not signatures). A type's method set is its own methods (`func (r T) M`,
 * `func (r *T) M`, in any file of the same directory = package) plus those promoted from embedded fields; an
 * interface's is its methods plus those of embedded interfaces (`error` included). Skipped: interfaces without
 * methods, interfaces with type terms (constraints), interfaces whose embedded interfaces cannot be resolved in the
 * index (their method set is unknown), pairs already declared explicitly (embedding), a type and itself. An
 * interface with an unexported method can only be implemented inside its own package, and an unexported interface
 * is matched with its own package's types only (elsewhere it would list every `String()` of the index). Another
 * interface implements I when its method set is a superset of I's.
 *
 * Lifecycle: rows hang on the type's declaration chunk, so deleting a path deletes them like any conformance row;
 * the rows of unchanged types whose methods live in a changed file are fixed by re-running the pass after every
 * run that touched a Go file. The pass reads what it needs from the store (type declarations are re-parsed with
 * tree-sitter, method headers are read from chunk text), keeps per-file facts in memory (checked against the file
 * records, so another process's writes are seen), recomputes the join and writes only the difference. Measured on
 * Go's standard library (5,555 Go files, 68k Go chunks, 12.6k derived rows): 1.1-1.3 s for the first pass of a
 * process (reading the Go chunks, parsing ~2k type declarations), 0.25-0.45 s for later ones (one file re-read, the
 * join, the difference).
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

/** One named type declared in a file (a `type (...)` group declares several). */
export interface GoTypeDecl {
  name: string;
  /** The declaration chunk (the first piece when an over-long declaration was split). */
  chunkId: string;
  path: string;
  interface: boolean;
  /** An interface's own method names. */
  methods: string[];
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
}

/** What one Go file contributes. */
export interface GoFileFacts {
  path: string;
  /** The `package` clause's name when a chunk of the file shows it. */
  packageName?: string;
  types: GoTypeDecl[];
  methods: GoMethodDecl[];
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

// ---------------------------------------------------------------- reading chunk text

const NOISE = /\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|`[^`]*`?|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?/g;

/** Comments and string/rune literals blanked to spaces (newlines kept), so that line-anchored patterns see code only. */
export function blankGoNoise(text: string): string {
  return text.replace(NOISE, (m) => m.replace(/[^\n]/g, ' '));
}

const ID = String.raw`[\p{L}_][\p{L}\p{N}_]*`;
/** `func (r *T[K]) Name(` at the start of a line (gofmt puts every top-level declaration there). */
const METHOD_HEADER = new RegExp(
  String.raw`^func[ \t]*\([ \t]*(?:${ID}[ \t]+)?(\*?)[ \t]*(${ID})[ \t]*(?:\[[^\]\n]*\])?[ \t]*\)[ \t]*(${ID})[ \t]*[(\[]`,
  'gmu',
);
const PACKAGE_CLAUSE = new RegExp(String.raw`^package[ \t]+(${ID})`, 'mu');
const MAYBE_METHOD = /^func[ \t]*\(/m;

/** Method declarations (receiver type, name, pointer receiver) in a piece of Go source. */
export function goMethodsIn(text: string): GoMethodDecl[] {
  if (!MAYBE_METHOD.test(text)) return [];
  const out: GoMethodDecl[] = [];
  // a line can only start inside a comment or string when a block comment or a raw string is around
  const code = text.includes('/*') || text.includes('`') ? blankGoNoise(text) : text;
  for (const m of code.matchAll(METHOD_HEADER)) out.push({ pointer: m[1] === '*', receiver: m[2], name: m[3] });
  return out;
}

function packageIn(text: string): string | undefined {
  if (!PACKAGE_CLAUSE.test(text)) return undefined;
  const m = PACKAGE_CLAUSE.exec(text.includes('/*') || text.includes('`') ? blankGoNoise(text) : text);
  return m ? m[1] : undefined;
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

function interfaceFacts(t: Node): Pick<GoTypeDecl, 'methods' | 'embeds' | 'constraint'> {
  const methods: string[] = [];
  const embeds: GoTypeRef[] = [];
  let constraint = false;
  for (const el of namedKids(t)) {
    if (el.type === 'method_spec' || el.type === 'method_elem') {
      const name = el.childForFieldName('name')?.text;
      if (name && !methods.includes(name)) methods.push(name);
    } else if (el.type === 'constraint_elem' || el.type === 'type_elem') {
      const parts = namedKids(el);
      const ref = parts.length === 1 ? typeRef(parts[0]) : null;
      if (ref && !ref.pointer && ref.name) embeds.push(ref);
      else constraint = true;
    } else if (el.type !== 'comment') {
      constraint = true;
    }
  }
  return { methods, embeds, constraint };
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

/** The named types a piece of Go source declares (top-level `type` declarations only). */
export function goTypesIn(parser: Parser, text: string): Array<Omit<GoTypeDecl, 'chunkId' | 'path' | 'explicit'>> {
  const tree = parser.parse(text);
  if (!tree) return [];
  try {
    const out: Array<Omit<GoTypeDecl, 'chunkId' | 'path' | 'explicit'>> = [];
    for (const decl of namedKids(tree.rootNode)) {
      if (decl.type !== 'type_declaration') continue;
      for (const spec of namedKids(decl)) {
        if (spec.type !== 'type_spec') continue; // `type A = B` aliases share B's method set: not a type of their own
        const name = spec.childForFieldName('name')?.text;
        const t = spec.childForFieldName('type');
        if (!name || !t) continue;
        if (t.type === 'interface_type') out.push({ name, interface: true, ...interfaceFacts(t) });
        else out.push({ name, interface: false, methods: [], embeds: t.type === 'struct_type' ? structEmbeds(t) : [], constraint: false });
      }
    }
    return out;
  } finally {
    tree.delete();
  }
}

const TYPE_GROUP = /^type[ \t]*\(/m;
/** A line of a struct body that is a lone (maybe qualified, pointer or generic) type name: an embedded field. */
const EMBED_LINE = new RegExp(String.raw`^[ \t]*\*?[ \t]*${ID}(?:\.${ID})?(?:\[[^\]\n]*\])?[ \t]*;?[ \t]*$`, 'mu');

/** `struct{ io.Reader }` on one line (the parser decides whether it embeds). */
const ONE_LINE_STRUCT = /\bstruct[ \t]*\{[^\n}]*\S[^\n}]*\}/;

/**
 * Whether a type declaration chunk needs the parser: interfaces, `type (...)` groups and structs with an embedded
 * field. A plain struct or `type X int` declares one non-interface type without embeddings: its name says it all
 * (the chunk's kind is its first type's).
 */
function needsParse(kind: string, text: string): boolean {
  if (kind === 'interface' || TYPE_GROUP.test(text)) return true;
  if (kind !== 'struct') return false;
  return (EMBED_LINE.test(text) || ONE_LINE_STRUCT.test(text)) && (EMBED_LINE.test(blankGoNoise(text)) || ONE_LINE_STRUCT.test(blankGoNoise(text)));
}

/** Facts of one file from its stored chunks. */
export function goFileFacts(path: string, chunks: readonly GoChunkRow[], parser: Parser): GoFileFacts {
  const facts: GoFileFacts = { path, types: [], methods: [] };
  // over-long declarations are split into contiguous pieces with the same symbol: parse them whole
  const typePieces = new Map<string, GoChunkRow[]>();
  for (const c of [...chunks].sort((a, b) => a.startByte - b.startByte)) {
    facts.packageName ??= packageIn(c.content);
    if (TYPE_KINDS.has(c.kind)) {
      const key = `${c.kind}\0${c.symbol}`;
      const pieces = typePieces.get(key);
      if (pieces) pieces.push(c);
      else typePieces.set(key, [c]);
    } else {
      facts.methods.push(...goMethodsIn(c.content));
    }
  }
  for (const pieces of typePieces.values()) {
    const first = pieces[0];
    const text = pieces.map((p) => p.content).join('');
    const types = needsParse(first.kind, text)
      ? goTypesIn(parser, text)
      : first.name ? [{ name: first.name, interface: false, methods: [], embeds: [], constraint: false }] : [];
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

/** Method sets of the predeclared interfaces. */
const BUILTIN_INTERFACES: Record<string, string[]> = { error: ['Error'], any: [] };

interface TypeInfo {
  key: string;
  dir: string;
  name: string;
  decls: GoTypeDecl[];
  interface: boolean;
}

interface MethodSets {
  value: Set<string>;
  pointer: Set<string>;
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
  for (const f of files) {
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
      if (!sets) own.set(key, (sets = { value: new Set(), pointer: new Set() }));
      if (!m.pointer) sets.value.add(m.name);
      sets.pointer.add(m.name);
    }
  }
  // a package without a clause seen in the index is known by its folder's name (`math/rand/v2` → rand)
  for (const info of types.values()) {
    const parts = info.dir.split('/');
    let base = parts[parts.length - 1] ?? '';
    if (/^v\d+$/.test(base) && parts.length > 1) base = parts[parts.length - 2];
    if (base && !packageDirs.get(base)?.has(info.dir)) addPackage(base, info.dir);
  }

  const resolve = (ref: GoTypeRef, fromDir: string): TypeInfo | 'builtin' | null => {
    if (!ref.pkg) return types.get(keyOf(fromDir, ref.name)) ?? (ref.name in BUILTIN_INTERFACES ? 'builtin' : null);
    const dirs = [...(packageDirs.get(ref.pkg) ?? [])].filter((d) => types.has(keyOf(d, ref.name)));
    if (!dirs.length) return null;
    dirs.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
    return types.get(keyOf(dirs[0], ref.name))!;
  };

  // interfaces: own methods plus embedded interfaces'; complete when every embedding resolved to an interface
  const ifaceSets = new Map<string, { methods: Set<string>; complete: boolean; constraint: boolean }>();
  const ifaceSet = (info: TypeInfo, seen = new Set<string>()): { methods: Set<string>; complete: boolean; constraint: boolean } => {
    const cached = ifaceSets.get(info.key);
    if (cached) return cached;
    const result = { methods: new Set<string>(), complete: true, constraint: false };
    if (seen.has(info.key)) return { ...result, complete: false };
    seen.add(info.key);
    const decl = info.decls.find((d) => d.interface)!;
    for (const m of decl.methods) result.methods.add(m);
    result.constraint = decl.constraint;
    for (const e of decl.embeds) {
      const r = resolve(e, info.dir);
      if (r === 'builtin') {
        for (const m of BUILTIN_INTERFACES[e.name]) result.methods.add(m);
      } else if (!r) {
        if (!e.pkg && e.name === 'comparable') result.constraint = true;
        result.complete = false;
      } else if (!r.interface) {
        result.constraint = true; // `interface{ MyInt }`: a type term
      } else {
        const sub = ifaceSet(r, seen);
        for (const m of sub.methods) result.methods.add(m);
        result.complete &&= sub.complete;
        result.constraint ||= sub.constraint;
      }
    }
    seen.delete(info.key);
    ifaceSets.set(info.key, result);
    return result;
  };

  // other named types: own methods plus those promoted from embedded fields (names only; depth rules ignored)
  const typeSets = new Map<string, MethodSets>();
  const typeSet = (info: TypeInfo, seen = new Set<string>()): MethodSets => {
    const cached = typeSets.get(info.key);
    if (cached) return cached;
    const mine = own.get(info.key);
    const result: MethodSets = { value: new Set(mine?.value), pointer: new Set(mine?.pointer) };
    if (seen.has(info.key)) return result;
    seen.add(info.key);
    for (const decl of info.decls) {
      for (const e of decl.embeds) {
        const r = resolve(e, info.dir);
        if (!r) continue;
        if (r === 'builtin') {
          for (const m of BUILTIN_INTERFACES[e.name] ?? []) (result.value.add(m), result.pointer.add(m));
        } else if (r.interface) {
          for (const m of ifaceSet(r).methods) (result.value.add(m), result.pointer.add(m));
        } else {
          const sub = typeSet(r, seen);
          for (const m of e.pointer ? sub.pointer : sub.value) result.value.add(m);
          for (const m of sub.pointer) result.pointer.add(m);
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
    for (const m of sets.pointer) {
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
    const samePackageOnly = !exported(iface.name) || wanted.some((m) => !exported(m));
    let rarest: TypeInfo[] | undefined;
    for (const m of wanted) {
      const list = byMethod.get(m) ?? [];
      if (!rarest || list.length < rarest.length) rarest = list;
    }
    for (const t of rarest ?? []) {
      if (t.key === iface.key || (samePackageOnly && t.dir !== iface.dir)) continue;
      const sets = candidateSets.get(t.key)!;
      if (!wanted.every((m) => sets.pointer.has(m))) continue;
      const kind: ImplicitKind = t.interface ? 'implicit-interface' : wanted.every((m) => sets.value.has(m)) ? 'implicit' : 'implicit-pointer';
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
    for (const [path, chunks] of byPath) cache.set(path, { token: goFiles.get(path)!, facts: goFileFacts(path, chunks, parser) });
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
