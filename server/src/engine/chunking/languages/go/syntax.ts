/**
 * Go type expressions read with tree-sitter: a parsed type's canonical text, the signature of a parsed method or func
 * type, and the signatures of many method headers attached in one parse.
 */
import type { Node, Parser } from 'web-tree-sitter';
import { named } from '../types';
import { ANY, ANY_PKG, makeGoSignature } from './signature';
import type { GoNameContext, GoSignature, GoSignatureMemo, MethodHeader } from './types';

const PREDECLARED = new Set([
  'bool', 'complex64', 'complex128', 'error', 'float32', 'float64', 'int', 'int8', 'int16', 'int32', 'int64',
  'string', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'uintptr', 'comparable',
]);
const PREDECLARED_ALIASES = new Map([['byte', 'uint8'], ['rune', 'int32'], ['any', 'interface{}']]);

/** Thrown (one shared instance) for a type the normaliser does not understand. */
const UNKNOWN = new Error('unknown Go type');

/** A type's canonical text (see `GoSignature`); throws `UNKNOWN` for what it does not understand. */
function canonType(n: Node | null | undefined, cx: GoNameContext): string {
  if (!n) throw UNKNOWN;
  switch (n.type) {
    case 'type_identifier': {
      const name = n.text;
      if (cx.typeParams?.has(name)) return ANY;
      const alias = PREDECLARED_ALIASES.get(name);
      if (alias !== undefined) return alias;
      if (PREDECLARED.has(name)) return name;
      if (cx.dotImport) return ANY_PKG + name;
      return cx.pkg ? `${cx.pkg}.${name}` : name;
    }
    case 'qualified_type': {
      const pkg = n.childForFieldName('package')?.text;
      const name = n.childForFieldName('name')?.text;
      if (!pkg || !name) throw UNKNOWN;
      return `${cx.aliases?.get(pkg) ?? pkg}.${name}`;
    }
    case 'pointer_type':
      return `*${canonType(named(n)[0], cx)}`;
    case 'slice_type':
      return `[]${canonType(n.childForFieldName('element'), cx)}`;
    case 'array_type': {
      const length = n.childForFieldName('length');
      if (!length) throw UNKNOWN;
      return `[${length.text.replace(/\s+/g, '')}]${canonType(n.childForFieldName('element'), cx)}`;
    }
    case 'map_type':
      return `map[${canonType(n.childForFieldName('key'), cx)}]${canonType(n.childForFieldName('value'), cx)}`;
    case 'channel_type': {
      const tokens = n.children.filter((c) => c && !c.isNamed).map((c) => c!.type);
      const dir = tokens[0] === '<-' ? '<-chan ' : tokens.includes('<-') ? 'chan<- ' : 'chan ';
      return dir + canonType(n.childForFieldName('value'), cx);
    }
    case 'function_type':
      return `func${signatureText(n.childForFieldName('parameters'), n.childForFieldName('result'), cx)}`;
    case 'interface_type': {
      const elements: string[] = [];
      for (const el of named(n)) {
        if (el.type === 'comment') continue;
        if (el.type === 'method_spec' || el.type === 'method_elem') {
          elements.push(`${el.childForFieldName('name')?.text ?? ''}${signatureText(el.childForFieldName('parameters'), el.childForFieldName('result'), cx)}`);
        } else if (el.type === 'constraint_elem' || el.type === 'type_elem') {
          elements.push(named(el).map((k) => canonType(k, cx)).join('|'));
        } else {
          throw UNKNOWN;
        }
      }
      return `interface{${elements.sort().join(';')}}`;
    }
    case 'struct_type': {
      const fields: string[] = [];
      for (const f of named(named(n).find((c) => c.type === 'field_declaration_list'))) {
        if (f.type === 'comment') continue;
        if (f.type !== 'field_declaration') throw UNKNOWN;
        const names = f.childrenForFieldName('name').filter((c): c is Node => !!c).map((c) => c.text);
        const star = !names.length && f.children.some((c) => c && !c.isNamed && c.type === '*');
        const type = (star ? '*' : '') + canonType(f.childForFieldName('type'), cx);
        const tag = f.childForFieldName('tag')?.text;
        const suffix = tag ? ` ${tag}` : '';
        if (names.length) for (const name of names) fields.push(`${name} ${type}${suffix}`);
        else fields.push(type + suffix);
      }
      return `struct{${fields.join(';')}}`;
    }
    case 'generic_type':
      return `${canonType(n.childForFieldName('type'), cx)}[${named(n.childForFieldName('type_arguments')).map((a) => canonType(a, cx)).join(',')}]`;
    case 'parenthesized_type':
      return canonType(named(n)[0], cx);
    case 'type_elem':
    case 'constraint_elem':
    case 'union_type':
      return named(n).map((k) => canonType(k, cx)).join('|');
    case 'negated_type':
      return `~${canonType(named(n)[0], cx)}`;
    default:
      throw UNKNOWN;
  }
}

/** A parameter's type, or `ANY` when the normaliser does not understand it. */
export function typeOrAny(n: Node | null | undefined, cx: GoNameContext): string {
  try {
    return canonType(n, cx);
  } catch (err) {
    if (err === UNKNOWN) return ANY;
    throw err;
  }
}

