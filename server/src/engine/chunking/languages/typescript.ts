/** TypeScript (and the shared ECMAScript rules used by tsx.ts / javascript.ts). */
import type { Node } from 'web-tree-sitter';
import { bareNames, childOfType, childrenOfType, DEFAULT_EXPORT_NAME, field, named, type DefRule, type LanguageDefinition } from './types';

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
    if (compiledClass(n)) return null;
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

const unparen = (n: Node | null): Node | null => (n?.type === 'parenthesized_expression' ? unparen(named(n).find((c) => c.type !== 'comment') ?? null) : n);

/**
 * A class compiled to ES5 (Babel, tsc): `var Parser = /*#__PURE__*\/function (_Obj) { function Parser() {…} … }(Obj);`
 * — a declarator whose value is a function called on the spot, whose body declares a function of the declarator's
 * own name (the constructor). Returns that function expression (the class body's owner), or null.
 */
function compiledClass(declaration: Node): Node | null {
  const ds = declarators(declaration);
  if (ds.length !== 1) return null;
  const name = field(ds[0], 'name');
  const call = unparen(field(ds[0], 'value'));
  if (name?.type !== 'identifier' || call?.type !== 'call_expression') return null;
  const fn = unparen(field(call, 'function'));
  if (fn?.type !== 'function_expression' && fn?.type !== 'function') return null;
  const body = field(fn, 'body');
  return named(body).some((st) => st.type === 'function_declaration' && field(st, 'name')?.text === name.text) ? fn : null;
}

/** The declarator a compiled class's function expression is the value of (see `compiledClass`). */
function compiledClassDeclarator(fn: Node): Node | null {
  let n: Node | null = fn.parent;
  while (n && (n.type === 'parenthesized_expression' || n.type === 'call_expression')) n = n.parent;
  return n?.type === 'variable_declarator' ? n : null;
}

/**
 * A function assigned to a property, as a statement: `Parser.prototype.parseFor = function parseFor() {…}`, Babel's
 * `_proto.parseFor = …` inside a compiled class, `exports.parse = …`. Named by the property; `module.exports = …` is
 * module glue, not a declaration.
 */
/** `Foo` of `Foo.prototype.bar = …`, or null. */
function prototypeOwner(assignment: Node): string | null {
  const obj = field(field(assignment, 'left'), 'object');
  return obj?.type === 'member_expression' && field(obj, 'property')?.text === 'prototype' && field(obj, 'object')?.type === 'identifier'
    ? field(obj, 'object')!.text
    : null;
}

/** Whether `n` is inside the compiled class named `owner` (whose body already makes it the container). */
function insideCompiledClass(n: Node, owner: string): boolean {
  for (let p = n.parent; p; p = p.parent) {
    if ((p.type === 'function_expression' || p.type === 'function') && field(compiledClassDeclarator(p), 'name')?.text === owner) return true;
  }
  return false;
}

const assignedFunctionRule: DefRule = {
  kind: (n) => {
    const left = field(n, 'left');
    if (left?.type !== 'member_expression' || !FUNCTION_VALUES.includes(unparen(field(n, 'right'))?.type ?? '')) return null;
    if (field(left, 'property')?.type !== 'property_identifier' || left.text === 'module.exports') return null;
    return prototypeOwner(n) ? 'method' : 'function';
  },
  name: (n) => field(field(n, 'left'), 'property')?.text ?? null,
  nameNode: (n) => field(field(n, 'left'), 'property'),
  // `Foo.prototype.bar = …` at the top level is a method of Foo (inside Foo's compiled class, Foo is the container)
  qualifier: (n) => {
    const owner = prototypeOwner(n);
    return owner && !insideCompiledClass(n, owner) ? owner : null;
  },
  body: (n) => field(unparen(field(n, 'right')), 'body'),
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

/** `export default <node>`: the node is the value of a default export statement. */
const isDefaultExport = (n: Node): boolean => n.parent?.type === 'export_statement' && n.parent.children.some((c) => c?.type === 'default');

const classRule: DefRule = { kind: 'class', container: true, conformances: heritage, name: (n) => field(n, 'name')?.text ?? DEFAULT_EXPORT_NAME };

/** `export default function () {…}`, `export default async (req) => {…}`: a function declared by its export alone. */
const defaultFunctionRule: DefRule = {
  kind: (n) => (isDefaultExport(n) ? 'function' : null),
  name: (n) => field(n, 'name')?.text ?? DEFAULT_EXPORT_NAME,
};

const fieldRule: DefRule = {
  kind: (n) => (FUNCTION_VALUES.includes(field(n, 'value')?.type ?? '') ? 'method' : null),
  body: (n) => field(field(n, 'value'), 'body'),
};

/** The names an export statement without a declaration introduces: `export { a as b }` → b, `export * as ns` → ns. */
function exportAliases(n: Node): Node[] {
  if (n.type !== 'export_statement' || field(n, 'declaration') || field(n, 'value')) return [];
  const out: Node[] = [];
  for (const c of named(n)) {
    if (c.type === 'export_clause') {
      for (const spec of childrenOfType(c, 'export_specifier')) {
        const alias = field(spec, 'alias');
        if (alias?.type === 'identifier' && alias.text !== 'default') out.push(alias);
      }
    } else if (c.type === 'namespace_export') {
      const ns = childOfType(c, 'identifier');
      if (ns) out.push(ns);
    }
  }
  return out;
}

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
    assignment_expression: assignedFunctionRule,
    // reached only through a declaration's wrapper (`compiledClass`)
    function_expression: {
      kind: (n) => (compiledClassDeclarator(n) ? 'class' : isDefaultExport(n) ? 'function' : null),
      container: (n) => compiledClassDeclarator(n) !== null,
      name: (n) => (compiledClassDeclarator(n) ? field(compiledClassDeclarator(n), 'name')?.text ?? null : defaultFunctionRule.name!(n)),
      nameNode: (n) => field(compiledClassDeclarator(n), 'name') ?? field(n, 'name'),
      conformances: (n) => (compiledClassDeclarator(n) ? bareNames(named(field(n.parent, 'arguments'))) : []),
    },
    arrow_function: defaultFunctionRule,
  };
  definitions.function = definitions.function_expression;
  if (typescript) {
    Object.assign(definitions, {
      abstract_class_declaration: classRule,
      interface_declaration: { kind: 'interface', conformances: heritage },
      type_alias_declaration: { kind: 'type_alias', body: () => null },
      enum_declaration: { kind: 'enum' },
      internal_module: { kind: 'namespace', container: true, transparent: true },
      // `declare module 'express' { … }` augments the module named by the string: its name without the quotes
      module: { kind: 'namespace', container: true, transparent: true, name: (n: Node) => field(n, 'name')?.text.replace(/^(['"`])(.*)\1$/s, '$2') ?? null },
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
      expression_statement: (n) => childOfType(n, 'internal_module') ?? childOfType(n, 'assignment_expression'),
      // the variable rule declines a compiled class (`compiledClass`): the class is its function expression
      lexical_declaration: compiledClass,
      variable_declaration: compiledClass,
    },
    commentTypes: ['comment'],
    importTypes: ['import_statement'],
    aliases: exportAliases,
    constructorNames: ['constructor'],
    // a compiled class's constructor is the function of the class's name (`function Parser() {…}` inside `var Parser`)
    constructorIsClassName: true,
  };
}

export const typescript = ecmaDefinition('typescript', true);
