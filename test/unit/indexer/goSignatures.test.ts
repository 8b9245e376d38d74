import assert from 'node:assert/strict';
import type { Parser } from 'web-tree-sitter';
import { facts, goParser, pairs } from './goFacts';
import { implicitConformances } from '../../../server/src/engine/chunking/languages/go/conformance';
import { goTypesIn } from '../../../server/src/engine/chunking/languages/go/declarations';
import { goMethodsIn } from '../../../server/src/engine/chunking/languages/go/facts';
import { goImportsIn, goPackageNameOfPath } from '../../../server/src/engine/chunking/languages/go/packages';
import { formatGoSignature, goSignaturesMatch } from '../../../server/src/engine/chunking/languages/go/signature';
import { goFuncTypeSignature } from '../../../server/src/engine/chunking/languages/go/syntax';
import type { GoNameContext, GoSignature } from '../../../server/src/engine/chunking/languages/go/types';

/**
 * The signature normaliser and comparer of the Go implicit-interface pass (chunking/languages/go/signature.ts, syntax.ts):
 * func types and method headers parsed with the real Go grammar, then compared.
 */
let parser: Parser;
before(async () => {
  parser = await goParser();
});

const sig = (text: string, cx?: GoNameContext): GoSignature => {
  const s = goFuncTypeSignature(parser, text, cx);
  assert.ok(s, `${text} parses`);
  return s;
};
const show = (text: string, cx?: GoNameContext) => formatGoSignature(sig(text, cx));
const same = (a: string, b: string, ca?: GoNameContext, cb?: GoNameContext) => goSignaturesMatch(sig(a, ca), sig(b, cb));

describe('Go signatures: normalising', () => {
  it('drops parameter names, counts grouped parameters once each, keeps unnamed results', () => {
    assert.equal(show('func(a, b int, s string) (n int, err error)'), '(int, int, string) (int, error)');
    assert.equal(show('func(int, int, string) (int, error)'), '(int, int, string) (int, error)');
    assert.equal(show('func()'), '() ()');
    assert.equal(show('func() error'), '() (error)');
    assert.equal(show('func() (error)'), '() (error)');
    assert.equal(show('func(_ int) (_ error)'), '(int) (error)');
  });

  it('byte = uint8, rune = int32, any = interface{}; whitespace and parentheses do not count', () => {
    assert.equal(show('func(p []byte, r rune, v any)'), '([]uint8, int32, interface{}) ()');
    assert.ok(same('func(p []byte, r rune, v any)', 'func([]uint8, int32, interface {})'));
    assert.ok(same('func( p  [ ]byte )  ( int )', 'func([]byte) int'));
    assert.ok(same('func(x (int))', 'func(int)'));
  });

  it('keeps pointer, slice, array, map, channel direction, func and variadic structure', () => {
    assert.equal(show('func(m map[string][]*int, a [4]byte, c <-chan int, d chan<- error, e chan bool)'),
      '(map[string][]*int, [4]uint8, <-chan int, chan<- error, chan bool) ()');
    assert.ok(!same('func(*int)', 'func(int)'));
    assert.ok(!same('func([]int)', 'func([4]int)'));
    assert.ok(!same('func(<-chan int)', 'func(chan int)'));
    assert.ok(!same('func(chan<- int)', 'func(<-chan int)'));
    assert.ok(!same('func(a ...int)', 'func(a []int)'), 'a variadic parameter is not a slice parameter');
    assert.ok(same('func(format string, args ...any)', 'func(string, ...interface{})'));
    assert.ok(!same('func(int) error', 'func(int) (int, error)'), 'arity of results');
    assert.ok(!same('func(int, int)', 'func(int)'), 'arity of parameters');
  });

  it('nested func types drop their parameter names; interface literals compare as method sets; struct fields keep names', () => {
    assert.ok(same('func(f func(ctx context.Context, n int) (ok bool))', 'func(func(context.Context, int) bool)'));
    assert.ok(!same('func(f func(int) bool)', 'func(f func(int) (bool, error))'));
    assert.ok(same('func(v interface{ B(); A(x int) int })', 'func(interface{ A(int) int; B() })'));
    assert.ok(!same('func(v interface{ A() })', 'func(interface{})'));
    assert.ok(same('func(s struct{ a, b int })', 'func(struct{ a int; b int })'));
    assert.ok(!same('func(s struct{ a int })', 'func(struct{ b int })'));
    assert.ok(same('func(l List[int, string])', 'func(List[int,string])'));
  });

  it('qualifies names by package: unqualified = the declaring file\'s package; import aliases; dot imports', () => {
    const io = { pkg: 'io' };
    const bufio = { pkg: 'bufio' };
    const stream = { pkg: 'stream' };
    assert.equal(show('func(w Writer) (n int64, err error)', io), '(io.Writer) (int64, error)');
    assert.ok(same('func(w Writer) (n int64, err error)', 'func(w io.Writer) (int64, error)', io, bufio), 'io\'s Writer is io.Writer');
    assert.ok(!same('func(r Reader)', 'func(r io.Reader)', stream, bufio), 'stream\'s Reader is not io.Reader');
    assert.ok(!same('func(r Reader)', 'func(r Reader)', stream, bufio), 'two packages\' own Readers differ');
    assert.ok(same('func(r Reader)', 'func(r Reader)', bufio, bufio));
    assert.ok(same('func(e error, s string)', 'func(error, string)', stream, bufio), 'predeclared names have no package');
    const aliased = { pkg: 'x', aliases: new Map([['sio', 'io']]) };
    assert.ok(same('func(r sio.Reader)', 'func(r Reader)', aliased, io), 'an import alias is its package');
    const dot = { pkg: 'x', dotImport: true };
    assert.equal(show('func(r Reader) int', dot), '(?.Reader) (int)');
    assert.ok(same('func(r Reader)', 'func(r io.Reader)', dot, bufio), 'dot import: the name in any package');
    assert.ok(same('func(r Reader)', 'func(r Reader)', dot, stream));
    assert.ok(!same('func(r Reader)', 'func(r io.Writer)', dot, bufio));
    assert.ok(!same('func(r Reader)', 'func(r *io.Reader)', dot, bufio));
  });

  it('type parameters match any type in their position; arity and the known parts still count', () => {
    const generic = { pkg: 'p', typeParams: new Set(['T']) };
    const get = sig('func(key string) (T, bool)', generic);
    assert.equal(formatGoSignature(get), '(string) (?, bool)');
    assert.ok(get.wild);
    assert.ok(goSignaturesMatch(get, sig('func(string) (int, bool)')));
    assert.ok(goSignaturesMatch(get, sig('func(k string) (v *Node, ok bool)', { pkg: 'q' })));
    assert.ok(!goSignaturesMatch(get, sig('func(int) (int, bool)')), 'the key type is known');
    assert.ok(!goSignaturesMatch(get, sig('func(string) int')), 'arity');
    const slice = sig('func(v []T)', generic);
    assert.ok(goSignaturesMatch(slice, sig('func([]int)')));
    assert.ok(!goSignaturesMatch(slice, sig('func(int)')), '[]T is a slice');
    assert.ok(!goSignaturesMatch(sig('func(v ...T)', generic), sig('func([]int)')), 'variadic-ness is known');
    assert.ok(goSignaturesMatch(sig('func() T', generic), sig('func() U', { pkg: 'q', typeParams: new Set(['U']) })), 'generic on both sides');
  });

  it('an unknown signature matches by name only', () => {
    assert.ok(goSignaturesMatch(undefined, sig('func(int)')));
    assert.ok(goSignaturesMatch(sig('func() string'), null));
    assert.equal(goFuncTypeSignature(parser, 'func(int'), undefined, 'a broken func type has no signature');
  });
});

