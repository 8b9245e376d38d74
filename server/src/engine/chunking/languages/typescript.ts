/** TypeScript (and the shared ECMAScript rules used by tsx.ts / javascript.ts). */
import type { Node } from 'web-tree-sitter';
import { bareNames, childOfType, childrenOfType, field, named, type DefRule, type LanguageDefinition } from './types';

const FUNCTION_VALUES = ['arrow_function', 'function_expression', 'function', 'generator_function'];

function declarators(node: Node): Node[] {
  return childrenOfType(node, 'variable_declarator');
}

/** `require('x')`, `require('x').y`: CommonJS imports, glue rather than declarations. */
function isRequire(value: Node | null): boolean {
  let v = value;
  while (v && (v.type === 'member_expression' || v.type === 'await_expression')) v = named(v)[0] ?? null;
  return v?.type === 'call_expression' && field(v, 'function')?.text === 'require';
}

/** `const f = () => ...` is a function; other declarations are variables; `const x = require('x')` is an import. */
const variableRule: DefRule = {
  kind: (n) => {
    const ds = declarators(n);
    if (ds.length > 0 && ds.every((d) => isRequire(field(d, 'value')))) return null;
    if (ds.length === 1 && FUNCTION_VALUES.includes(field(ds[0], 'value')?.type ?? '')) return 'function';
    return ds.some((d) => field(d, 'name')?.type === 'identifier') ? 'variable' : null;
  },
  name: (n) => {
    const d = declarators(n).find((x) => field(x, 'name')?.type === 'identifier');
    return d ? field(d, 'name')!.text : null;
  },
  body: (n) => {
    const ds = declarators(n);
    const v = ds.length === 1 ? field(ds[0], 'value') : null;
    return v && FUNCTION_VALUES.includes(v.type) ? field(v, 'body') : null;
  },
  names: (n) => declarators(n).map((d) => field(d, 'name')).filter((x): x is Node => x?.type === 'identifier').map((x) => x.text),
};

function heritage(n: Node): string[] {
  const types: Array<Node | null> = [];
  for (const h of named(n)) {
    if (h.type === 'class_heritage') {
      for (const clause of named(h)) {
        if (clause.type === 'extends_clause' || clause.type === 'implements_clause') {
          for (const t of named(clause)) if (t.type !== 'type_arguments') types.push(t);
        } else types.push(clause); // JavaScript: class_heritage holds the expression directly
      }
    } else if (h.type === 'extends_type_clause') {
      for (const t of named(h)) types.push(t);
    }
  }
  return bareNames(types);
}

const classRule: DefRule = { kind: 'class', container: true, conformances: heritage, name: (n) => field(n, 'name')?.text ?? 'default' };

const fieldRule: DefRule = {
  kind: (n) => (FUNCTION_VALUES.includes(field(n, 'value')?.type ?? '') ? 'method' : null),
  body: (n) => field(field(n, 'value'), 'body'),
};

export function ecmaDefinition(id: string, typescript: boolean): LanguageDefinition {
  const definitions: Record<string, DefRule> = {
    function_declaration: { kind: 'function' },
    generator_function_declaration: { kind: 'function' },
    class_declaration: classRule,
    class: classRule,
    method_definition: { kind: 'method' },
    lexical_declaration: variableRule,
    variable_declaration: variableRule,
    field_definition: { ...fieldRule, name: (n) => field(n, 'property')?.text ?? null },
  };
  if (typescript) {
    Object.assign(definitions, {
      abstract_class_declaration: classRule,
      interface_declaration: { kind: 'interface', conformances: heritage },
      type_alias_declaration: { kind: 'type_alias', body: () => null },
      enum_declaration: { kind: 'enum' },
      internal_module: { kind: 'namespace', container: true, transparent: true },
      module: { kind: 'namespace', container: true, transparent: true },
      function_signature: { kind: 'function' },
      abstract_method_signature: { kind: 'method' },
      public_field_definition: fieldRule,
    } satisfies Record<string, DefRule>);
  }
  return {
    id,
    definitions,
    wrappers: {
      export_statement: (n) => field(n, 'declaration') ?? field(n, 'value'),
      ambient_declaration: (n) => named(n)[0] ?? null,
      expression_statement: (n) => childOfType(n, 'internal_module'),
    },
    commentTypes: ['comment'],
    importTypes: ['import_statement'],
    constructorNames: ['constructor'],
  };
}

export const typescript = ecmaDefinition('typescript', true);
