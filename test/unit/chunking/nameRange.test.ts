/**
 * Name ranges (issue 18): every chunk carries the line and UTF-16 column of its declaration's identifier — not the
 * chunk's first line, not a decorator or attribute above it — and small named neighbours are never merged under one name.
 */
import assert from 'node:assert/strict';
import { chunk } from './helpers';
import { declaredMember, type Chunk } from '../../../server/src/engine/types';

/** The source text a chunk's name range covers (1-based line, 1-based UTF-16 columns, exclusive end). */
function named(code: string, c: Chunk): string {
  const r = c.nameRange!;
  assert.ok(r, `${c.symbol}: a name range`);
  assert.equal(r.endLine, r.line, `${c.symbol}: a one-line name`);
  return code.split('\n')[r.line - 1].slice(r.column - 1, r.endColumn - 1);
}

/** 1-based line of the first line matching `re`. */
function lineOf(code: string, re: RegExp): number {
  const i = code.split('\n').findIndex((l) => re.test(l));
  assert.ok(i >= 0, `no line matches ${re}`);
  return i + 1;
}

/**
 * Chunks `code` and checks, for each expected [symbol, declaration line pattern]: a chunk with that symbol exists,
 * its name range covers exactly the symbol's short name, on the line matching the pattern.
 */
async function expectNames(language: string, file: string, code: string, expected: Array<[string, RegExp]>, targetTokens?: number): Promise<Chunk[]> {
  const chunks = await chunk(language, file, code, targetTokens ? { targetTokens } : {});
  for (const [symbol, decl] of expected) {
    const c = chunks.find((x) => x.symbol === symbol);
    assert.ok(c, `${language}: no chunk ${symbol}; have ${chunks.map((x) => `${x.kind}:${x.symbol}`).join(', ')}`);
    const short = symbol.split('.').pop()!;
    assert.equal(named(code, c), short, `${language} ${symbol}: name range text`);
    assert.equal(c.nameRange!.line, lineOf(code, decl), `${language} ${symbol}: name line`);
    assert.ok(c.startLine <= c.nameRange!.line && c.nameRange!.line <= c.endLine, `${language} ${symbol}: name inside the span`);
  }
  return chunks;
}

