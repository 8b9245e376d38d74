/** Kotlin: classes/interfaces/objects/enums, functions, extension functions (`fun User.greet()` → `User.greet`). */
import type { Node } from 'web-tree-sitter';
import { bareNames, childOfType, childrenOfType, children, hasKeyword, type LanguageDefinition } from './types';

function classKind(n: Node) {
  if (hasKeyword(n, 'interface')) return 'interface' as const;
  if (hasKeyword(n, 'enum')) return 'enum' as const;
  return 'class' as const;
}

function delegations(n: Node): string[] {
  const types: Node[] = [];
  for (const d of childrenOfType(n, 'delegation_specifier')) {
    const u = childOfType(d, 'user_type') ?? childOfType(childOfType(d, 'constructor_invocation'), 'user_type') ?? childOfType(childOfType(d, 'explicit_delegation'), 'user_type');
    if (u) {
      const ids = childrenOfType(u, 'type_identifier');
      if (ids.length) types.push(ids[ids.length - 1]);
    }
  }
  return bareNames(types);
}

/** `fun User.greet()`: a user_type before the function's name. */
function receiver(n: Node): string | null {
  for (const c of children(n)) {
    if (c.type === 'simple_identifier') return null;
    if (c.type === 'user_type' || c.type === 'nullable_type') {
      const ids = c.descendantsOfType('type_identifier');
      const first = ids[0];
      return first ? first.text : null;
    }
  }
  return null;
}

function propertyNames(n: Node): string[] {
  return n.descendantsOfType('variable_declaration').map((v) => childOfType(v!, 'simple_identifier')?.text ?? '').filter(Boolean).slice(0, 5);
}

const body = (n: Node) => childOfType(n, 'class_body', 'enum_class_body');

export const kotlin: LanguageDefinition = {
  id: 'kotlin',
  definitions: {
    class_declaration: { kind: classKind, container: true, name: (n) => childOfType(n, 'type_identifier')?.text ?? null, body, conformances: delegations },
    object_declaration: { kind: 'class', container: true, name: (n) => childOfType(n, 'type_identifier')?.text ?? null, body, conformances: delegations },
    companion_object: { kind: 'class', container: true, name: (n) => childOfType(n, 'type_identifier')?.text ?? 'Companion', body, conformances: delegations },
    function_declaration: {
      kind: 'function',
      name: (n) => childOfType(n, 'simple_identifier')?.text ?? null,
      qualifier: receiver,
      body: (n) => childOfType(n, 'function_body'),
    },
    secondary_constructor: { kind: 'constructor', name: () => 'constructor', body: (n) => childOfType(n, 'statements') ?? null },
    property_declaration: { kind: 'variable', name: (n) => propertyNames(n)[0] ?? null, names: propertyNames, body: () => null },
    type_alias: { kind: 'type_alias', name: (n) => childOfType(n, 'type_identifier')?.text ?? null, body: () => null },
  },
  commentTypes: ['line_comment', 'multiline_comment', 'comment'],
  importTypes: ['import_list', 'import_header', 'package_header'],
  statementContainers: ['statements'],
  constructorNames: ['constructor'],
};

