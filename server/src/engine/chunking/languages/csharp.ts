/** C#: namespaces, classes/structs/interfaces/enums/records, methods, constructors; XML doc comments. */
import type { Node } from 'web-tree-sitter';
import { bareNames, childOfType, named, type LanguageDefinition } from './types';

function bases(n: Node): string[] {
  return bareNames(named(childOfType(n, 'base_list')).filter((c) => c.type !== 'argument_list'));
}

export const csharp: LanguageDefinition = {
  id: 'csharp',
  definitions: {
    namespace_declaration: { kind: 'namespace', container: true, transparent: true },
    class_declaration: { kind: 'class', container: true, conformances: bases },
    struct_declaration: { kind: 'struct', container: true, conformances: bases },
    record_declaration: { kind: 'class', container: true, conformances: bases },
    record_struct_declaration: { kind: 'struct', container: true, conformances: bases },
    interface_declaration: { kind: 'interface', container: true, conformances: bases },
    enum_declaration: { kind: 'enum', conformances: bases },
    delegate_declaration: { kind: 'type_alias', body: () => null },
    method_declaration: { kind: 'method' },
    constructor_declaration: { kind: 'constructor' },
    operator_declaration: { kind: 'method', name: () => 'operator' },
  },
  commentTypes: ['comment'],
  importTypes: ['using_directive', 'extern_alias_directive', 'file_scoped_namespace_declaration'],
  constructorIsClassName: true,
};
