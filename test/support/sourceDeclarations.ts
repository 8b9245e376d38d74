/**
 * Declarations read from source text with per-language regular expressions — independent of Quarry's chunker and
 * language definitions, so a test can compare what the index says with what the files say (issue 18).
 *
 * `declarations(root, language)` lists every declaration the expressions recognise (functions, methods, classes,
 * interfaces, traits, modules, type aliases, enums, exported constants) with the 1-based line and UTF-16 column of
 * its name. `uniqueDeclarations` keeps those whose name is defined exactly once in the whole tree by any shape the
 * language's `anyDefinition` knows (a local, a property, an object key, an assignment, an alias...), ignoring case.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export interface SourceDeclaration {
  name: string;
  path: string;
  /** 1-based line and UTF-16 column of the name. */
  line: number;
  column: number;
  /** What the expression recognised (`function`, `method`, `class`, ...). */
  kind: string;
}

interface LanguageRules {
  extensions: string[];
  /** Each expression ends with its last capture group, the name; `kind` is what it declares. Applied to every line. */
  declarations: Array<{ re: RegExp; kind: string }>;
  /** Lines that are comments (a declaration quoted in a doc comment is not one). */
  comment: RegExp;
  /**
   * Where the declarations Quarry makes units of live, for languages whose blocks are read by indentation: a
   * declaration counts only at the top level or when its enclosing line (the nearest line above it with less
   * indentation) matches this — a class body, not a function body or an expression (Ruby's `X = if … class Y … end`).
   */
  enclosers?: RegExp;
  /** Lines that indent what follows without enclosing it (Ruby's `protected` on a line of its own, then its methods). */
  notEnclosing?: RegExp;
  /** Any line that may define NAME (any shape); used to keep names defined exactly once. */
  anyDefinition: (name: string) => RegExp;
}

const esc = (s: string) => s.replace(/[$?!.]/g, (c) => `\\${c}`);

const TS_ANY = (n: string) =>
  new RegExp(
    `(?:\\b(?:class|function\\*?|interface|type|const|let|var|enum|namespace)\\s+${esc(n)}(?![\\w$]))` +
      `|(?:^\\s*(?:(?:public|private|protected|static|readonly|async|abstract|override|get|set|declare)\\s+)*${esc(n)}\\s*[?!]?\\s*[(<:=])` +
      `|(?:\\.${esc(n)}\\s*=[^=])`,
    'i',
  );

