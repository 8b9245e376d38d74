/** PHP: classes/interfaces/traits/enums (extends/implements/use), functions, methods, braced namespaces. */
import type { Node } from 'web-tree-sitter';
import { bareNames, childOfType, childrenOfType, field, named, type LanguageDefinition } from './types';

function supertypes(n: Node): string[] {
  const out: Node[] = [];
  for (const c of childrenOfType(n, 'base_clause', 'class_interface_clause')) out.push(...named(c));
  for (const u of childrenOfType(field(n, 'body'), 'use_declaration')) out.push(...named(u).filter((x) => x.type === 'name' || x.type === 'qualified_name'));
  return bareNames(out);
}

export const php: LanguageDefinition = {
  id: 'php',
  definitions: {
    class_declaration: { kind: 'class', container: true, conformances: supertypes },
    interface_declaration: { kind: 'interface', container: true, conformances: supertypes },
    trait_declaration: { kind: 'trait', container: true, conformances: supertypes },
    enum_declaration: { kind: 'enum', container: true, conformances: supertypes },
    function_definition: { kind: 'function' },
    method_declaration: { kind: 'method' },
    namespace_definition: {
      kind: (n) => (field(n, 'body') ? 'namespace' : null),
      container: true,
      transparent: true,
      name: (n) => field(n, 'name')?.text.replace(/\\/g, '.') ?? null,
    },
    const_declaration: { kind: 'variable', name: (n) => childOfType(childOfType(n, 'const_element'), 'name')?.text ?? null, body: () => null },
  },
  commentTypes: ['comment'],
  importTypes: ['namespace_use_declaration', 'namespace_definition', 'php_tag'],
  constructorNames: ['__construct'],
};
