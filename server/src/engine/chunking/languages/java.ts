/** Java: classes, interfaces, enums, records, methods and constructors. */
import type { Node } from 'web-tree-sitter';
import { bareNames, childOfType, field, named, type LanguageDefinition } from './types';

function supertypes(n: Node): string[] {
  const out: Array<Node | null> = [];
  const sup = field(n, 'superclass');
  if (sup) out.push(...named(sup));
  for (const c of named(n)) {
    if (c.type === 'super_interfaces' || c.type === 'extends_interfaces') out.push(...named(childOfType(c, 'type_list')));
  }
  return bareNames(out);
}

export const java: LanguageDefinition = {
  id: 'java',
  definitions: {
    class_declaration: { kind: 'class', container: true, conformances: supertypes },
    record_declaration: { kind: 'class', container: true, conformances: supertypes },
    interface_declaration: { kind: 'interface', container: true, conformances: supertypes },
    annotation_type_declaration: { kind: 'interface' },
    enum_declaration: { kind: 'enum', container: true, conformances: supertypes },
    method_declaration: { kind: 'method' },
    constructor_declaration: { kind: 'constructor' },
    compact_constructor_declaration: { kind: 'constructor' },
  },
  commentTypes: ['line_comment', 'block_comment'],
  importTypes: ['import_declaration', 'package_declaration'],
  memberGroups: ['enum_body_declarations'],
  constructorIsClassName: true,
};
