/** C++: namespaces, classes/structs (base classes), functions, out-of-line `Class::method` definitions, templates. */
import type { Node } from 'web-tree-sitter';
import { c, declaratorName } from './c';
import { bareNames, field, named, type DefRule, type LanguageDefinition } from './types';

function qualifiedParts(n: Node): string[] {
  const nm = declaratorName(field(n, 'declarator'));
  if (!nm) return [];
  return nm.text.replace(/<[^<>]*>/g, '').split('::').map((s) => s.trim()).filter(Boolean);
}

const functionRule: DefRule = {
  kind: (n) => (qualifiedParts(n).length > 1 ? 'method' : 'function'),
  name: (n) => qualifiedParts(n).pop() ?? null,
  qualifier: (n) => {
    const parts = qualifiedParts(n);
    return parts.length > 1 ? parts.slice(0, -1).join('.') : null;
  },
};

function bases(n: Node): string[] {
  const clause = named(n).find((x) => x.type === 'base_class_clause');
  return bareNames(named(clause).filter((x) => x.type !== 'access_specifier'));
}

const classRule = (kind: 'class' | 'struct'): DefRule => ({
  kind: (n) => (field(n, 'body') ? kind : null),
  container: true,
  conformances: bases,
});

export const cpp: LanguageDefinition = {
  ...c,
  id: 'cpp',
  definitions: {
    ...c.definitions,
    function_definition: functionRule,
    class_specifier: classRule('class'),
    struct_specifier: classRule('struct'),
    union_specifier: classRule('struct'),
    namespace_definition: { kind: (n) => (field(n, 'body') ? 'namespace' : null), container: true, transparent: true, name: (n) => field(n, 'name')?.text ?? '(anonymous)' },
    alias_declaration: { kind: 'type_alias', body: () => null },
    concept_definition: { kind: 'type_alias', body: () => null },
  },
  wrappers: {
    template_declaration: (n) => named(n).find((x) => x.type !== 'template_parameter_list') ?? null,
    linkage_specification: (n) => field(n, 'body'),
  },
  importTypes: ['preproc_include', 'using_declaration', 'namespace_alias_definition'],
  constructorIsClassName: true,
};