describe('Go signatures: method headers in chunk text', () => {
  it('parses headers spread over lines, with comments, func and interface results, and declarations without a body', () => {
    const src = [
      '// Read reads.',
      'func (f *File) Read(',
      '\tp []byte, // the buffer (may be empty)',
      '\toff int64,',
      ') (n int, err error) {',
      '\treturn 0, nil',
      '}',
      '',
      'func (f *File) Handler() func(w Writer) interface{} { return nil }',
      'func (f *File) Index() map[string]struct{} {',
      '\treturn nil',
      '}',
      'func (f File) Stub(x int) int',
      'func (l *List[T]) Get(i int) T { return l.items[i] }',
    ].join('\n');
    const ms = goMethodsIn(src, parser, { pkg: 'os' });
    assert.deepEqual(ms.map((m) => `${m.receiver}.${m.name} ${formatGoSignature(m.sig)}`), [
      'File.Read ([]uint8, int64) (int, error)',
      'File.Handler () (func(os.Writer) interface{})',
      'File.Index () (map[string]struct{})',
      'File.Stub (int) (int)',
      'List.Get (int) (?)',
    ]);
  });

  it('a header cut off by the end of the chunk has no signature (matched by name)', () => {
    const [m] = goMethodsIn('func (f *File) Read(p []byte,\n\toff int64', parser, { pkg: 'os' });
    assert.equal(m.name, 'Read');
    assert.equal(m.sig, undefined);
  });

  it('reads import aliases and dot imports; package names of import paths', () => {
    const { aliases, dotImport } = goImportsIn([
      'package x',
      '',
      'import (',
      '\t"fmt" // (printing)',
      '\tsio "io"',
      '\t. "strings"',
      '\t_ "embed"',
      '\tr2 "math/rand/v2"',
      ')',
      '',
      'import yml "gopkg.in/yaml.v3"',
    ].join('\n'));
    assert.deepEqual([...aliases], [['sio', 'io'], ['r2', 'rand'], ['yml', 'yaml']]);
    assert.equal(dotImport, true);
    assert.equal(goImportsIn('package x\n\nimport "io"\n').dotImport, false);
    assert.equal(goPackageNameOfPath('github.com/mattn/go-sqlite3'), 'sqlite3');
  });

  it('interface methods carry signatures; a generic interface\'s type parameters are wild', () => {
    const [getter, plain] = goTypesIn(parser, [
      'type Getter[K comparable, V any] interface {',
      '\tGet(key K) (value V, ok bool)',
      '\tLen() int',
      '}',
      'type Plain interface{ Write(p []byte) (n int, err error) }',
    ].join('\n'), { pkg: 'p' });
    assert.deepEqual(getter.signatures?.map(formatGoSignature), ['(?) (?, bool)', '() (int)']);
    assert.deepEqual(plain.signatures?.map(formatGoSignature), ['([]uint8) (int, error)']);
  });
});


