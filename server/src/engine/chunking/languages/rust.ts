/** Rust: fns, structs/enums/traits, impl blocks (`impl Trait for Type` → symbol Type, conformances [Trait]), inline modules. */
import type { Node } from 'web-tree-sitter';
import { bareNames, bareTypeName, field, named, type LanguageDefinition } from './types';

function implType(n: Node): string | null {
  const t = field(n, 'type');
  return t ? bareTypeName(t.text) || t.text : null;
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
  commentTypes: ['line_comment', 'block_comment'],
  attachedPrefixTypes: ['attribute_item'],
  importTypes: ['use_declaration', 'extern_crate_declaration'],
  constructorNames: [],
};
