/**
 * The chunker's output format. Change it whenever the units or their text change for the same source (what a unit
 * covers, what its text includes): the settings hash includes it, so existing indexes are rebuilt instead of mixing
 * units of two chunkers.
 *   2: one unit per named declaration (no merged neighbours), name ranges; class units list member signatures
 *      without the members' doc comments.
 *   3: Ruby `class << self` methods are units of their own (members of the enclosing class or module); JavaScript/
 *      TypeScript classes compiled to ES5 (`var X = function (_Base) { function X() {} … }(Base)`) are classes with
 *      their members, and functions assigned to properties (`X.prototype.m = function`, `exports.f = function`) units.
 *   4: long prose comments (Go's doc.go package docs, module docstrings, `//!` crate docs) are split at their headings
 *      into sections (chunking/docComments.ts).
 *   5: a long glue comment or docstring that is prose (a module docstring) is never merged into a declaration (the
 *      first definition after a module docstring was labelled with the whole docstring and imports).
 *   6: JavaScript/TypeScript anonymous default exports (`export default class extends Base {}`, `export default
 *      function () {}`, `export default () => …`) are units named after their module (`Widget.ts` → Widget), their
 *      name range on the `default` keyword.
 *   7: re-export aliases (`export { Base as WidgetBase } from`, `export * as ns from`) are names of the unit that holds
 *      the statement, with their own ranges (`Chunk.symbolRanges`).
 *   8: text windows (Markdown sections, plain text, prose comments, conversation phases) under `minTokens` (at most a
 *      quarter of the target) join a neighbour (a section's last line was a unit of its own after a full window);
 *      Python declarations inside `if`/`try`/`with` blocks (`if has_crypto:`, `if TYPE_CHECKING:`) are units of their
 *      own (the whole block was one unnamed chunk); the outline of a class whose body starts at its first statement
 *      (Python, Ruby) no longer cuts that statement's first character into the header; C/C++ declarations inside
 *      include guards, `#ifdef` branches and `extern "C"` blocks are units of their own (a header was one unnamed chunk),
 *      and a line that is only an upper-case macro (`FMT_BEGIN_NAMESPACE`) is blanked for the parser; a `.h` header
 *      that holds C++ is read with the C++ grammar.
 *   9: Rust items inside item-level macro calls whose braces hold items (`cfg_rt! { pub struct JoinHandle … }`,
 *      `pin_project! { … }`) are units of their own (the call was one unnamed chunk); a large statement that wraps
 *      declarations (an IIFE or UMD module) is read as the declarations it holds, a definition over the hard maximum
 *      that holds functions (lodash's `runInContext`) as its header and those functions (`runInContext.chunk`), and a
 *      statement over the maximum that wraps none is cut under it (lodash.js was one chunk of 144,000 tokens); a
 *      `/**` documentation block one or two blank lines above a declaration documents it (it was glued to the unit above);
 *      a TypeScript module augmentation (`declare module 'express'`) is named without the quotes.
 *  10: a Go type's embedded types keep their package (`struct{ io.Reader }` conforms to `io.Reader`, not to `Reader`).
 *  11: C/C++: an upper-case macro before a declaration (`FMT_CONSTEXPR inline text_style fg(…)`, `SQLITE_API int
 *      sqlite3_open(…)`, a class member's `FMT_CONSTEXPR write_int_data(…)`), before its name (`void SPDLOG_INLINE f(…)`)
 *      or a class's name (`class SPDLOG_API sink`) is blanked for the parser (it read the
 *      macro as a type and everything after a constructor as one error node: fmt's later functions were named as
 *      members of `write_int_data`, and `fg` as `text_style fg`); a Rust impl for a reference is named after the type
 *      (`impl Service for &'_ Client<C, B>` → `Client`); a Markdown section is named by its heading's text, links and
 *      badges reduced to their text (`# [hyper](https://hyper.rs)` → hyper).
 */
export const CHUNKER_VERSION = 11;
