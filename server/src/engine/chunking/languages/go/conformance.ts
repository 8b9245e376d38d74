/**
 * The join: which Go types implement which interfaces, from the facts of every Go file of the index. A type's method
 * set is its own methods (`func (r T) M`, `func (r *T) M`, in any file of the same directory = package) plus those
 * promoted from embedded fields; an interface's is its methods plus those of embedded interfaces (`error` included).
 * A type implements an interface when its method set holds every method of the interface with a matching signature
 * (`signature.ts`): row kind 'implicit' when the value's method set does, 'implicit-pointer' when only the pointer's
 * does (pointer receivers), 'implicit-interface' for another interface (its method set is a superset),
 * 'implicit-embedded' when none of those methods is the type's own (all promoted from embedded fields: a wrapper).
 *
 * Skipped: interfaces without methods, interfaces with type terms (constraints), interfaces whose embedded
 * interfaces cannot be resolved in the index (their method set is unknown), pairs already declared explicitly
 * (embedding), a type and itself. An interface with an unexported method can only be implemented inside its own
 * package, and an unexported interface is matched with its own package's types only (elsewhere it would list every
 * `String()` of the index).
 */
import { dirOf, folderPackage } from './packages';
import { goSignaturesMatch, makeGoSignature } from './signature';
import type { GoFileFacts, GoSignature, GoTypeDecl, GoTypeRef, ImplicitKind, ImplicitRow } from './types';

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
  /** Declared outside the index (a standard library interface): its package name, which qualifies its rows' name. */
  external?: string;
}

interface MethodSets {
  value: MethodMap;
  pointer: MethodMap;
}

/**
 * The well-known interfaces (`stdInterfaces.ts`) the index does not declare itself: a virtual package is left out
 * whole when a package of the index with its name declares one of its interface names (the Go tree holds `io`).
 */
function externalKept(files: readonly GoFileFacts[], external: readonly GoFileFacts[]): GoFileFacts[] {
  if (!external.length) return [];
  const declared = new Set<string>();
  for (const f of files) if (f.packageName) for (const t of f.types) declared.add(`${f.packageName}.${t.name}`);
  return external.filter((e) => !e.types.some((t) => declared.has(`${e.packageName}.${t.name}`)));
}

/**
 * Derived conformance rows of every interface/implementer pair in the given files. `external`: facts of interfaces
 * declared outside the index (the standard library's well-known ones), joined like the others; rows are written for
 * the index's types only, named with the interface's package (`io.Reader`, `http.Handler`) so that a question about
 * the project's own `Reader` never lists the standard one's implementers.
 */
export function implicitConformances(files: Iterable<GoFileFacts>, external: readonly GoFileFacts[] = []): ImplicitRow[] {
  const types = new Map<string, TypeInfo>();
  const own = new Map<string, MethodSets>();
  const packageDirs = new Map<string, Set<string>>();
  const addPackage = (name: string, dir: string) => {
    let dirs = packageDirs.get(name);
    if (!dirs) packageDirs.set(name, (dirs = new Set()));
    dirs.add(dir);
  };
  const indexed = [...files];
  const outside = externalKept(indexed, external);
  const outsidePaths = new Set(outside.map((f) => f.path));
  const all = [...indexed, ...outside];
  const unalias = aliasResolver(all);
  for (const f of all) {
    const dir = dirOf(f.path);
    if (f.packageName && !f.packageName.endsWith('_test')) addPackage(f.packageName, dir);
    for (const t of f.types) {
      const key = keyOf(dir, t.name);
      let info = types.get(key);
      if (!info) types.set(key, (info = { key, dir, name: t.name, decls: [], interface: t.interface, ...(outsidePaths.has(f.path) ? { external: f.packageName ?? '' } : {}) }));
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

  // an interface name the index declares in more than one package (`lines.Reader`, `bytesio.Reader`): its rows carry
  // the package, as a standard interface's do, so that "what implements bytesio.Reader" lists only that one's
  // implementers (and a type that satisfies both gets a row for each); a name declared once keeps the bare name
  // (the package is the folder's name, as retrieval compares it: `math/rand/v2` → rand)
  const ownInterfaceDirs = new Map<string, Set<string>>();
  for (const info of types.values()) {
    if (!info.interface || info.external !== undefined) continue;
    let dirs = ownInterfaceDirs.get(info.name);
    if (!dirs) ownInterfaceDirs.set(info.name, (dirs = new Set()));
    dirs.add(info.dir);
  }
  const rowName = (iface: TypeInfo): string => {
    if (iface.external !== undefined) return iface.external ? `${iface.external}.${iface.name}` : iface.name;
    if ((ownInterfaceDirs.get(iface.name)?.size ?? 0) < 2) return iface.name;
    return `${folderPackage(iface.dir)}.${iface.name}`;
  };

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
      const mine = own.get(t.key)?.pointer;
      const promotedOnly = !t.interface && !wanted.some(([m, sigs]) => satisfies(mine?.get(m), sigs));
      const kind: ImplicitKind = t.interface
        ? 'implicit-interface'
        : promotedOnly
          ? 'implicit-embedded'
          : wanted.every(([m, sigs]) => satisfies(sets.value.get(m), sigs))
            ? 'implicit'
            : 'implicit-pointer';
      for (const decl of t.decls) {
        // a declaration outside the index (a standard library interface refining another) gets no row
        if (!decl.chunkId) continue;
        // an embedding declares it already (`struct{ io.Reader }`: a declared row); for a standard interface only its
        // own package's name counts (`SizedReader` embedding the project's `Reader` still satisfies io.Reader)
        if (iface.external !== undefined ? decl.embeds.some((e) => e.pkg === iface.external && e.name === iface.name) : decl.explicit.includes(iface.name)) continue;
        const protocolName = rowName(iface);
        const id = `${decl.chunkId}\0${protocolName}`;
        if (emitted.has(id)) continue;
        emitted.add(id);
        rows.push({ chunkId: decl.chunkId, protocolName, path: decl.path, typeName: t.name, kind });
      }
    }
  }
  rows.sort((a, b) => (a.protocolName < b.protocolName ? -1 : a.protocolName > b.protocolName ? 1 : a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0));
  return rows;
}