/**
 * One canonical type per parameter (`a, b int` → two, `...T` variadic) of a parameter list, or of a lone result type.
 * `strict`: a type not understood throws (inside a nested func type) instead of becoming `ANY`; null when the list
 * holds something that is not a parameter.
 */
function paramTypes(list: Node | null | undefined, cx: GoNameContext, strict: boolean): string[] | null {
  if (!list) return [];
  const type = strict ? canonType : typeOrAny;
  if (list.type !== 'parameter_list') return [type(list, cx)];
  const out: string[] = [];
  for (const p of named(list)) {
    if (p.type === 'comment') continue;
    if (p.type === 'parameter_declaration') {
      const t = type(p.childForFieldName('type'), cx);
      const names = p.childrenForFieldName('name').length;
      for (let i = 0; i < Math.max(1, names); i++) out.push(t);
    } else if (p.type === 'variadic_parameter_declaration') {
      out.push(`...${type(p.childForFieldName('type'), cx)}`);
    } else if (strict) {
      throw UNKNOWN;
    } else {
      return null;
    }
  }
  return out;
}

/** `(T1,T2) R` / `(T1) (R1,R2)`: a nested func type or interface-literal method, canonical. */
function signatureText(params: Node | null, result: Node | null, cx: GoNameContext): string {
  const ps = paramTypes(params, cx, true)!;
  const rs = paramTypes(result, cx, true)!;
  return `(${ps.join(',')})${rs.length === 0 ? '' : rs.length === 1 && !rs[0].startsWith('...') ? ` ${rs[0]}` : ` (${rs.join(',')})`}`;
}

/** The signature of a method (`parameters` and `result` fields of its node), or undefined when the lists are not understood. */
export function signatureOf(params: Node | null, result: Node | null, cx: GoNameContext): GoSignature | undefined {
  const ps = paramTypes(params, cx, false);
  const rs = paramTypes(result, cx, false);
  return ps && rs ? makeGoSignature(ps, rs) : undefined;
}

/**
 * The signature of a func type written in Go (`func(p []byte) (n int, err error)`), names resolved in `cx`; `typeParams`
 * stand for any type. Undefined when it does not parse as a func type.
 */
export function goFuncTypeSignature(parser: Parser, funcType: string, cx: GoNameContext = { pkg: '' }): GoSignature | undefined {
  const tree = parser.parse(`type _ ${funcType}\n`);
  if (!tree) return undefined;
  try {
    const spec = tree.rootNode.descendantsOfType('type_spec')[0];
    const t = spec?.childForFieldName('type');
    if (!t || t.type !== 'function_type' || tree.rootNode.hasError) return undefined;
    return signatureOf(t.childForFieldName('parameters'), t.childForFieldName('result'), cx);
  } finally {
    tree.delete();
  }
}

/**
 * Sets each method's signature: headers already seen in the same context come from `memo`, the others are parsed
 * (all of them in one parse). A header that does not parse cleanly leaves its method without one (matched by name only).
 */
export function attachSignatures(parser: Parser, items: MethodHeader[], cx: GoNameContext, memo: GoSignatureMemo = new Map()): void {
  const context = `${cx.pkg}\0${cx.dotImport ? '.' : ''}\0${cx.aliases?.size ? [...cx.aliases].join(';') : ''}\0`;
  const waiting = new Map<string, MethodHeader[]>();
  for (const item of items) {
    if (item.sigText === undefined) continue;
    const key = `${context}${item.typeParams.join(',')}\0${item.sigText}`;
    const known = memo.get(key);
    if (known !== undefined) {
      if (known) item.decl.sig = known;
      continue;
    }
    const list = waiting.get(key);
    if (list) list.push(item);
    else waiting.set(key, [item]);
  }
  if (!waiting.size) return;
  const parse = (keys: string[]) => {
    const rows = new Map<number, string>();
    let source = '';
    let row = 0;
    for (const key of keys) {
      rows.set(row, key);
      const text = `func (_ _) _${waiting.get(key)![0].sigText} {}\n`;
      source += text;
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) row++;
    }
    const tree = parser.parse(source);
    try {
      for (const node of named(tree?.rootNode)) {
        if (node.type !== 'method_declaration' || node.startPosition.column !== 0) continue;
        const key = rows.get(node.startPosition.row);
        const list = key === undefined ? undefined : waiting.get(key);
        if (!list || node.hasError) continue;
        const sig = signatureOf(node.childForFieldName('parameters'), node.childForFieldName('result'), withTypeParams(cx, list[0].typeParams));
        memo.set(key!, sig ?? null);
        if (sig) for (const item of list) item.decl.sig = sig;
      }
    } finally {
      tree?.delete();
    }
  };
  parse([...waiting.keys()]);
  // a header the parser could not recover from may have spoiled its neighbours: those get a parse of their own
  const left = [...waiting.keys()].filter((key) => !memo.has(key));
  if (left.length > 1) for (const key of left) parse([key]);
  for (const key of left) if (!memo.has(key)) memo.set(key, null);
}

/** The context with these type parameters in scope (they stand for any type). */
export function withTypeParams(cx: GoNameContext, names: string[]): GoNameContext {
  return names.length ? { ...cx, typeParams: new Set([...(cx.typeParams ?? []), ...names]) } : cx;
}