describe('chunking: name ranges (issue 18)', () => {
  it('typescript: class with decorators, method, interface, type alias, enum, exported const and arrow function', async () => {
    const code = [
      "import { Injectable } from '@angular/core';",
      "import { Subject } from 'rxjs';",
      '',
      '/** A service. */',
      "@Injectable({ providedIn: 'root' })",
      'export class BehaviorService<T> extends Base implements OnInit {',
      '  @Input() value = 1;',
      ...Array.from({ length: 30 }, (_, i) => `  handle${i}(x: number): number { const y = x * ${i}; return y + this.value + ${i}; }`),
      '}',
      '',
      'export interface Shape {',
      '  area(): number;',
      '}',
      'export type Identifier = string | number;',
      'export enum Color { Red, Green }',
      'export const DEFAULT_LIMIT = 10;',
      'export const pickFirst = <T>(xs: T[]): T => xs[0];',
      'export abstract class AbstractThing {}',
      'declare function ambientFn(): void;',
      'export namespace Geometry {',
      '  export function distance(a: number, b: number): number { return Math.abs(a - b); }',
      '}',
    ].join('\n');
    const chunks = await expectNames('typescript', 'src/service.ts', code, [
      ['BehaviorService', /^export class BehaviorService/],
      ['BehaviorService.handle3', /^ {2}handle3\(/],
      ['Shape', /^export interface Shape/],
      ['Identifier', /^export type Identifier/],
      ['Color', /^export enum Color/],
      ['DEFAULT_LIMIT', /^export const DEFAULT_LIMIT/],
      ['pickFirst', /^export const pickFirst/],
      ['AbstractThing', /^export abstract class/],
      ['ambientFn', /^declare function/],
      ['Geometry', /^export namespace Geometry/],
      ['Geometry.distance', /^ {2}export function distance/],
    ]);
    // the class chunk starts at its doc comment and decorator; the name is on the class line, not the decorator's
    const cls = chunks.find((c) => c.symbol === 'BehaviorService')!;
    assert.equal(cls.startLine, 4);
    assert.deepEqual(cls.nameRange, { line: 6, column: 14, endLine: 6, endColumn: 29 });
  });

  it('javascript and tsx: classes, functions, const arrow functions, components', async () => {
    await expectNames('javascript', 'src/a.js', [
      "const path = require('path');",
      'export default function main() { return 1; }',
      'export class Batcher extends Base { run() { return path.join("a"); } }',
      'export const schedule = async (when) => when;',
      'function* gen() { yield 1; }',
    ].join('\n'), [
      ['main', /^export default function main/],
      ['Batcher', /^export class Batcher/],
      ['schedule', /^export const schedule/],
      ['gen', /^function\* gen/],
    ]);
    await expectNames('tsx', 'ui/Panel.tsx', [
      "import React from 'react';",
      'type PanelProps = { title: string };',
      'export function Panel({ title }: PanelProps) { return <div>{title}</div>; }',
      'export const Badge = () => <span />;',
    ].join('\n'), [
      ['PanelProps', /^type PanelProps/],
      ['Panel', /^export function Panel/],
      ['Badge', /^export const Badge/],
    ]);
  });

  it('python: decorated class and function (the name, not the decorator), method, module constant', async () => {
    const code = [
      'import os',
      'from dataclasses import dataclass',
      '',
      'MAX_RETRIES = 3',
      '',
      '@dataclass(frozen=True)',
      'class Point(Base):',
      '    """A point."""',
      '    x: int',
      '',
      '    @property',
      '    def norm(self):',
      '        return abs(self.x)',
      '',
      '@functools.cache',
      '@other',
      'def helper(a):',
      '    return a',
      '',
      'async def fetch_all(urls):',
      '    return [await u for u in urls]',
    ].join('\n');
    const chunks = await expectNames('python', 'pkg/mod.py', code, [
      ['MAX_RETRIES', /^MAX_RETRIES/],
      ['Point', /^class Point/],
      ['helper', /^def helper/],
      ['fetch_all', /^async def fetch_all/],
    ]);
    assert.equal(chunks.find((c) => c.symbol === 'helper')!.startLine, lineOf(code, /^@functools/), 'the decorator is in the unit');
  });

  it('go: functions, methods on pointer receivers, struct, interface, type alias, const and var blocks', async () => {
    await expectNames('go', 'ledger/ledger.go', [
      'package ledger',
      '',
      'import "fmt"',
      '',
      'type Reader interface { Read() int }',
      'type Ledger struct { Units int }',
      'type ID = string',
      'const MaxUnits = 100',
      'var (',
      '\tdefaultLedger = Ledger{}',
      '\tother = 2',
      ')',
      'func (l *Ledger) Reserve(n int) error { return fmt.Errorf("x %d", n) }',
      'func NewLedger() *Ledger { return &Ledger{} }',
    ].join('\n'), [
      ['Reader', /^type Reader/],
      ['Ledger', /^type Ledger/],
      ['ID', /^type ID/],
      ['MaxUnits', /^const MaxUnits/],
      ['defaultLedger', /^\tdefaultLedger/],
      ['Ledger.Reserve', /^func \(l \*Ledger\) Reserve/],
      ['NewLedger', /^func NewLedger/],
    ]);
  });

  it('rust: attributes above a struct, trait, impl blocks (the type name), type alias, const, fn', async () => {
    const code = [
      'use std::fmt;',
      '',
      '/// A point.',
      '#[derive(Debug, Clone)]',
      '#[serde(rename_all = "camelCase")]',
      'pub struct Point { x: i32 }',
      '',
      'pub trait Shape { fn area(&self) -> f64; }',
      '',
      'impl<T: fmt::Debug> fmt::Display for Wrapper<T> {',
      '    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, "{:?}", self.0) }',
      '}',
      'pub type Id = u64;',
      'pub const MAX: u32 = 3;',
      '#[inline]',
      'pub fn helper() -> u32 { 1 }',
      'macro_rules! square { ($x:expr) => { $x * $x }; }',
    ].join('\n');
    const chunks = await expectNames('rust', 'src/lib.rs', code, [
      ['Point', /^pub struct Point/],
      ['Shape', /^pub trait Shape/],
      ['Wrapper', /^impl<T/],
      ['Id', /^pub type Id/],
      ['MAX', /^pub const MAX/],
      ['helper', /^pub fn helper/],
      ['square', /^macro_rules!/],
    ]);
    const point = chunks.find((c) => c.symbol === 'Point')!;
    assert.ok(point.startLine <= 3, 'doc comment and attributes belong to the unit');
    assert.deepEqual(point.nameRange, { line: 6, column: 12, endLine: 6, endColumn: 17 });
  });

  it('java: annotated class and methods, constructor, interface, enum, record', async () => {
    const code = [
      'package shop;',
      '',
      'import java.util.List;',
      '',
      '@Entity',
      '@Table(name = "orders")',
      'public class Order extends Base implements Comparable<Order> {',
      ...Array.from({ length: 25 }, (_, i) => `  @Override\n  public int compute${i}(int value) { int t = value * ${i} + offset; return t > 100 ? t - 100 : t; }`),
      '  public Order() { super(); }',
      '}',
      '',
      'interface Shape { double area(); }',
      'enum Color { RED, GREEN }',
      'record Pair(int a, int b) {}',
    ].join('\n');
    await expectNames('java', 'src/Order.java', code, [
      ['Order', /^public class Order/],
      ['Order.compute7', /public int compute7\(/],
      ['Order.Order', /^ {2}public Order\(\)/],
      ['Shape', /^interface Shape/],
      ['Color', /^enum Color/],
      ['Pair', /^record Pair/],
    ]);
  });

  it('swift: attributed class, protocol, struct, extension, typealias, init, property, function', async () => {
    const code = [
      'import Foundation',
      '',
      '@MainActor',
      'final class Store<T>: ObservableObject {',
      '    @Published var items: [T] = []',
      ...Array.from({ length: 20 }, (_, i) => `    func add${i}(_ x: T) { items.append(x); print("added \\(items.count) for ${i}") }`),
      '    init() {}',
      '}',
      '',
      'protocol Shape { func area() -> Double }',
      'struct Point: Shape { func area() -> Double { 0 } }',
      'typealias Identifier = String',
      'extension Point: Codable {}',
      'let maxValue = 3',
      '@discardableResult',
      'func helper() -> Int { 1 }',
    ].join('\n');
    const chunks = await expectNames('swift', 'Sources/Store.swift', code, [
      ['Store', /^final class Store/],
      ['Store.add4', /func add4\(/],
      ['Store.init', /^ {4}init\(\)/],
      ['Shape', /^protocol Shape/],
      ['Point', /^struct Point/],
      ['Identifier', /^typealias Identifier/],
      ['maxValue', /^let maxValue/],
      ['helper', /^func helper/],
    ], 200);
    const ext = chunks.find((c) => c.kind === 'extension')!;
    assert.equal(named(code, ext), 'Point');
    assert.equal(ext.nameRange!.line, lineOf(code, /^extension Point/));
  });

  it('kotlin, c#, c++, c, ruby, php: the identifier of each declaration', async () => {
    await expectNames('kotlin', 'a.kt', '@Serializable\ndata class User(val id: Int)\nfun greet(u: User) = "hi ${u.id}"\ninterface Repo { fun find(): User }\n', [
      ['User', /^data class User/], ['greet', /^fun greet/], ['Repo', /^interface Repo/],
    ]);
    await expectNames('csharp', 'A.cs', '[Serializable]\npublic class Account { public int Id { get; set; } }\npublic interface IRepo { void Save(); }\n', [
      ['Account', /^public class Account/], ['IRepo', /^public interface IRepo/],
    ]);
    await expectNames('cpp', 'a.cpp', 'struct Vec { int x; };\nint Vec::length() const { return x; }\nint helper(int v) { return v * 2; }\n', [
      ['Vec', /^struct Vec/], ['Vec.length', /^int Vec::length/], ['helper', /^int helper/],
    ]);
    await expectNames('c', 'a.c', '#include <stdio.h>\nstatic int counter(int v) { return v + 1; }\ntypedef struct Node { int v; } Node;\n', [
      ['counter', /^static int counter/],
    ]);
    await expectNames('ruby', 'a.rb', "require 'json'\nmodule Billing\n  class Invoice < Base\n    def total\n      42\n    end\n  end\nend\n", [
      ['Billing', /^module Billing/],
    ]);
    await expectNames('php', 'a.php', '<?php\nnamespace App;\nfunction helper(int $x): int { return $x; }\nclass Cart { public function add() {} }\n', [
      ['helper', /^function helper/], ['Cart', /^class Cart/],
    ]);
  });

  it('columns count UTF-16 code units (astral characters count two)', async () => {
    const code = 'const s = "😀"; export const größe = 1;\n/** 😀 */ export function überweisung(): void {}\n';
    const chunks = await chunk('typescript', 'src/u.ts', code);
    const g = chunks.find((c) => c.symbol === 'größe')!;
    assert.equal(named(code, g), 'größe');
    assert.equal(g.nameRange!.column, code.indexOf('größe') + 1);
    const u = chunks.find((c) => c.symbol === 'überweisung')!;
    assert.equal(u.nameRange!.column, code.split('\n')[1].indexOf('überweisung') + 1);
  });

  it('unnamed code: its first own line, not its imports; a lone import block: its first line', async () => {
    const code = "import { a } from './a';\n\n// start the app\nstartApp(a);\n";
    const [c] = await chunk('typescript', 'src/main.ts', code);
    assert.equal(c.kind, 'code');
    assert.deepEqual(c.nameRange, { line: 4, column: 1, endLine: 4, endColumn: 13 });
    const [imp] = await chunk('python', 'pkg/__init__.py', '\n\nfrom .a import b\nfrom .c import d\n');
    assert.deepEqual(imp.nameRange, { line: 3, column: 1, endLine: 3, endColumn: 17 });
  });

  it('markdown: a section is named by its heading title', async () => {
    const code = 'Intro text.\n\n# Guide\n\nBody.\n\n## Install  ##\n\nRun it.\n\nSetext Title\n------------\n\nMore.\n';
    const chunks = await chunk('markdown', 'docs/guide.md', code);
    const byName = (n: string) => chunks.find((c) => c.name === n)!;
    assert.equal(named(code, byName('Guide')), 'Guide');
    assert.equal(byName('Guide').nameRange!.line, 3);
    assert.equal(named(code, byName('Install')), 'Install');
    assert.equal(named(code, byName('Setext Title')), 'Setext Title');
    const intro = chunks.find((c) => c.name === '')!;
    assert.deepEqual(intro.nameRange, { line: 1, column: 1, endLine: 1, endColumn: 12 });
  });

  it('further names of one declaration and members of a class kept whole carry their own ranges (symbolRanges)', async () => {
    const ts = 'export const low = 1, high = 2;\nexport class Small {\n  x = 1;\n  get size() { return 1; }\n  run(): void {}\n}\n';
    const chunks = await chunk('typescript', 'src/small.ts', ts);
    const text = (r: { line: number; column: number; endColumn: number }) => ts.split('\n')[r.line - 1].slice(r.column - 1, r.endColumn - 1);
    const low = chunks.find((c) => c.symbol === 'low')!;
    assert.deepEqual(low.symbolRanges!.map((x) => [x.symbol, x.kind, x.range.line, text(x.range)]), [['high', 'variable', 1, 'high']]);
    const small = chunks.find((c) => c.symbol === 'Small')!;
    assert.deepEqual(small.symbolRanges!.map((x) => [x.symbol, x.kind, x.container, x.range.line, text(x.range)]), [
      ['Small.size', 'method', 'Small', 4, 'size'],
      ['Small.run', 'method', 'Small', 5, 'run'],
    ]);
    const go = 'package p\n\nconst (\n\tRed = iota\n\tGreen\n)\n';
    const [block] = await chunk('go', 'p/c.go', go);
    assert.equal(block.symbol, 'Red');
    assert.deepEqual(block.symbolRanges!.map((x) => [x.name, x.range.line, x.range.column]), [['Green', 5, 2]]);
    // a split class lists no members here: they are chunks of their own
    const members = Array.from({ length: 30 }, (_, i) => `  m${i}(v: number): number { const t = v * ${i} + this.x; return t > 100 ? t - 100 : t; }`).join('\n');
    const split = await chunk('typescript', 'src/big.ts', `export class Big {\n  x = 1;\n${members}\n}\n`, { targetTokens: 150 });
    assert.equal(split.find((c) => c.symbol === 'Big')!.symbolRanges, undefined);
  });

  it('small named neighbours are never merged under one name (popNumber / last; two functions in one file)', async () => {
    const code = [
      "import { Observable } from '../Observable';",
      'function last<T>(arr: T[]): T | undefined { return arr[arr.length - 1]; }',
      'export function popResultSelector(args: any[]) { return typeof last(args) === "function" ? args.pop() : undefined; }',
      'export function popNumber(args: any[], d: number) { return typeof last(args) === "number" ? args.pop()! : d; }',
    ].join('\n');
    const chunks = await chunk('typescript', 'src/util/args.ts', code);
    assert.deepEqual(chunks.map((c) => c.symbol), ['last', 'popResultSelector', 'popNumber']);
    for (const c of chunks) assert.equal(named(code, c), c.symbol);
    assert.deepEqual(chunks.map((c) => c.symbols), [['last'], ['popResultSelector'], ['popNumber']]);
    // members of a split class: tiny getters each get their own chunk and name
    const members = Array.from({ length: 40 }, (_, i) => `  get value${i}() { return this.v + ${i}; }`).join('\n');
    const cls = await chunk('typescript', 'src/big.ts', `export class Many {\n  v = 1;\n${members}\n}\n`, { targetTokens: 150 });
    const getters = cls.filter((c) => c.kind === 'method');
    assert.equal(getters.length, 40);
    for (const g of getters) assert.equal(named(`export class Many {\n  v = 1;\n${members}\n}\n`, g), g.name);
  });
});

describe('chunking: a generated constant block (thousands of names, as in golang.org/x/sys zerrors_*.go)', () => {
  it('names every constant of the block, each at its own line (one walk of the block, not one per name)', async () => {
    const n = 3000;
    const lines = ['package unix', '', 'const ('];
    for (let i = 0; i < n; i++) lines.push(`\tE_CODE_${i} = 0x${i.toString(16)}`);
    lines.push(')', '');
    const chunks = await chunk('go', 'zerrors.go', lines.join('\n'));
    const symbols = new Set(chunks.flatMap((c) => c.symbols));
    for (let i = 0; i < n; i += 97) assert.ok(symbols.has(`E_CODE_${i}`), `E_CODE_${i} missing`);
    assert.ok(symbols.has(`E_CODE_${n - 1}`));
  });
});

describe('chunking: anonymous default exports (issue 18)', () => {
  it('are units named after their module (file, or folder of an index file), the name range on `default`', async () => {
    const cls = 'import { Base } from "./base";\n\n/** A widget. */\nexport default class extends Base {\n  render(): void {}\n}\n';
    const [c] = (await chunk('typescript', 'src/ui/Widget.ts', cls)).filter((x) => x.kind === 'class');
    assert.equal(c.symbol, 'Widget');
    assert.equal(c.nameRange!.line, 4);
    assert.equal(cls.split('\n')[3].slice(c.nameRange!.column - 1, c.nameRange!.endColumn - 1), 'default');
    assert.deepEqual(c.conformances, ['Base']);
    const fn = 'export default function (source) {\n  return source.split(" ");\n}\n';
    assert.deepEqual((await chunk('javascript', 'lib/make-parser.js', fn)).map((x) => [x.kind, x.symbol]), [['function', 'makeParser']]);
    const arrow = 'export default async (req: Request) => {\n  return req.url;\n};\n';
    assert.deepEqual((await chunk('typescript', 'src/handlers/index.ts', arrow)).map((x) => [x.kind, x.symbol]), [['function', 'handlers']]);
    // a named default export keeps its own name; a default export of a value is not a declaration
    assert.deepEqual((await chunk('typescript', 'src/a.ts', 'export default function parse(s: string) {\n  return s;\n}\n')).map((x) => x.symbol), ['parse']);
    assert.ok((await chunk('typescript', 'src/b.ts', 'const config = { a: 1 };\nexport default config;\n')).every((x) => x.symbol !== 'b'));
  });
});

describe('chunking: re-export aliases (issue 18)', () => {
  it('an alias a re-export introduces is a name of the unit holding it, at its own range; pass-through names are not', async () => {
    const code = "export { default as Widget } from './Widget';\nexport { Base as WidgetBase, helper } from './base';\nexport * as util from './util';\nexport * from './x';\n";
    const chunks = await chunk('typescript', 'src/index.ts', code);
    const unit = chunks.find((c) => c.symbolRanges?.some((r) => r.name === 'WidgetBase'));
    assert.ok(unit, chunks.map((c) => `${c.kind}:${c.symbol}:${c.symbols}`).join(', '));
    const at = (name: string) => {
      const r = unit.symbolRanges!.find((x) => x.name === name)!.range;
      return [r.line, code.split('\n')[r.line - 1].slice(r.column - 1, r.endColumn - 1)];
    };
    assert.deepEqual(at('Widget'), [1, 'Widget']);
    assert.deepEqual(at('WidgetBase'), [2, 'WidgetBase']);
    assert.deepEqual(at('util'), [3, 'util']);
    assert.equal(unit.symbolRanges!.some((x) => x.name === 'helper' || x.name === 'Base'), false, 'declared elsewhere: not names of this unit');
    assert.equal(declaredMember(unit, 'WidgetBase'), 'WidgetBase');
    assert.ok(unit.symbols.includes('WidgetBase'));
  });
});
