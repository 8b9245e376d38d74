import assert from 'node:assert/strict';
import type { Parser } from 'web-tree-sitter';
import { facts, goParser, pairs } from './goFacts';
import { implicitConformances } from '../../../server/src/engine/chunking/languages/go/conformance';
import { goTypesIn } from '../../../server/src/engine/chunking/languages/go/declarations';
import { goMethodsIn } from '../../../server/src/engine/chunking/languages/go/facts';
import { makeGoSignature } from '../../../server/src/engine/chunking/languages/go/signature';
import { blankGoNoise } from '../../../server/src/engine/chunking/languages/go/source';
import { goFileFacts } from '../../../server/src/engine/chunking/languages/go/facts';
import { stdInterfaceFacts } from '../../../server/src/engine/chunking/languages/go/stdInterfaces';
import type { GoChunkRow } from '../../../server/src/engine/chunking/languages/go/types';

let parser: Parser;
before(async () => {
  parser = await goParser();
});


describe('Go implicit interfaces: reading chunk text', () => {
  it('finds method headers with value, pointer, unnamed and generic receivers', () => {
    const src = [
      'func (f File) Read(p []byte) (int, error) { return 0, nil }',
      'func (m *Mem) Close() error { return nil }',
      'func (*Mem) Size() int64 { return 0 }',
      'func (l List[T]) Len() int { return 0 }',
      'func (p *Pair[K, V]) Swap() {}',
      'func Plain() {}',
    ].join('\n');
    assert.deepEqual(goMethodsIn(src), [
      { pointer: false, receiver: 'File', name: 'Read' },
      { pointer: true, receiver: 'Mem', name: 'Close' },
      { pointer: true, receiver: 'Mem', name: 'Size' },
      { pointer: false, receiver: 'List', name: 'Len' },
      { pointer: true, receiver: 'Pair', name: 'Swap' },
    ]);
  });

  it('ignores method-like text in comments and raw strings', () => {
    const src = '/*\nfunc (f File) Ghost() {}\n*/\nconst tmpl = `\nfunc (f File) Template() {}\n`\nfunc (f File) Real() {}\n';
    assert.deepEqual(goMethodsIn(src).map((m) => m.name), ['Real']);
    const text = 'a := "x // y" // z\nb := \'"\'';
    const blanked = blankGoNoise(text);
    assert.equal(blanked.length, text.length, 'offsets are kept');
    assert.match(blanked, /^a := +\nb := +$/);
  });

  it('reads interfaces (methods, embeddings, type terms) and struct embeddings with tree-sitter', () => {
    const types = goTypesIn(parser, [
      'type (',
      '\tReadCloser interface {',
      '\t\tio.Reader',
      '\t\tClose() error',
      '\t}',
      '\tNumber interface{ ~int | ~float64 }',
      '\tWrapped struct {',
      '\t\t*bytes.Buffer',
      '\t\tio.Writer',
      '\t\tname string',
      '\t}',
      '\tAlias = Wrapped',
      '\tHandlerFunc func()',
      ')',
    ].join('\n'));
    assert.deepEqual(types, [
      {
        name: 'ReadCloser', interface: true, methods: ['Close'], signatures: [makeGoSignature([], ['error'])],
        embeds: [{ pkg: 'io', name: 'Reader', pointer: false }], constraint: false,
      },
      { name: 'Number', interface: true, methods: [], embeds: [], constraint: true },
      { name: 'Wrapped', interface: false, methods: [], embeds: [{ pkg: 'bytes', name: 'Buffer', pointer: true }, { pkg: 'io', name: 'Writer', pointer: false }], constraint: false },
      { name: 'HandlerFunc', interface: false, methods: [], embeds: [], constraint: false },
    ]);
  });
});

