/** C: function definitions, structs/unions/enums, typedefs, globals. */
import type { Node } from 'web-tree-sitter';
import { field, type LanguageDefinition } from './types';

/** Walks a declarator chain (pointer/reference/function/array/parenthesized) down to the declared name node. */
export function declaratorName(n: Node | null): Node | null {
  let d = n;
  for (let i = 0; d && i < 16; i++) {
    if (['identifier', 'field_identifier', 'type_identifier', 'qualified_identifier', 'destructor_name', 'operator_name', 'template_function'].includes(d.type)) return d;
    d = field(d, 'declarator') ?? d.namedChildren.find((c) => c && c.type.endsWith('declarator')) ?? null;
  }
  return null;
}

function declarationNames(n: Node): string[] {
  const out: string[] = [];
  for (const c of n.namedChildren) {
    if (!c || !c.type.endsWith('declarator') && c.type !== 'identifier') continue;
    if (c.type === 'function_declarator') continue; // a prototype, not a definition
    const nm = declaratorName(c);
    if (nm && nm.type === 'identifier') out.push(nm.text);
  }
  return out;
}

function taggedKind(n: Node) {
  if (!field(n, 'body')) return null;
  return n.type === 'enum_specifier' ? ('enum' as const) : ('struct' as const);
}

/**
 * A line that is nothing but an upper-case macro name (with an optional `;`): namespace and export wrappers
 * (`FMT_BEGIN_NAMESPACE`, `ABSL_NAMESPACE_BEGIN`, `FMT_MODULE_EXPORT_BEGIN`), class markers (`Q_OBJECT`). Blanked for the
 * parser (spaces: the same length, so offsets, lines and the chunks' text stay the file's).
 */
const LONE_MACRO_LINE = /^[ \t]*[A-Z][A-Z0-9]*_[A-Z0-9_]*[ \t]*;?[ \t]*$/gm;

export function blankLoneMacros(text: string): string {
  return text.replace(LONE_MACRO_LINE, (line) => ' '.repeat(line.length));
}

/** Words that start a declaration's specifiers or type in C and C++. */
const DECL_START = String.raw`(?:inline|constexpr|consteval|constinit|static|virtual|explicit|auto|const|volatile|extern|friend|typename|template|struct|class|enum|union|void|bool|char|int|long|short|float|double|unsigned|signed|size_t|operator)\b|~`;
/** A declared name and its opening parenthesis: `fg(`, `thread_pool::post_log(`, `ansicolor_sink<M>::to_string_(`. */
const DECL_NAME = String.raw`[~A-Za-z_]\w*(?:<[^;{}()]*>)?(?:::[~\w]+(?:<[^;{}()]*>)?)*[ \t]*\(`;
/**
 * An upper-case macro word (with an underscore: `FMT_CONSTEXPR20`, `ABSL_MUST_USE_RESULT`, `SQLITE_API`, `Q_INVOKABLE`)
 * at the start of a line, before a declaration: a specifier keyword or a type followed by a name
 * (`FMT_CONSTEXPR inline text_style fg(…)`, `FMT_API auto vformat(…)`, `SQLITE_API int sqlite3_open(…)`). The grammar
 * reads the macro as the declaration's type and the rest as an error: fmt's `FMT_CONSTEXPR write_int_data(…) : size(…)`
 * constructor turned the rest of format.h into one error node, so every later function was named as a member of
 * `write_int_data`. Also before an out-of-line constructor (`SPDLOG_INLINE spdlog::sinks::base_sink<M>::base_sink(…)`).
 */
const DECL_MACRO = new RegExp(String.raw`^([ \t]*)([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]+(?:${DECL_START}|[A-Za-z_][\w:]*(?:<[^;{}()]*>)?(?:[ \t]+|[ \t]*[*&]+[ \t]*)${DECL_NAME}|[A-Za-z_]\w*(?:<[^;{}()]*>)?(?:::[~\w]+(?:<[^;{}()]*>)?)*::~?\w+[ \t]*\())`, 'gm');
/** Between a one-word return type and the name: `void SPDLOG_INLINE thread_pool::post_log(…)`, `int FOO_API foo(void)`. */
const MID_MACRO = new RegExp(String.raw`^([ \t]*[A-Za-z_][\w:]*(?:<[^;{}()]*>)?[ \t*&]+)([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]+[*&]*${DECL_NAME})`, 'gm');
/** The same before a constructor, on an indented line (a class member): `  FMT_CONSTEXPR write_int_data(int n, …)`. */
const CTOR_MACRO = /^([ \t]+)([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]+[A-Za-z_]\w*[ \t]*\()/gm;

/** An export or attribute macro between `class`/`struct` and the name: `class SPDLOG_API base_sink : public sink`, `class Q_CORE_EXPORT QObject`. */
const CLASS_MACRO = /(\b(?:class|struct|union)[ \t]+)([A-Z][A-Z0-9]*_[A-Z0-9_]*)(?=[ \t]+[A-Za-z_]\w*[ \t]*(?:final\b|[:{<]|$))/gm;

/** The lines of declaration macros blanked (same length, so offsets, lines and the chunks' text stay the file's). */
export function blankDeclarationMacros(text: string): string {
  const blank = (_m: string, indent: string, word: string) => indent + ' '.repeat(word.length);
  return text.replace(DECL_MACRO, blank).replace(MID_MACRO, blank).replace(CTOR_MACRO, blank).replace(CLASS_MACRO, blank);
}

/** What C and C++ hand to the parser: lone macro lines and declaration macros blanked. */
export function cParseText(text: string): string {
  return blankDeclarationMacros(blankLoneMacros(text));
}

export const c: LanguageDefinition = {
  id: 'c',
  parseText: cParseText,
  // include guards (`#ifndef FOO_H` … `#endif` around a whole header), platform branches and `extern "C" { … }`
  // hold declarations: read through them (a header was one unnamed chunk)
  definitionBlocks: ['preproc_ifdef', 'preproc_if', 'preproc_else', 'preproc_elif', 'preproc_elifdef', 'linkage_specification', 'declaration_list'],
  definitions: {
    function_definition: { kind: 'function', name: (n) => declaratorName(field(n, 'declarator'))?.text ?? null },
    struct_specifier: { kind: taggedKind },
    union_specifier: { kind: taggedKind },
    enum_specifier: { kind: taggedKind },
    type_definition: {
      kind: (n) => {
        const t = field(n, 'type');
        if (t && field(t, 'body')) return t.type === 'enum_specifier' ? 'enum' : 'struct';
        return 'type_alias';
      },
      name: (n) => declaratorName(field(n, 'declarator'))?.text ?? null,
      body: (n) => field(field(n, 'type'), 'body'),
    },
    declaration: {
      kind: (n) => (declarationNames(n).length > 0 ? 'variable' : null),
      name: (n) => declarationNames(n)[0] ?? null,
      names: declarationNames,
      body: () => null,
    },
  },
  commentTypes: ['comment'],
  importTypes: ['preproc_include'],
};
