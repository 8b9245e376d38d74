/** Python: functions, classes (base classes as conformances), decorated definitions, docstrings. */
import type { Node } from 'web-tree-sitter';
import { bareNames, childOfType, field, named, type LanguageDefinition } from './types';

function assignmentNames(n: Node): string[] {
  const a = childOfType(n, 'assignment');
  const left = field(a, 'left');
  if (!left) return [];
  if (left.type === 'identifier') return [left.text];
  if (left.type === 'pattern_list' || left.type === 'tuple_pattern') return named(left).filter((x) => x.type === 'identifier').map((x) => x.text);
  return [];
}

export const python: LanguageDefinition = {
  id: 'python',
  definitions: {
    function_definition: { kind: 'function' },
    class_definition: {
      kind: 'class',
      container: true,
      conformances: (n) => bareNames(named(field(n, 'superclasses')).filter((c) => c.type !== 'keyword_argument' && c.type !== 'comment'), ['object']),
    },
    expression_statement: {
      kind: (n) => (assignmentNames(n).length > 0 ? 'variable' : null),
      name: (n) => assignmentNames(n)[0] ?? null,
      names: assignmentNames,
      body: () => null,
    },
  },
  wrappers: { decorated_definition: (n) => field(n, 'definition') },
  definitionBlocks: ['if_statement', 'elif_clause', 'else_clause', 'try_statement', 'except_clause', 'except_group_clause', 'finally_clause', 'with_statement', 'block'],
  commentTypes: ['comment'],
  importTypes: ['import_statement', 'import_from_statement', 'future_import_statement'],
  docstrings: true,
  constructorNames: ['__init__', '__new__'],
};
