/** Swift: class/struct/enum/actor/extension (all `class_declaration` + keyword), protocols, functions, init. */
import type { Node } from 'web-tree-sitter';
import { bareNames, childrenOfType, field, type LanguageDefinition } from './types';
import type { ChunkKind } from '../../types';

const KINDS: Record<string, ChunkKind> = { class: 'class', struct: 'struct', enum: 'enum', extension: 'extension', actor: 'class' };

function inherits(n: Node): string[] {
  return bareNames(childrenOfType(n, 'inheritance_specifier').map((s) => field(s, 'inherits_from')));
}

export const swift: LanguageDefinition = {
  id: 'swift',
  definitions: {
    class_declaration: {
      kind: (n) => KINDS[field(n, 'declaration_kind')?.text ?? 'class'] ?? 'class',
      container: true,
      name: (n) => {
        const nm = field(n, 'name');
        return nm ? (nm.type === 'user_type' ? nm.text.replace(/<.*$/s, '') : nm.text) : null;
      },
      conformances: inherits,
    },
    protocol_declaration: { kind: 'protocol', conformances: inherits },
    function_declaration: { kind: 'function' },
    init_declaration: { kind: 'constructor', name: () => 'init' },
    deinit_declaration: { kind: 'method', name: () => 'deinit' },
    typealias_declaration: { kind: 'type_alias', body: () => null },
    property_declaration: {
      kind: 'variable',
      name: (n) => field(field(n, 'name'), 'bound_identifier')?.text ?? field(n, 'name')?.text ?? null,
      body: () => null,
    },
  },
  commentTypes: ['comment', 'multiline_comment'],
  importTypes: ['import_declaration'],
  statementContainers: ['statements'],
  constructorNames: ['init'],
};