describe('Go implicit interfaces: the method-set join', () => {
  it('matches value and pointer receivers across files and packages, and not a partial method set', async () => {
    const rows = implicitConformances(await facts({
      'io/io.go': 'package io\n\n// Reader reads.\ntype Reader interface {\n\tRead(p []byte) (int, error)\n\tClose() error\n}\n',
      'store/types.go': 'package store\n\ntype File struct{ name string }\n\ntype Mem struct{ data []byte }\n\ntype Half struct{ n int }\n',
      'store/methods.go': [
        'package store',
        '',
        'func (f File) Read(p []byte) (int, error) { return 0, nil }',
        'func (f File) Close() error { return nil }',
        'func (m *Mem) Read(p []byte) (int, error) { return 0, nil }',
        'func (m *Mem) Close() error { return nil }',
        'func (h *Half) Read(p []byte) (int, error) { return 0, nil }',
        '',
      ].join('\n'),
    }));
    assert.deepEqual(pairs(rows), ['File Reader implicit', 'Mem Reader implicit-pointer']);
    const file = rows.find((r) => r.typeName === 'File')!;
    assert.equal(file.path, 'store/types.go', 'the row hangs on the type declaration, not on the methods');
  });

  it('resolves embedded interfaces (qualified, builtin error), lists superset interfaces and skips explicit embedding', async () => {
    const rows = implicitConformances(await facts({
      'io/io.go': [
        'package io',
        '',
        'type Reader interface{ Read(p []byte) (int, error) }',
        '',
        'type Closer interface{ Close() error }',
        '',
        '// ReadCloser embeds Reader: declared, so no implicit row for it.',
        'type ReadCloser interface {',
        '\tReader',
        '\tCloser',
        '}',
        '',
      ].join('\n'),
      'x/x.go': [
        'package x',
        '',
        'import "io"',
        '',
        '// Source repeats the methods instead of embedding: a superset interface.',
        'type Source interface {',
        '\tRead(p []byte) (int, error)',
        '\tClose() error',
        '\tName() string',
        '}',
        '',
        'type FailingCloser interface {',
        '\tio.Closer',
        '\terror',
        '}',
        '',
        'type T struct{}',
        '',
        'func (T) Close() error { return nil }',
        '',
        'func (T) Error() string { return "" }',
        '',
      ].join('\n'),
    }));
    const got = pairs(rows);
    assert.ok(got.includes('Source Reader implicit-interface'), got.join('\n'));
    assert.ok(got.includes('Source ReadCloser implicit-interface'), got.join('\n'));
    assert.ok(got.includes('T FailingCloser implicit'), got.join('\n'));
    assert.ok(got.includes('T Closer implicit'), got.join('\n'));
    assert.ok(!got.some((p) => p.startsWith('ReadCloser Reader') || p.startsWith('ReadCloser Closer')), 'embedding is declared already');
    assert.ok(!got.some((p) => p.startsWith('Reader ') && p.includes(' Source ')), 'a subset interface does not implement a superset');
  });

  it('promotes methods of embedded fields; a type whose methods are all promoted satisfies through the field', async () => {
    const rows = implicitConformances(await facts({
      'a/a.go': [
        'package a',
        '',
        'type Sizer interface{ Size() int64 }',
        '',
        'type Mem struct{ n int64 }',
        '',
        'func (m *Mem) Size() int64 { return m.n }',
        '',
        'type ByPointer struct {',
        '\t*Mem',
        '\tlabel string',
        '}',
        '',
        'type ByValue struct {',
        '\tMem',
        '\tlabel string',
        '}',
        '',
        'type OneLine struct{ *Mem }',
        '',
        '// overrides the promoted method: it implements Sizer itself',
        'type Capped struct{ *Mem }',
        '',
        'func (c Capped) Size() int64 { return 1 }',
        '',
      ].join('\n'),
    }));
    // every method promoted from an embedded field: a wrapper that satisfies Sizer through it ('implicit-embedded';
    // ranked after the types that implement Sizer themselves); its own method makes Capped a direct implementation
    assert.deepEqual(pairs(rows), ['ByPointer Sizer implicit-embedded', 'ByValue Sizer implicit-embedded', 'Capped Sizer implicit', 'Mem Sizer implicit-pointer', 'OneLine Sizer implicit-embedded']);
  });

  it('skips empty interfaces, constraints, unresolved embeddings, and keeps unexported interfaces to their package', async () => {
    const rows = implicitConformances(await facts({
      'a/a.go': [
        'package a',
        '',
        'type Any interface{}',
        '',
        'type Number interface {',
        '\t~int | ~int64',
        '\tString() string',
        '}',
        '',
        'type Remote interface {',
        '\tfmt.Stringer',
        '\tName() string',
        '}',
        '',
        'type stringer interface{ String() string }',
        '',
        'type local interface{ name() string }',
        '',
        'type A struct{}',
        '',
        'func (A) String() string { return "" }',
        '',
        'func (A) Name() string { return "" }',
        '',
        'func (A) name() string { return "" }',
        '',
      ].join('\n'),
      'b/b.go': [
        'package b',
        '',
        'type B struct{}',
        '',
        'func (B) String() string { return "" }',
        '',
        'func (B) name() string { return "" }',
        '',
      ].join('\n'),
    }));
    assert.deepEqual(pairs(rows), ['A local implicit', 'A stringer implicit']);
  });
});