export const RULES: Record<string, LanguageRules> = {
  typescript: {
    comment: /^\s*(?:\/\/|\/?\*)/,
    extensions: ['.ts', '.tsx', '.mts', '.cts'],
    declarations: [
      { re: /^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)/, kind: 'function' },
      { re: /^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/, kind: 'class' },
      { re: /^(?:export\s+)?(?:declare\s+)?interface\s+([A-Za-z_$][\w$]*)/, kind: 'interface' },
      { re: /^(?:export\s+)?(?:declare\s+)?type\s+([A-Za-z_$][\w$]*)/, kind: 'type' },
      { re: /^(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+([A-Za-z_$][\w$]*)/, kind: 'enum' },
      { re: /^export\s+(?:declare\s+)?(?:const|let)\s+([A-Za-z_$][\w$]*)/, kind: 'constant' },
    ],
    anyDefinition: TS_ANY,
  },
  javascript: {
    comment: /^\s*(?:\/\/|\/?\*)/,
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    declarations: [
      { re: /^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\*?\s+([A-Za-z_$][\w$]*)/, kind: 'function' },
      { re: /^(?:export\s+)?(?:default\s+)?class\s+([A-Za-z_$][\w$]*)/, kind: 'class' },
      // a class compiled by Babel: `var Parser = /*#__PURE__*/function (_Obj) { … }(Obj);`
      { re: /^var\s+([A-Za-z_$][\w$]*)(?=\s*=\s*\/\*#__PURE__\*\/\s*function\b)/, kind: 'class' },
      // a method assigned to a prototype (or Babel's `_proto` alias of one) at the top level or in a compiled class's
      // body (`_proto.parseFor = function parseFor(`), a CommonJS export; not an assignment nested in a function body
      { re: /^(?: {2})?(?:_proto|[A-Za-z_$][\w$]*\.prototype|exports|module\.exports)\.([A-Za-z_$][\w$]*)(?=\s*=\s*function\b)/, kind: 'method' },
    ],
    anyDefinition: (n) =>
      new RegExp(
        `(?:\\b(?:class|function\\*?|const|let|var)\\s+${esc(n)}(?![\\w$]))|(?:^\\s*(?:async\\s+|static\\s+|get\\s+|set\\s+)*${esc(n)}\\s*[(:=])` +
          `|(?:\\.${esc(n)}\\s*=[^=])|(?:['"]${esc(n)}['"]\\s*:)`,
        'i',
      ),
  },
  python: {
    comment: /^\s*#/,
    enclosers: /^\s*class\b/,
    extensions: ['.py', '.pyi'],
    declarations: [
      { re: /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)/, kind: 'function' },
      { re: /^\s*class\s+([A-Za-z_]\w*)/, kind: 'class' },
    ],
    anyDefinition: (n) => new RegExp(`(?:\\b(?:def|class)\\s+${n}\\b)|(?:^\\s*${n}\\s*(?::[^=]*)?=[^=])|(?:\\bself\\.${n}\\s*=[^=])|(?:\\bas\\s+${n}\\b)`, 'i'),
  },
  ruby: {
    comment: /^\s*#/,
    enclosers: /^\s*(?:class|module)\b/,
    notEnclosing: /^\s*(?:private|protected|public|module_function)\s*$/,
    extensions: ['.rb'],
    declarations: [
      { re: /^\s*def\s+(?:self\.)?([a-z_]\w*[?!]?)(?=[\s(;]|$)/, kind: 'method' },
      { re: /^\s*class\s+([A-Z]\w*)(?![\w:])/, kind: 'class' },
      { re: /^\s*module\s+([A-Z]\w*)(?![\w:])/, kind: 'module' },
    ],
    anyDefinition: (n) =>
      new RegExp(
        `(?:\\bdef\\s+(?:self\\.|[\\w:]+\\.)?${esc(n)}(?![\\w?!=]))|(?:\\b(?:class|module)\\s+(?:\\w+::)*${esc(n)}\\b)|(?:^\\s*${esc(n)}\\s*=[^=~])` +
          `|(?:\\b(?:attr_\\w+|alias_method|alias|define_method|no_commands|map)\\b.*[:\\s]${esc(n)}(?![\\w?!=]))`,
        'i',
      ),
  },
  php: {
    comment: /^\s*(?:\/\/|\/?\*|#)/,
    extensions: ['.php'],
    declarations: [
      { re: /\bfunction\s+&?([A-Za-z_]\w*)(?=\s*\()/, kind: 'function' },
      { re: /^\s*(?:(?:abstract|final|readonly)\s+)*(?:class|interface|trait|enum)\s+([A-Za-z_]\w*)/, kind: 'class' },
    ],
    anyDefinition: (n) =>
      new RegExp(`(?:\\b(?:function|class|interface|trait|enum|const)\\s+&?${n}\\b)|(?:\\b(?:public|private|protected|var)\\s+(?:static\\s+|readonly\\s+)*(?:\\??[\\w\\\\|]+\\s+)?\\$${n}\\b)`, 'i'),
  },
};

function files(dir: string, extensions: string[]): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return e.name === '.quarry' || e.name === 'node_modules' ? [] : files(p, extensions);
      return extensions.some((x) => e.name.endsWith(x)) && !e.name.endsWith('.d.ts') ? [p] : [];
    });
}

export interface TreeDeclarations {
  /** Every declaration the expressions recognise. */
  all: SourceDeclaration[];
  /** Those whose name is at least 3 characters and defined exactly once in the tree (any shape, any case). */
  unique: SourceDeclaration[];
  /** Path → lines, for reading the text at a range. */
  lines: Map<string, string[]>;
}

export function treeDeclarations(root: string, language: string): TreeDeclarations {
  const rules = RULES[language];
  if (!rules) throw new Error(`no declaration rules for ${language}`);
  const lines = new Map<string, string[]>();
  for (const abs of files(root, rules.extensions)) lines.set(relative(root, abs).split(sep).join('/'), readFileSync(abs, 'utf8').split(/\r?\n/));
  const all: SourceDeclaration[] = [];
  for (const [path, ls] of lines) {
    const indent = (t: string) => /^\s*/.exec(t)![0].length;
    const enclosedWell = (i: number) => {
      const own = indent(ls[i]);
      for (let j = i - 1; j >= 0; j--) {
        const t = ls[j];
        if (!t.trim() || rules.comment.test(t) || indent(t) >= own || rules.notEnclosing?.test(t)) continue;
        return rules.enclosers!.test(t);
      }
      return true;
    };
    ls.forEach((text, i) => {
      if (rules.comment.test(text)) return;
      if (rules.enclosers && indent(text) > 0 && !enclosedWell(i)) return;
      for (const { re, kind } of rules.declarations) {
        const m = re.exec(text);
        if (!m) continue;
        const name = m[m.length - 1];
        all.push({ name, path, line: i + 1, column: m.index + m[0].length - name.length + 1, kind });
        break;
      }
    });
  }
  const definitions = (name: string) => {
    const re = rules.anyDefinition(name);
    let n = 0;
    for (const ls of lines.values()) for (const l of ls) if (re.test(l)) n++;
    return n;
  };
  const counts = new Map<string, number>();
  for (const d of all) counts.set(d.name.toLowerCase(), (counts.get(d.name.toLowerCase()) ?? 0) + 1);
  const unique = all.filter((d) => d.name.length >= 3 && counts.get(d.name.toLowerCase()) === 1 && definitions(d.name) === 1);
  return { all, unique, lines };
}

/** The text of `lines` between two 1-based (line, UTF-16 column) positions, end exclusive. */
export function textAt(lines: string[] | undefined, r: { line: number; column: number; end_line: number; end_column: number }): string {
  if (!lines) return '';
  if (r.line === r.end_line) return (lines[r.line - 1] ?? '').slice(r.column - 1, r.end_column - 1);
  const parts = [(lines[r.line - 1] ?? '').slice(r.column - 1)];
  for (let l = r.line + 1; l < r.end_line; l++) parts.push(lines[l - 1] ?? '');
  parts.push((lines[r.end_line - 1] ?? '').slice(0, r.end_column - 1));
  return parts.join('\n');
}

/** Up to `n` items spread evenly over `items` (deterministic: the same tree gives the same sample). */
export function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]);
}
