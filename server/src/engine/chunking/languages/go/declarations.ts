/**
 * Go type declarations read with tree-sitter: the named types a piece of source declares (interfaces with their
 * methods, signatures and embedded interfaces; structs with their embedded fields) and its aliases of named types.
 */
import type { Node, Parser } from 'web-tree-sitter';
import { named } from '../types';
import { isWild } from './signature';
import { signatureOf, typeOrAny, withTypeParams } from './syntax';
import type { DeclaredType, GoNameContext, GoSignature, GoTypeDecl, GoTypeRef } from './types';

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
      return typeRef(named(node)[0], true);
    case 'parenthesized_type':
      return typeRef(named(node)[0], pointer);
    default:
      return null;
  }
}

function interfaceFacts(t: Node, cx: GoNameContext): Pick<GoTypeDecl, 'methods' | 'signatures' | 'embeds' | 'constraint'> {
  const methods: string[] = [];
  const signatures: Array<GoSignature | null> = [];
  const embeds: GoTypeRef[] = [];
  let constraint = false;
  for (const el of named(t)) {
    if (el.type === 'method_spec' || el.type === 'method_elem') {
      const name = el.childForFieldName('name')?.text;
      if (name && !methods.includes(name)) {
        methods.push(name);
        const sig = el.hasError ? undefined : signatureOf(el.childForFieldName('parameters'), el.childForFieldName('result'), cx);
        signatures.push(sig ?? null);
      }
    } else if (el.type === 'constraint_elem' || el.type === 'type_elem') {
      const parts = named(el);
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
  for (const p of named(list)) {
    for (const n of p.childrenForFieldName('name')) if (n) out.push(n.text);
  }
  return out;
}

function structEmbeds(t: Node): GoTypeRef[] {
  const out: GoTypeRef[] = [];
  const list = named(t).find((c) => c.type === 'field_declaration_list');
  for (const f of named(list).filter((c) => c.type === 'field_declaration')) {
    if (f.childForFieldName('name')) continue;
    // `*pkg.T` parses as a field whose type is `pkg.T` preceded by an anonymous `*`
    const star = f.children.some((c) => c && !c.isNamed && c.type === '*');
    const ref = typeRef(f.childForFieldName('type'), star);
    if (ref?.name) out.push(ref);
  }
  return out;
}

/** The named types and the aliases of named types a piece of Go source declares (top-level declarations only). */
export function declarationsIn(parser: Parser, text: string, cx: GoNameContext): { types: DeclaredType[]; aliases: Array<[string, string]> } {
  const types: DeclaredType[] = [];
  const aliases: Array<[string, string]> = [];
  const tree = parser.parse(text);
  if (!tree) return { types, aliases };
  try {
    for (const decl of named(tree.rootNode)) {
      if (decl.type !== 'type_declaration') continue;
      for (const spec of named(decl)) {
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
