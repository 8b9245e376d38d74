/** Rust: fns, structs/enums/traits, impl blocks (`impl Trait for Type` → symbol Type, conformances [Trait]), inline modules. */
import type { Node } from 'web-tree-sitter';
import { bareNames, bareTypeName, field, named, type LanguageDefinition } from './types';

function implType(n: Node): string | null {
  const t = field(n, 'type');
  return t ? bareTypeName(t.text) || t.text : null;
}

/** Nodes whose children stand where items may (a file's top level, an inline module's body). */
const ITEM_PARENTS = new Set(['source_file', 'declaration_list']);
/** How an item begins (after its doc comments and attributes): what a macro call's braces must start with to be read through. */
const ITEM_START = /^(?:#!?\[|\/\/|\/\*|(?:pub|fn|struct|enum|union|impl|mod|use|trait|type|const|static|unsafe|async|extern)\b|macro_rules!)/;

/**
 * Item-level macro calls whose braces hold items — feature gates (`cfg_rt! { … }`), `pin_project! { … }`:
 * tokio's `JoinHandle` and a quarter of its files are declared inside one — are read as those items: the call's head
 * (`cfg_rt! {`) and its closing brace are blanked for the parser (same length, newlines kept). Null when there is none.
 */
export function unwrapItemMacros(root: Node, text: string): string | null {
  const blanks: Array<[number, number]> = [];
  const visit = (parent: Node) => {
    for (const child of parent.namedChildren) {
      if (!child) continue;
      if (child.type === 'mod_item') {
        const body = field(child, 'body');
        if (body) visit(body);
        continue;
      }
      if (child.type !== 'macro_invocation' || !ITEM_PARENTS.has(parent.type)) continue;
      const args = child.namedChildren[child.namedChildren.length - 1];
      if (!args || args.type !== 'token_tree' || text[args.startIndex] !== '{' || text[args.endIndex - 1] !== '}') continue;
      if (!ITEM_START.test(text.slice(args.startIndex + 1, args.endIndex - 1).trimStart())) continue;
      blanks.push([child.startIndex, args.startIndex + 1], [args.endIndex - 1, child.endIndex]);
    }
  };
  visit(root);
  if (!blanks.length) return null;
  let out = '';
  let at = 0;
  for (const [from, to] of blanks) {
    out += text.slice(at, from) + text.slice(from, to).replace(/[^\n]/g, ' ');
    at = to;
  }
  return out + text.slice(at);
}

export const rust: LanguageDefinition = {
  id: 'rust',
  definitions: {
    function_item: { kind: 'function' },
    function_signature_item: { kind: 'function', body: () => null },
    struct_item: { kind: 'struct' },
    union_item: { kind: 'struct' },
    enum_item: { kind: 'enum' },
    trait_item: { kind: 'trait', container: true, conformances: (n) => bareNames(named(field(n, 'bounds'))) },
    impl_item: {
      kind: 'impl',
      container: true,
      name: implType,
      nameNode: (n) => field(n, 'type'),
      conformances: (n) => bareNames([field(n, 'trait')]),
    },
    mod_item: { kind: (n) => (field(n, 'body') ? 'module' : null), container: true, transparent: true },
    type_item: { kind: 'type_alias', body: () => null },
    const_item: { kind: 'variable', body: () => null },
    static_item: { kind: 'variable', body: () => null },
    macro_definition: { kind: 'function', body: () => null },
  },
  unwrapText: unwrapItemMacros,
  commentTypes: ['line_comment', 'block_comment'],
  attachedPrefixTypes: ['attribute_item'],
  importTypes: ['use_declaration', 'extern_crate_declaration'],
  constructorNames: [],
};
