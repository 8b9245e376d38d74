/** Big-class splitting, merging of tiny neighbours, hard-max splitting, ids, byte ranges, robustness. */
import assert from 'node:assert/strict';
import { chunk } from './helpers';
import type { Chunk } from '../../../server/src/engine/types';

function method(i: number): string {
  return `  /** Computes value number ${i}. */\n  compute${i}(input: number): number {\n    const scaled = input * ${i + 2};\n    if (scaled > 1000) {\n      return scaled - this.offset;\n    }\n    return scaled + this.offset;\n  }\n`;
}
const BIG_CLASS = `/** A big service. */\nexport class BigService extends Base implements Runner {\n  private offset = 3;\n${Array.from({ length: 12 }, (_, i) => method(i)).join('\n')}}\n`;

describe('chunking: structure', () => {
  it('splits a big class into a declaration chunk plus one chunk per method', async () => {
    const chunks = await chunk('typescript', 'src/big.ts', BIG_CLASS, { targetTokens: 300 });
    const decl = chunks[0];
    assert.equal(decl.kind, 'class');
    assert.equal(decl.symbol, 'BigService');
    assert.deepEqual(decl.conformances, ['Base', 'Runner']);
    assert.equal(decl.doc, 'A big service.');
    assert.match(decl.content, /private offset = 3;/);
    assert.match(decl.content, /compute7\(input: number\): number …/);
    assert.doesNotMatch(decl.content, /scaled - this\.offset/, 'member bodies are elided');
    assert.equal(decl.symbols.length, 13);
    const members = chunks.slice(1);
    assert.equal(members.length, 12);
    members.forEach((m, i) => {
      assert.equal(m.kind, 'method');
      assert.equal(m.symbol, `BigService.compute${i}`);
      assert.equal(m.name, `compute${i}`);
      assert.equal(m.container, 'BigService');
      assert.equal(m.doc, `Computes value number ${i}.`);
      assert.ok(m.content.startsWith(`/** Computes value number ${i}. */`), 'member chunk includes its doc comment');
      assert.equal(m.semanticClass, 'DEFINITION_CALLABLE');
    });
    // the same class under the default target stays one chunk listing its members
    const whole = await chunk('typescript', 'src/big.ts', BIG_CLASS);
    assert.equal(whole.length, 1);
    assert.equal(whole[0].symbols.length, 13);
  });

  it('splits big classes in every class-based language', async () => {
    const body = (fn: (i: number) => string) => Array.from({ length: 10 }, (_, i) => fn(i)).join('\n');
    const cases: Array<[string, string, string, string]> = [
      ['python', 'a.py', `class Big(Base):\n${body((i) => `    def run${i}(self, value):\n        """Run ${i}."""\n        total = value * ${i} + self.offset\n        if total > 100:\n            return total - 100\n        return total\n`)}`, 'Big.run3'],
      ['java', 'A.java', `class Big extends Base {\n${body((i) => `  int run${i}(int value) {\n    int total = value * ${i} + offset;\n    if (total > 100) { return total - 100; }\n    return total;\n  }\n`)}}\n`, 'Big.run3'],
      ['csharp', 'A.cs', `class Big : Base {\n${body((i) => `  int Run${i}(int value) {\n    var total = value * ${i} + offset;\n    if (total > 100) { return total - 100; }\n    return total;\n  }\n`)}}\n`, 'Big.Run3'],
      ['kotlin', 'a.kt', `class Big : Base() {\n${body((i) => `  fun run${i}(value: Int): Int {\n    val total = value * ${i} + offset\n    if (total > 100) { return total - 100 }\n    return total\n  }\n`)}}\n`, 'Big.run3'],
      ['swift', 'a.swift', `class Big: Base {\n${body((i) => `  func run${i}(value: Int) -> Int {\n    let total = value * ${i} + offset\n    if total > 100 { return total - 100 }\n    return total\n  }\n`)}}\n`, 'Big.run3'],
      ['cpp', 'a.cpp', `class Big : public Base {\npublic:\n${body((i) => `  int run${i}(int value) {\n    int total = value * ${i} + offset;\n    if (total > 100) { return total - 100; }\n    return total;\n  }\n`)}};\n`, 'Big.run3'],
      ['ruby', 'a.rb', `class Big < Base\n${body((i) => `  def run${i}(value)\n    total = value * ${i} + offset\n    log_value(total, label: "run ${i}")\n    return total - 100 if total > 100\n    total\n  end\n`)}end\n`, 'Big.run3'],
      ['php', 'a.php', `<?php\nclass Big extends Base {\n${body((i) => `  public function run${i}(int $value): int {\n    $total = $value * ${i} + $this->offset;\n    if ($total > 100) { return $total - 100; }\n    return $total;\n  }\n`)}}\n`, 'Big.run3'],
      ['rust', 'a.rs', `impl Big {\n${body((i) => `    fn run${i}(&self, value: u32) -> u32 {\n        let total = value * ${i} + self.offset;\n        if total > 100 { return total - 100; }\n        total\n    }\n`)}}\n`, 'Big.run3'],
    ];
    for (const [lang, file, code, member] of cases) {
      const chunks = await chunk(lang, file, code, { targetTokens: 150 });
      const decl = chunks.find((c) => c.symbol === 'Big')!;
      assert.ok(decl, `${lang}: declaration chunk`);
      assert.ok(chunks.indexOf(decl) <= 1, `${lang}: declaration before members`);
      assert.doesNotMatch(decl.content, /total - 100/, `${lang}: member bodies elided`);
      // the first member's header whole in the outline (a body that starts at its first statement, Python's and
      // Ruby's, had its first character cut off into the header: "class Big(Base):\n    d\nef run0…")
      assert.match(decl.content, /\b(run0|Run0)\b/, `${lang}: ${JSON.stringify(decl.content.slice(0, 120))}`);
      assert.ok(decl.content.split('\n').every((line) => !/^\s*[A-Za-z]$/.test(line)), `${lang}: no line cut to one letter: ${JSON.stringify(decl.content.slice(0, 120))}`);
      const m = chunks.find((c) => c.symbol === member);
      assert.ok(m, `${lang}: member chunk ${member} in ${chunks.map((c) => c.symbol).join(',')}`);
      assert.equal(m!.container, 'Big', lang);
      assert.equal(m!.kind, 'method', lang);
      assert.ok(chunks.length >= 11, `${lang}: ${chunks.length} chunks`);
    }
  });

  it('never merges named neighbours: each declaration is its own chunk; imports attach to the next one (issue 18)', async () => {
    const code = `import { a } from './a';\nimport { b } from './b';\nconst LIMIT = 10;\nconst NAME = 'x';\nexport function tiny() { return a + b; }\nexport function tinier() { return LIMIT; }\n`;
    const chunks = await chunk('typescript', 'src/small.ts', code);
    assert.deepEqual(
      chunks.map((c) => [c.kind, c.symbol, c.startLine, c.endLine, c.nameRange!.line, c.nameRange!.column]),
      [['variable', 'LIMIT', 1, 3, 3, 7], ['variable', 'NAME', 4, 4, 4, 7], ['function', 'tiny', 5, 5, 5, 17], ['function', 'tinier', 6, 6, 6, 17]],
    );
    assert.deepEqual(chunks[2].symbols, ['tiny']);
    // overloads of one function stay one chunk, named at the first signature
    const over = await chunk('typescript', 'src/over.ts', `export function f(a: string): string;\nexport function f(a: number): number;\nexport function f(a: any): any { return a; }\nexport function g() {}\n`);
    assert.deepEqual(over.map((c) => [c.symbol, c.startLine, c.endLine, c.nameRange!.line]), [['f', 1, 3, 1], ['g', 4, 4, 4]]);
    // CommonJS requires are imports (glue), not declarations
    const cjs = await chunk('javascript', 'src/c.js', `const fs = require('fs');\nconst { join } = require('path');\nfunction read(p) { return fs.readFileSync(join(p)); }\n`);
    assert.deepEqual(cjs.map((c) => [c.symbol, c.startLine, c.nameRange!.line, c.nameRange!.column]), [['read', 1, 3, 10]]);
    // imports alone: a glue chunk
    const glue = await chunk('typescript', 'src/glue.ts', `import { a } from './a';\nimport { b } from './b';\nconsole.log(a, b);\n`);
    assert.equal(glue.length, 1);
    assert.equal(glue[0].kind, 'code');
    assert.equal(glue[0].symbol, '');
    assert.equal(glue[0].semanticClass, 'BOUNDARY_MODULE');
    assert.deepEqual(glue[0].references, ['a', 'b', 'console', 'log']);
    // unnamed code is named by its first line of own code, not by its imports
    assert.deepEqual(glue[0].nameRange, { line: 3, column: 1, endLine: 3, endColumn: 19 });
  });

  it('Python: declarations inside if/try/with blocks are units of their own; a block without one stays glue', async () => {
    const py = [
      'import hmac',
      '',
      'try:',
      '    import cryptography',
      '    has_crypto = True',
      'except ImportError:',
      '    has_crypto = False',
      '',
      'class Algorithm:',
      '    def sign(self, msg, key):',
      '        raise NotImplementedError',
      '',
      'if has_crypto:',
      '',
      '    class RSAAlgorithm(Algorithm):',
      '        def sign(self, msg, key):',
      '            return key.sign(msg)',
      '',
      '    class ECAlgorithm(Algorithm):',
      '        def sign(self, msg, key):',
      '            return key.sign(msg, "ec")',
      'else:',
      '    def unavailable():',
      '        raise RuntimeError("cryptography is missing")',
      '',
      'try:',
      '    from typing import Literal',
      'except ImportError:',
      '    def Literal(*args):',
      '        return args',
      '',
      'if __name__ == "__main__":',
      '    print(Algorithm())',
      '',
    ].join('\n');
    const chunks = await chunk('python', 'jwt/algorithms.py', py);
    const named = chunks.filter((c) => c.kind === 'class' || c.kind === 'function').map((c) => `${c.kind} ${c.symbol} ${c.startLine}`);
    for (const want of ['class Algorithm 1', 'class RSAAlgorithm 15', 'class ECAlgorithm 19', 'function unavailable 23', 'function Literal 29']) assert.ok(named.includes(want), `${want}: ${named.join(', ')}`);
    const rsa = chunks.find((c) => c.symbol === 'RSAAlgorithm')!;
    assert.deepEqual(rsa.conformances, ['Algorithm']);
    assert.ok(chunks.every((c) => !(c.kind === 'code' && c.content.includes('class RSAAlgorithm'))), 'no unnamed chunk holds the classes');
    assert.ok(chunks.some((c) => c.content.includes('if __name__ == "__main__":')), 'a block without declarations stays in the file\'s glue');
  });

  it('C/C++ headers: declarations inside include guards, #ifdef branches, extern "C" and macro namespace wrappers are units of their own', async () => {
    const header = [
      '#ifndef GEO_H',
      '#define GEO_H',
      '',
      '#include <stddef.h>',
      '',
      '#ifdef __cplusplus',
      'extern "C" {',
      '#endif',
      '',
      '/* Adds two numbers. */',
      'int geo_add(int a, int b) {',
      '  return a + b;',
      '}',
      '',
      'struct geo_point {',
      '  int x;',
      '  int y;',
      '};',
      '',
      '#ifdef _WIN32',
      'static int geo_platform(void) { return 1; }',
      '#else',
      'static int geo_platform(void) { return 2; }',
      '#endif',
      '',
      '#ifdef __cplusplus',
      '}',
      '#endif',
      '',
      '#endif  // GEO_H',
      '',
    ].join('\n');
    for (const lang of ['c', 'cpp']) {
      const chunks = await chunk(lang, 'geo.h', header);
      const named = chunks.filter((c) => c.kind !== 'code').map((c) => `${c.kind} ${c.symbol}`);
      for (const want of ['function geo_add', 'struct geo_point']) assert.ok(named.includes(want), `${lang}: ${want} in ${named.join(', ')}`);
      // the two branches' definitions share a name: one unit, as overloads do
      const platform = chunks.filter((c) => c.symbol === 'geo_platform');
      assert.ok(platform.length >= 1 && platform.some((c) => c.content.includes('return 1;')) && platform.some((c) => c.content.includes('return 2;')), `${lang}: both platform branches`);
      assert.ok(chunks[0]!.content.startsWith('#ifndef GEO_H'), `${lang}: the guard's own line stays with the first unit`);
    }
    // a namespace opened and closed by a macro on a line of its own (fmt, abseil, nlohmann): the grammar cannot read it
    const cpp = '#pragma once\n\nFMT_BEGIN_NAMESPACE\n\ntemplate <typename T> class basic_memory_buffer {\n public:\n  void grow(size_t size) {}\n};\n\nFMT_END_NAMESPACE\n';
    const chunks = await chunk('cpp', 'format.h', cpp);
    assert.ok(chunks.some((c) => c.kind === 'class' && c.symbol === 'basic_memory_buffer'), chunks.map((c) => `${c.kind} ${c.symbol}`).join(', '));
    assert.ok(chunks.some((c) => c.content.includes('FMT_BEGIN_NAMESPACE')), 'the macro lines stay in the chunks\' text');
    // a C++ header named `.h` (C by its extension) is read with the C++ grammar; its chunks keep the file's language
    const asC = await chunk('c', 'include/fmt/format.h', cpp);
    assert.ok(asC.some((c) => c.kind === 'class' && c.symbol === 'basic_memory_buffer'), asC.map((c) => `${c.kind} ${c.symbol}`).join(', '));
    assert.ok(asC.every((c) => c.language === 'c'));
    // a plain C header stays C (its `extern "C"` guard for C++ callers is no C++ of its own)
    const plainC = await chunk('c', 'geo.h', '#ifdef __cplusplus\nextern "C" {\n#endif\nint geo_add(int a, int b);\nstruct geo_point { int x; int y; };\n#ifdef __cplusplus\n}\n#endif\n');
    assert.ok(plainC.some((c) => c.symbol === 'geo_point'), plainC.map((c) => `${c.kind} ${c.symbol}`).join(', '));
  });

  it('C/C++: a macro before a declaration, its name or a class name (FMT_CONSTEXPR, SQLITE_API, SPDLOG_API) is read past; a constructor behind one does not swallow the file', async () => {
    const cpp = [
      'FMT_BEGIN_NAMESPACE',
      'template <typename Char> struct write_int_data {',
      '  size_t size;',
      '  size_t padding;',
      '',
      '  FMT_CONSTEXPR write_int_data(int num_digits, unsigned prefix)',
      '      : size((prefix >> 24) + num_digits), padding(0) {',
      '    if (size > 10) padding = 1;',
      '  }',
      '};',
      '',
      '/** Creates a text style from the foreground (text) color. */',
      'FMT_CONSTEXPR inline text_style fg(detail::color_type foreground) noexcept {',
      '  return text_style(true, foreground);',
      '}',
      '',
      'template <typename Char, typename OutputIt, typename T>',
      'FMT_CONSTEXPR20 auto write_significand(OutputIt out, T significand, int size) -> OutputIt {',
      '  return format_decimal<Char>(out, significand, size).end;',
      '}',
      'FMT_END_NAMESPACE',
      '',
    ].join('\n');
    const chunks = await chunk('cpp', 'include/fmt/format.h', cpp);
    const names = chunks.map((c) => `${c.kind} ${c.symbol}`);
    for (const want of ['struct write_int_data', 'function fg', 'function write_significand']) assert.ok(names.includes(want), `${want}: ${names.join(', ')}`);
    assert.ok(!names.some((n) => n.includes('write_int_data.fg') || n.includes('write_int_data.write_significand')), names.join(', '));
    assert.ok(chunks.find((c) => c.symbol === 'fg')!.content.includes('FMT_CONSTEXPR inline text_style fg'), 'the chunk keeps the macro in its text');
    // spdlog's styles: an export macro after `class`, a macro between the return type and the name, an out-of-line constructor
    const spd = await chunk('cpp', 'sinks/base_sink-inl.h', [
      'namespace spdlog {',
      'namespace sinks {',
      'template<typename Mutex>',
      'class SPDLOG_API base_sink : public sink',
      '{',
      'public:',
      '    void log(const details::log_msg &msg) final;',
      '};',
      '} // namespace sinks',
      '} // namespace spdlog',
      '',
      'template<typename Mutex>',
      'SPDLOG_INLINE spdlog::sinks::base_sink<Mutex>::base_sink(std::unique_ptr<spdlog::formatter> formatter)',
      '    : formatter_{std::move(formatter)}',
      '{}',
      '',
      'template<typename Mutex>',
      'void SPDLOG_INLINE spdlog::sinks::base_sink<Mutex>::log(const details::log_msg &msg)',
      '{',
      '    std::lock_guard<Mutex> lock(mutex_);',
      '    sink_it_(msg);',
      '}',
      '',
    ].join('\n'));
    const spdNames = spd.map((x) => `${x.kind} ${x.symbol}`);
    for (const want of ['class spdlog.sinks.base_sink', 'constructor spdlog.sinks.base_sink.base_sink', 'method spdlog.sinks.base_sink.log']) assert.ok(spdNames.includes(want), `${want}: ${spdNames.join(', ')}`);
    assert.deepEqual(spd.find((x) => x.kind === 'class')!.conformances, ['sink']);
    const c = await chunk('c', 'sqlite3.c', 'SQLITE_API int sqlite3_open(const char *filename, sqlite3 **ppDb) {\n  return openDatabase(filename, ppDb, 0, 0);\n}\n\nHRESULT WINAPI CreateThing(void) {\n  return 0;\n}\n');
    assert.ok(c.some((x) => x.kind === 'function' && x.symbol === 'sqlite3_open'), c.map((x) => `${x.kind} ${x.symbol}`).join(', '));
  });

  it('Rust: items inside item-level macro calls (feature gates, pin_project!) are units of their own; other macro calls are not unwrapped', async () => {
    const src = [
      'use std::marker::PhantomData;',
      '',
      'cfg_rt! {',
      '    /// An owned permission to join on a task.',
      '    pub struct JoinHandle<T> {',
      '        raw: RawTask,',
      '        _p: PhantomData<T>,',
      '    }',
      '',
      '    cfg_net! {',
      '        /// Connects to a peer.',
      '        pub async fn connect(addr: &str) -> io::Result<TcpStream> {',
      '            TcpStream::connect(addr).await',
      '        }',
      '    }',
      '}',
      '',
      'pin_project! {',
      '    #[must_use = "futures do nothing unless you `.await` or poll them"]',
      '    pub struct CopyBuf<\'a, R: ?Sized, W: ?Sized> {',
      '        reader: &\'a mut R,',
      '        writer: &\'a mut W,',
      '    }',
      '}',
      '',
      'mod inner {',
      '    cfg_fs! {',
      '        pub fn read_file(path: &str) -> String { String::new() }',
      '    }',
      '}',
      '',
      '// a macro call whose braces hold no items is left as it is',
      'forward_to_deserialize_any! {',
      '    bool i8 i16 string bytes',
      '}',
      '',
      'impl<T> Unpin for JoinHandle<T> {}',
      '',
    ].join('\n');
    const chunks = await chunk('rust', 'src/join.rs', src);
    const named = chunks.map((c) => `${c.kind} ${c.symbol}`);
    for (const want of ['struct JoinHandle', 'function connect', 'struct CopyBuf', 'function inner.read_file', 'impl JoinHandle']) {
      assert.ok(named.includes(want), `${want} in ${named.join(', ')}`);
    }
    const handle = chunks.find((c) => c.kind === 'struct' && c.symbol === 'JoinHandle')!;
    assert.ok(handle.content.includes('/// An owned permission') && handle.doc?.includes('An owned permission'), handle.content);
    // the macro's own lines stay in the chunks' text (the parser alone saw them blanked)
    assert.ok(chunks.some((c) => c.content.includes('cfg_rt! {')), named.join(', '));
    assert.ok(chunks.some((c) => c.content.includes('bool i8 i16 string bytes')), named.join(', '));
    assert.equal(chunks.filter((c) => c.kind === 'impl').length, 1, `the impl after the macro calls is read as before: ${named.join(', ')}`);
  });

  it('JavaScript wrappers: a large IIFE/UMD module and an oversize function are read as the declarations they hold; a huge statement is cut under the maximum', async () => {
    const fn = (n: string, extra = '') => [
      `  /** ${n}: adds the numbers of a list after scaling each one, and clamps the total to the configured maximum. */`,
      `  function ${n}(items, factor) {`,
      '    var total = 0;',
      '    for (var i = 0; i < items.length; i++) { total += items[i] * factor; }',
      `    ${extra}return Math.min(total, LIMIT);`,
      '  }',
    ].join('\n');
    const many = (prefix: string) => Array.from({ length: 12 }, (_, i) => fn(`${prefix}${i}`)).join('\n\n');
    // a UMD module: the factory's body holds the library's functions
    const umd = `;(function (root, factory) {\n  if (typeof define === 'function' && define.amd) define([], factory);\n  else root.Lib = factory();\n}(this, function () {\n  'use strict';\n  var LIMIT = 100;\n\n${many('sum')}\n\n  return { sum0: sum0 };\n}));\n`;
    const umdChunks = await chunk('javascript', 'lib.js', umd);
    const umdNamed = umdChunks.filter((c) => c.kind === 'function').map((c) => c.symbol);
    assert.deepEqual(umdNamed, Array.from({ length: 12 }, (_, i) => `sum${i}`), umdChunks.map((c) => `${c.kind} ${c.symbol}`).join(', '));
    assert.ok(umdChunks[0]!.content.startsWith(';(function (root, factory)'), 'the wrapper\'s own lines stay with the first unit');
    // a small IIFE stays one unit
    const small = await chunk('javascript', 'small.js', `(function () {\n${fn('only')}\n})();\n`);
    assert.equal(small.length, 1, small.map((c) => `${c.kind} ${c.symbol}`).join(', '));
    // a function over the hard maximum that holds functions (lodash's runInContext): its header, then its functions
    const big = `var LIMIT = 100;\n\n/** Makes a new library bound to a context. */\nfunction runInContext(context) {\n  var Array = context.Array;\n  var count = 0;\n\n${many('helper')}\n\n  return { helper0: helper0 };\n}\n`;
    const bigChunks = await chunk('javascript', 'big.js', big, { maxTokens: 600, targetTokens: 300, minTokens: 50 });
    const bigNamed = bigChunks.map((c) => `${c.kind} ${c.symbol}`);
    const outer = bigChunks.find((c) => c.symbol === 'runInContext')!;
    assert.ok(outer && outer.doc.includes('Makes a new library') && outer.content.includes('var Array = context.Array'), bigNamed.join(', '));
    for (let i = 0; i < 12; i++) assert.ok(bigNamed.includes(`function runInContext.helper${i}`), bigNamed.join(', '));
    assert.ok(!bigNamed.some((n) => n.endsWith('.count') || n.endsWith('.Array')), `its local variables are no units: ${bigNamed.join(', ')}`);
    // a statement over the maximum that wraps no declaration: parts under the maximum, not one huge unit
    const table = `register({\n${Array.from({ length: 400 }, (_, i) => `  key${i}: { name: 'entry number ${i}', value: ${i}, note: 'a description of entry ${i}' },`).join('\n')}\n});\n`;
    const parts = await chunk('javascript', 'table.js', table, { maxTokens: 600, targetTokens: 300, minTokens: 50 });
    assert.ok(parts.length >= 10 && parts.every((c) => c.tokenCount <= 600), parts.map((c) => c.tokenCount).join(', '));
    assert.ok(parts.map((c) => c.content).join('').includes('key399'), 'nothing is lost');
  });

  it('keeps definitions of 40+ tokens and every type declaration as their own main symbol', async () => {
    const fn = (n: string) => `export function ${n}(items: number[], factor: number): number {\n  let total = 0;\n  for (const item of items) {\n    total += item * factor;\n  }\n  return total;\n}\n`;
    const code = `${fn('first')}\nexport interface Tiny { a: number }\n${fn('second')}\ntype Small = string;\n`;
    const chunks = await chunk('typescript', 'src/defs.ts', code);
    assert.deepEqual(chunks.map((c) => `${c.kind}:${c.symbol}`), ['function:first', 'interface:Tiny', 'function:second', 'type_alias:Small']);
  });

  it('splits a function over maxTokens at statement boundaries, keeping the symbol', async () => {
    const stmts = Array.from({ length: 60 }, (_, i) => `  const value${i} = compute(input, ${i}) + offset;\n`).join('');
    const code = `// header\n\n/** Huge. */\nfunction huge(input: number): number {\n${stmts}  return value59;\n}\n`;
    const chunks = await chunk('typescript', 'src/huge.ts', code, { maxTokens: 200 });
    const parts = chunks.filter((c) => c.symbol === 'huge');
    assert.ok(parts.length >= 4, `parts: ${parts.length}`);
    assert.equal(new Set(parts.map((p) => p.id)).size, parts.length, 'ids differ per part');
    for (const p of parts) {
      assert.equal(p.kind, 'function');
      assert.equal(p.name, 'huge');
      assert.ok(p.tokenCount <= 200, `part has ${p.tokenCount} tokens`);
      assert.match(p.content, /;\s*$|}\s*$/, 'each part ends at a statement boundary');
    }
    assert.ok(parts[0].content.startsWith('/** Huge. */\nfunction huge('));
    assert.ok(parts[parts.length - 1].content.trimEnd().endsWith('return value59;\n}'));
    for (let i = 1; i < parts.length; i++) assert.ok(parts[i].startByte >= parts[i - 1].endByte, 'parts do not overlap');
    assert.equal(parts.map((p) => p.content).join('').replace(/\s+/g, ''), code.slice(code.indexOf('/** Huge')).replace(/\s+/g, ''));
    // Python: statements of a block
    const py = `def huge(x):\n${Array.from({ length: 60 }, (_, i) => `    value${i} = compute(x, ${i}) + offset\n`).join('')}    return value59\n`;
    const pyParts = (await chunk('python', 'h.py', py, { maxTokens: 150 })).filter((c) => c.symbol === 'huge');
    assert.ok(pyParts.length >= 4);
    assert.ok(pyParts.every((p) => p.tokenCount <= 150));
  });

  it('reports UTF-8 byte offsets and lines correctly with non-ASCII text', async () => {
    const code = `// Grüße — naïve café ☕ 😀\nconst größe = "😀😀";\n\n/** Ünïcode doc ✓ */\nexport function überweisung(betrag: number): string {\n  const währung = "€";\n  return betrag.toFixed(2) + " " + währung + " 😀";\n}\n\nexport class Kühlschrank {\n  temperatur = "−4 °C";\n  öffnen(): string { return "geöffnet ✓ and then a longer body to pass the tiny threshold of tokens"; }\n}\n`;
    for (const lang of ['typescript', 'javascript']) {
      const chunks = await chunk(lang, 'src/ü.ts', code);
      const buf = Buffer.from(code, 'utf8');
      for (const c of chunks) assert.equal(buf.subarray(c.startByte, c.endByte).toString('utf8'), c.content, `${lang} ${c.symbol}`);
      const fn = chunks.find((c) => c.symbols.includes('überweisung'))!;
      assert.ok(fn);
      const k = chunks.find((c) => c.symbol === 'Kühlschrank')!;
      assert.equal(k.startLine, 10);
      assert.equal(k.endLine, 13);
      assert.equal(k.startByte, Buffer.byteLength(code.slice(0, code.indexOf('export class Kühlschrank'))));
    }
    const py = `"""Modül."""\n\nclass Ärger:\n    """Dóc ✓ 😀"""\n    def ß(self):\n        return "é"\n`;
    const pyChunks = await chunk('python', 'ä.py', py);
    const buf = Buffer.from(py, 'utf8');
    for (const c of pyChunks) assert.equal(buf.subarray(c.startByte, c.endByte).toString('utf8'), c.content);
    assert.equal(pyChunks.find((c) => c.symbol === 'Ärger')!.doc, 'Dóc ✓ 😀');
  });

  it('keeps ids stable when code above a chunk changes', async () => {
    const fn = (n: string) => `export function ${n}(items: number[], factor: number): number {\n  let total = 0;\n  for (const item of items) {\n    total += item * factor;\n  }\n  return total;\n}\n`;
    const before = await chunk('typescript', 'src/s.ts', `${fn('alpha')}\n${fn('beta')}`);
    const after = await chunk('typescript', 'src/s.ts', `${fn('zeta')}\n// a new comment\n\n${fn('alpha')}\n\n\n${fn('beta')}`);
    const id = (cs: Chunk[], s: string) => cs.find((c) => c.symbol === s)!.id;
    assert.equal(id(after, 'alpha'), id(before, 'alpha'));
    assert.equal(id(after, 'beta'), id(before, 'beta'));
    assert.notEqual(after.find((c) => c.symbol === 'beta')!.startLine, before.find((c) => c.symbol === 'beta')!.startLine);
    assert.match(id(before, 'alpha'), /^[0-9a-f]{20}$/);
    const other = await chunk('typescript', 'src/other.ts', fn('alpha'));
    assert.notEqual(other[0].id, id(before, 'alpha'), 'the path is part of the id');
  });

  it('fills hashes and token counts', async () => {
    const [c] = await chunk('go', 'a.go', 'package a\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n');
    assert.match(c.contentHash, /^[0-9a-f]{64}$/);
    assert.ok(c.tokenCount > 5);
    assert.equal(c.path, 'a.go');
    assert.equal(c.language, 'go');
  });

  it('classifies tests', async () => {
    const js = await chunk('javascript', 'test/cart.test.js', `const assert = require('assert');\ndescribe('cart', () => {\n  it('adds', () => { assert.ok(true); });\n});\n`);
    assert.ok(js.every((c) => c.semanticClass === 'DEFINITION_TEST' || c.semanticClass === 'BOUNDARY_MODULE'));
    assert.ok(js.some((c) => c.semanticClass === 'DEFINITION_TEST'));
    const py = await chunk('python', 'src/checks.py', 'def test_adds_items():\n    cart = Cart()\n    cart.add("sku-1", 2)\n    assert cart.count() == 2\n    assert cart.total() > 0\n');
    assert.equal(py[0].semanticClass, 'DEFINITION_TEST');
    const go = await chunk('go', 'cart_test.go', 'package cart\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("bad")\n\t}\n}\n');
    assert.equal(go.find((c) => c.symbol === 'TestAdd')!.semanticClass, 'DEFINITION_TEST');
  });

  it('never throws on malformed code, in any language', async () => {
    const broken: Record<string, string> = {
      typescript: 'export class A {\n  m( {\n    return 1 +;\n}\nfunction ok() { return 1; }\n',
      tsx: 'export function C() { return <div><span></div>; }\nclass X {',
      javascript: 'function f( {\n  const = 1;\n}\nclass B { m() { return 2; } }\n',
      python: 'class A(:\n    def m(self\n        return 1\ndef ok():\n    return 2\n',
      go: 'package x\nfunc (r *T) M( {\n\treturn\n}\ntype S struct {\n',
      rust: 'impl X for {\n fn f(&self) -> { }\n}\nfn ok() -> u32 { 1 }\n',
      java: 'class A {\n void m( {\n }\n}\nclass B { void ok() {} }\n',
      csharp: 'namespace N { class A : { void M( { } }\n',
      kotlin: 'class A : {\n fun m( = 1\n}\nfun ok() = 2\n',
      swift: 'class A: {\n func m( -> Int { return }\n}\nextension : Codable {}\n',
      c: 'int f(int a {\n return a +;\n}\nstruct S { int x; \n',
      cpp: 'namespace { class A : public { void m( }; }\nint B::c() {\n',
      ruby: 'class A < \n  def m(\n  end\nmodule\n',
      php: '<?php\nclass A extends {\n function m( { }\n}\nfunction ok() {}\n',
    };
    for (const [lang, code] of Object.entries(broken)) {
      const chunks = await chunk(lang, `broken.${lang}`, code);
      assert.ok(chunks.length >= 1, `${lang} produced chunks`);
      const covered = chunks.map((c) => c.content).join('');
      assert.ok(covered.length > 0);
    }
    assert.deepEqual(await chunk('typescript', 'empty.ts', ''), []);
    assert.deepEqual(await chunk('typescript', 'blank.ts', '\n\n   \n'), []);
  });

  it('falls back to text chunks for languages without an AST definition', async () => {
    const chunks = await chunk('lua', 'a.lua', 'local function f()\n  return 1\nend\n');
    assert.equal(chunks.length, 1);
    assert.equal(chunks[0].kind, 'text');
    assert.equal(chunks[0].source, 'text');
  });
});

