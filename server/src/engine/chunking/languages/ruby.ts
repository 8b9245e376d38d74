/**
 * Ruby: classes (`< Base`, `include Mod` as conformances), modules, methods, `def self.x`, and the methods of a
 * `class << self` block (members of the enclosing class or module, each a unit of its own).
 */
import type { Node } from 'web-tree-sitter';
import { bareNames, childOfType, field, named, type LanguageDefinition } from './types';

function constName(n: Node): string | null {
  const nm = field(n, 'name');
  if (!nm) return null;
  const parts = nm.text.split('::');
  return parts[parts.length - 1] || null;
}

function constScope(n: Node): string | null {
  const nm = field(n, 'name');
  if (!nm || nm.type !== 'scope_resolution') return null;
  return nm.text.split('::').slice(0, -1).filter(Boolean).join('.') || null;
}

function mixins(n: Node): Node[] {
  const out: Node[] = [];
  for (const st of named(field(n, 'body') ?? childOfType(n, 'body_statement'))) {
    if (st.type !== 'call') continue;
    const m = field(st, 'method')?.text;
    if (m === 'include' || m === 'extend' || m === 'prepend') out.push(...named(field(st, 'arguments')));
  }
  return out;
}

const body = (n: Node) => field(n, 'body') ?? childOfType(n, 'body_statement');

/**
 * The superclass expressions of a class: `< Base`, and for a class built on a generated one — `< Struct.new(:a, :b)`,
 * `< Options.new(:uri, :user)`, `< Data.define(:x)` — the receiver of the call (Struct, Options, Data), not the method's
 * name (`new`).
 */
function superclasses(n: Node): Node[] {
  return named(field(n, 'superclass')).map((x) => (x.type === 'call' && field(x, 'receiver') ? field(x, 'receiver')! : x));
}

export const ruby: LanguageDefinition = {
  id: 'ruby',
  definitions: {
    class: {
      kind: 'class',
      container: true,
      name: constName,
      qualifier: constScope,
      body,
      conformances: (n) => bareNames([...superclasses(n), ...mixins(n)]),
    },
    module: { kind: 'module', container: true, name: constName, qualifier: constScope, body, conformances: (n) => bareNames(mixins(n)) },
    method: { kind: 'function', body },
    singleton_method: { kind: 'method', body },
  },
  commentTypes: ['comment'],
  importTypes: [],
  // `class << self … end`: its body's definitions are members of the enclosing class or module (the body is a
  // `body_statement` child of the `singleton_class` node; a sequence meets a bare `body_statement` only there)
  memberGroups: ['singleton_class', 'body_statement'],
  constructorNames: ['initialize'],
};
