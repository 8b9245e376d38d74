/**
 * Go: functions, methods (`Receiver.Method`), type declarations (struct/interface embedding as conformances), and the
 * conformances no declaration states: Go interfaces are satisfied implicitly (a type implements an interface when its
 * method set holds every method of the interface), so a pass after indexing derives them from the Go chunks of the
 * store and writes them as conformance rows (`kind` 'implicit', 'implicit-pointer' or 'implicit-interface') on the
 * implementing type's declaration chunk, so that "what implements X" finds them through the same lookup as declared
 * ones. The pass is the definition's `derivedConformances` hook; its modules, one concern each:
 *   types.ts         the shapes: row kinds, per-file facts, name contexts
 *   source.ts        chunk text without a parser: comments blanked, method headers, whether a declaration needs parsing
 *   packages.ts      package clauses, imports, folders as packages
 *   signature.ts     canonical signatures and their comparison
 *   syntax.ts        tree-sitter: type expressions and method headers to canonical signatures
 *   declarations.ts  tree-sitter: declared types (interface methods, embeddings) and aliases
 *   facts.ts         one file's facts from its stored chunks
 *   conformance.ts   the join: method sets against interfaces
 *   refresh.ts       the pass over the store (cached facts, the difference written)
 */
import type { Node } from 'web-tree-sitter';
import { bareTypeName, childOfType, childrenOfType, field, named, type LanguageDefinition } from '../types';
import { goFactsOf, refreshGoImplicitConformances } from './refresh';
import { IMPLICIT_KINDS } from './types';

function receiverType(n: Node): string | null {
  const param = childOfType(field(n, 'receiver'), 'parameter_declaration', 'variadic_parameter_declaration');
  let t = field(param, 'type');
  while (t && (t.type === 'pointer_type' || t.type === 'generic_type' || t.type === 'parenthesized_type')) {
    t = t.type === 'generic_type' ? field(t, 'type') : named(t)[0] ?? null;
  }
  return t ? t.text : null;
}

function firstSpec(n: Node): Node | null {
  return childOfType(n, 'type_spec', 'type_alias');
}

/**
 * An embedded type's name as written, with its package when it has one (`io.Reader` for `struct{ io.Reader }`, `*bufio.Writer`
 * → `bufio.Writer`, `List[T]` → `List`): another package's `Reader` is not this package's, and "what implements Reader"
 * in a project that declares its own must not list the wrappers of `io.Reader` (implements-partition compares packages).
 */
function embeddedNames(nodes: Array<Node | null | undefined>): string[] {
  const out: string[] = [];
  for (const n of nodes) {
    if (!n) continue;
    const name = bareTypeName(n.text);
    if (!name) continue;
    const written = n.text.replace(/\[[^\]]*\]/g, '').replace(/^[\s*]+/, '').trim();
    const dot = written.lastIndexOf('.');
    const pkg = dot > 0 ? written.slice(0, dot).trim() : '';
    const full = /^[\p{L}_][\p{L}\p{N}_]*$/u.test(pkg) ? `${pkg}.${name}` : name;
    if (!out.includes(full)) out.push(full);
  }
  return out;
}

function typeConformances(n: Node): string[] {
  const t = field(firstSpec(n), 'type');
  if (!t) return [];
  if (t.type === 'struct_type') {
    const list = childOfType(t, 'field_declaration_list');
    // embedded fields have a type but no name
    return embeddedNames(childrenOfType(list, 'field_declaration').filter((f) => !field(f, 'name')).map((f) => field(f, 'type')));
  }
  if (t.type === 'interface_type') {
    return embeddedNames(childrenOfType(t, 'constraint_elem', 'type_elem').flatMap((c) => named(c)));
  }
  return [];
}

function specNames(n: Node): string[] {
  // a Set, not the list's `includes`: a generated const block names thousands
  const out = new Set<string>();
  // the declaration's own specs (children, or in a spec list in other grammar versions): not a search of the whole
  // subtree, which named the local variables of a function literal (`var f = func() { var inner … }`) as declared
  // here and took 5% of the Go tree's chunking
  for (const child of n.namedChildren) {
    if (!child) continue;
    const specs = child.type === 'var_spec' || child.type === 'const_spec' ? [child] : child.type.endsWith('_spec_list') ? childrenOfType(child, 'var_spec', 'const_spec') : [];
    for (const spec of specs) for (const id of childrenOfType(spec, 'identifier')) out.add(id.text);
  }
  return [...out];
}

export const go: LanguageDefinition = {
  id: 'go',
  definitions: {
    function_declaration: { kind: 'function' },
    method_declaration: { kind: 'method', qualifier: receiverType },
    type_declaration: {
      kind: (n) => {
        const t = field(firstSpec(n), 'type');
        if (!t) return null;
        return t.type === 'struct_type' ? 'struct' : t.type === 'interface_type' ? 'interface' : 'type_alias';
      },
      name: (n) => field(firstSpec(n), 'name')?.text ?? null,
      nameNode: (n) => field(firstSpec(n), 'name'),
      body: (n) => {
        const t = field(firstSpec(n), 'type');
        return t?.type === 'struct_type' ? childOfType(t, 'field_declaration_list') : t?.type === 'interface_type' ? t : null;
      },
      conformances: typeConformances,
      names: (n) => named(n).map((s) => field(s, 'name')?.text ?? '').filter(Boolean),
    },
    var_declaration: { kind: 'variable', name: (n) => specNames(n)[0] ?? null, names: specNames, body: () => null },
    const_declaration: { kind: 'variable', name: (n) => specNames(n)[0] ?? null, names: specNames, body: () => null },
  },
  commentTypes: ['comment'],
  importTypes: ['import_declaration', 'package_clause'],
  derivedConformances: { kinds: IMPLICIT_KINDS, label: 'Go implicit interface conformances', refresh: refreshGoImplicitConformances, factsOf: goFactsOf },
};