describe('Go signatures: the join', () => {
  it('a method with the right name and the wrong signature does not implement; promoted and build-tagged methods keep theirs', async () => {
    const rows = implicitConformances(await facts({
      'io/io.go': [
        'package io',
        '',
        'type Reader interface{ Read(p []byte) (n int, err error) }',
        '',
        'type WriterTo interface{ WriteTo(w Writer) (n int64, err error) }',
        '',
        'type Writer interface{ Write(p []byte) (n int, err error) }',
        '',
      ].join('\n'),
      'x/x.go': [
        'package x',
        '',
        'import (',
        '\t"io"',
        ')',
        '',
        'type Text struct{}',
        '',
        'func (Text) Read() string { return "" }',
        '',
        'type Bytes struct{}',
        '',
        'func (*Bytes) Read(b []uint8) (int, error) { return 0, nil }',
        '',
        'func (*Bytes) WriteTo(w io.Writer) (int64, error) { return 0, nil }',
        '',
        'type Wrapper struct{ *Bytes }',
        '',
        'type Writer struct{}',
        '',
        '// WriteTo takes x.Writer, not io.Writer.',
        'func (Text) WriteTo(w Writer) (int64, error) { return 0, nil }',
        '',
      ].join('\n'),
      'y/y_linux.go': 'package y\n\ntype File struct{}\n\nfunc (File) Read(p []byte) (int, error) { return 0, nil }\n',
      'y/y_other.go': 'package y\n\nfunc (File) Read() ([]byte, error) { return nil, nil }\n',
    }));
    assert.deepEqual(pairs(rows), [
      'Bytes Reader implicit-pointer',
      'Bytes WriterTo implicit-pointer',
      'File Reader implicit',
      'Wrapper Reader implicit-embedded',
      'Wrapper WriterTo implicit-embedded',
    ]);
  });

  it('type aliases are their targets in signatures (os.FileMode = fs.FileMode)', async () => {
    const rows = implicitConformances(await facts({
      'io/fs/fs.go': [
        'package fs',
        '',
        'type FileMode uint32',
        '',
        'type FileInfo interface {',
        '\tName() string',
        '\tMode() FileMode',
        '}',
        '',
        'type Walker interface{ Walk(fn func(mode FileMode) error, modes ...FileMode) }',
        '',
      ].join('\n'),
      'os/types.go': [
        'package os',
        '',
        'import "io/fs"',
        '',
        'type FileMode = fs.FileMode',
        '',
        'type (',
        '\tMode = FileMode',
        '\tfileStat struct{ name string }',
        ')',
        '',
        'func (s *fileStat) Name() string { return s.name }',
        '',
        'func (s *fileStat) Mode() FileMode { return 0 }',
        '',
        'type walker struct{}',
        '',
        'func (walker) Walk(fn func(Mode) error, modes ...Mode) {}',
        '',
        'type other struct{}',
        '',
        'func (other) Name() string { return "" }',
        '',
        'func (other) Mode() uint32 { return 0 }',
        '',
      ].join('\n'),
    }));
    assert.deepEqual(pairs(rows), ['fileStat FileInfo implicit-pointer', 'walker Walker implicit']);
  });

  it('interfaces implement interfaces only with matching signatures; error\'s Error() string counts', async () => {
    const rows = implicitConformances(await facts({
      'a/a.go': [
        'package a',
        '',
        'type Named interface{ Name() string }',
        '',
        'type Labeled interface {',
        '\tName() string',
        '\tLabel() string',
        '}',
        '',
        'type Counted interface {',
        '\tName() int',
        '\tLabel() string',
        '}',
        '',
        'type Failure interface {',
        '\terror',
        '\tCode() int',
        '}',
        '',
        'type E struct{}',
        '',
        'func (E) Error() string { return "" }',
        '',
        'func (E) Code() int { return 0 }',
        '',
        'type Bad struct{}',
        '',
        'func (Bad) Error() error { return nil }',
        '',
        'func (Bad) Code() int { return 0 }',
        '',
      ].join('\n'),
    }));
    assert.deepEqual(pairs(rows), ['E Failure implicit', 'Labeled Named implicit-interface']);
  });
});