describe('Go implicit interfaces: the standard library\'s well-known interfaces', () => {
  const readFacts = async (files: Array<{ path: string; chunks: GoChunkRow[] }>) => {
    const p = await goParser();
    return files.map((f) => goFileFacts(f.path, f.chunks, p));
  };

  it('a project without the standard library gets rows for io.Reader, http.Handler, sort.Interface, fmt.Stringer, driver.Conn (by signature)', async () => {
    const std = await stdInterfaceFacts(readFacts);
    assert.ok(std.length >= 15 && std.every((f) => f.types.every((t) => t.chunkId === '')), 'virtual declarations carry no chunk');
    const rows = implicitConformances(
      await facts({
        'web/server.go': [
          'package web',
          '',
          'import (',
          '\t"database/sql/driver"',
          '\t"net/http"',
          ')',
          '',
          'type API struct{ name string }',
          '',
          'func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {}',
          '',
          'type Body struct{ data []byte }',
          '',
          'func (b *Body) Read(p []byte) (int, error) { return 0, nil }',
          '',
          'type ByName []string',
          '',
          'func (s ByName) Len() int           { return len(s) }',
          'func (s ByName) Less(i, j int) bool { return s[i] < s[j] }',
          'func (s ByName) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }',
          '',
          'type Color int',
          '',
          'func (c Color) String() string { return "red" }',
          '',
          '// the wrong signature: Read() string is no io.Reader',
          'type Text struct{}',
          '',
          'func (Text) Read() string { return "" }',
          '',
          'type DBConn struct{}',
          '',
          'func (c *DBConn) Prepare(query string) (driver.Stmt, error) { return nil, nil }',
          'func (c *DBConn) Close() error                              { return nil }',
          'func (c *DBConn) Begin() (driver.Tx, error)                 { return nil, nil }',
          '',
        ].join('\n'),
      }),
      std,
    );
    const got = pairs(rows);
    // named with their package: a question about the project's own Reader never lists io.Reader's implementers
    for (const want of ['API http.Handler implicit-pointer', 'Body io.Reader implicit-pointer', 'ByName sort.Interface implicit', 'Color fmt.Stringer implicit', 'DBConn driver.Conn implicit-pointer']) {
      assert.ok(got.includes(want), `${want} in:\n${got.join('\n')}`);
    }
    assert.ok(!got.some((p) => p.startsWith('Text ')), `Read() string implements nothing:\n${got.join('\n')}`);
    // net.Conn has other methods than database/sql/driver's Conn: DBConn is no net.Conn
    assert.ok(!got.some((p) => p.startsWith('DBConn net.Conn')), got.join('\n'));
    assert.ok(rows.every((r) => r.chunkId !== ''), 'rows only for the project\'s types');
  });

  it('an index that declares the package itself (the Go tree) uses its own declarations, not the built-in copy', async () => {
    const std = await stdInterfaceFacts(readFacts);
    const rows = implicitConformances(
      await facts({
        'io/io.go': 'package io\n\ntype Reader interface {\n\tRead(p []byte) (n int, err error)\n}\n',
        'bytes/reader.go': 'package bytes\n\ntype Reader struct{ s []byte }\n\nfunc (r *Reader) Read(b []byte) (n int, err error) { return 0, nil }\n',
      }),
      std,
    );
    assert.deepEqual(pairs(rows).filter((p) => p.includes(' Reader ')), ['Reader Reader implicit-pointer']);
  });
});
