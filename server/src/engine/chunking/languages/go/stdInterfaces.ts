/**
 * Well-known interfaces of Go's standard library, for "what implements io.Reader / http.Handler / sort.Interface" in a
 * project that does not hold the standard library (almost every one): Go types satisfy them implicitly, so without
 * their declarations the join had nothing to match. They are written here as Go source and read by the same chunker
 * and parser as the project's files (`stdInterfaceFacts`), so their signatures are canonical exactly as the project's
 * methods are; `implicitConformances` joins them like declared interfaces, writes rows only for the project's types,
 * and leaves out any of them that the index declares itself (the Go tree, a vendored copy).
 *
 * Which: the interfaces a Go developer asks about by name — io, fmt, sort, container/heap, encoding (text, binary,
 * JSON, XML), database/sql and its driver, net, net/http, context, sync, hash, flag, io/fs, image, log/slog, crypto.
 */
import type { GoFileFacts, GoChunkRow } from './types';

/** Folder (import path) → Go source declaring its interfaces (the package clause names the package). */
export const STD_INTERFACE_SOURCES: ReadonlyArray<readonly [string, string]> = [
  [
    'io',
    `package io

type Reader interface{ Read(p []byte) (n int, err error) }
type Writer interface{ Write(p []byte) (n int, err error) }
type Closer interface{ Close() error }
type Seeker interface{ Seek(offset int64, whence int) (int64, error) }
type ReadWriter interface { Reader; Writer }
type ReadCloser interface { Reader; Closer }
type WriteCloser interface { Writer; Closer }
type ReadWriteCloser interface { Reader; Writer; Closer }
type ReadSeeker interface { Reader; Seeker }
type ReadSeekCloser interface { Reader; Seeker; Closer }
type WriteSeeker interface { Writer; Seeker }
type ReadWriteSeeker interface { Reader; Writer; Seeker }
type ReaderFrom interface{ ReadFrom(r Reader) (n int64, err error) }
type WriterTo interface{ WriteTo(w Writer) (n int64, err error) }
type ReaderAt interface{ ReadAt(p []byte, off int64) (n int, err error) }
type WriterAt interface{ WriteAt(p []byte, off int64) (n int, err error) }
type ByteReader interface{ ReadByte() (byte, error) }
type ByteScanner interface { ByteReader; UnreadByte() error }
type ByteWriter interface{ WriteByte(c byte) error }
type RuneReader interface{ ReadRune() (r rune, size int, err error) }
type RuneScanner interface { RuneReader; UnreadRune() error }
type StringWriter interface{ WriteString(s string) (n int, err error) }
`,
  ],
  [
    'fmt',
    `package fmt

type Stringer interface{ String() string }
type GoStringer interface{ GoString() string }
type State interface {
	Write(b []byte) (n int, err error)
	Width() (wid int, ok bool)
	Precision() (prec int, ok bool)
	Flag(c int) bool
}
type Formatter interface{ Format(f State, verb rune) }
`,
  ],
  ['sort', 'package sort\n\ntype Interface interface {\n\tLen() int\n\tLess(i, j int) bool\n\tSwap(i, j int)\n}\n'],
  ['container/heap', 'package heap\n\nimport "sort"\n\ntype Interface interface {\n\tsort.Interface\n\tPush(x any)\n\tPop() any\n}\n'],
  [
    'encoding',
    `package encoding

type TextMarshaler interface{ MarshalText() (text []byte, err error) }
type TextUnmarshaler interface{ UnmarshalText(text []byte) error }
type BinaryMarshaler interface{ MarshalBinary() (data []byte, err error) }
type BinaryUnmarshaler interface{ UnmarshalBinary(data []byte) error }
`,
  ],
  ['encoding/json', 'package json\n\ntype Marshaler interface{ MarshalJSON() ([]byte, error) }\ntype Unmarshaler interface{ UnmarshalJSON([]byte) error }\n'],
  [
    'encoding/xml',
    'package xml\n\ntype Marshaler interface{ MarshalXML(e *Encoder, start StartElement) error }\ntype Unmarshaler interface{ UnmarshalXML(d *Decoder, start StartElement) error }\n',
  ],
  ['database/sql', 'package sql\n\ntype Scanner interface{ Scan(src any) error }\n'],
  [
    'database/sql/driver',
    `package driver

import "context"

type Driver interface{ Open(name string) (Conn, error) }
type DriverContext interface{ OpenConnector(name string) (Connector, error) }
type Connector interface {
	Connect(context.Context) (Conn, error)
	Driver() Driver
}
type Conn interface {
	Prepare(query string) (Stmt, error)
	Close() error
	Begin() (Tx, error)
}
type ConnBeginTx interface{ BeginTx(ctx context.Context, opts TxOptions) (Tx, error) }
type ConnPrepareContext interface{ PrepareContext(ctx context.Context, query string) (Stmt, error) }
type ExecerContext interface{ ExecContext(ctx context.Context, query string, args []NamedValue) (Result, error) }
type QueryerContext interface{ QueryContext(ctx context.Context, query string, args []NamedValue) (Rows, error) }
type Pinger interface{ Ping(ctx context.Context) error }
type Stmt interface {
	Close() error
	NumInput() int
	Exec(args []Value) (Result, error)
	Query(args []Value) (Rows, error)
}
type StmtExecContext interface{ ExecContext(ctx context.Context, args []NamedValue) (Result, error) }
type StmtQueryContext interface{ QueryContext(ctx context.Context, args []NamedValue) (Rows, error) }
type Rows interface {
	Columns() []string
	Close() error
	Next(dest []Value) error
}
type Result interface {
	LastInsertId() (int64, error)
	RowsAffected() (int64, error)
}
type Tx interface {
	Commit() error
	Rollback() error
}
type Valuer interface{ Value() (Value, error) }
type ValueConverter interface{ ConvertValue(v any) (Value, error) }
`,
  ],
  [
    'net',
    `package net

import "time"

type Addr interface {
	Network() string
	String() string
}
type Conn interface {
	Read(b []byte) (n int, err error)
	Write(b []byte) (n int, err error)
	Close() error
	LocalAddr() Addr
	RemoteAddr() Addr
	SetDeadline(t time.Time) error
	SetReadDeadline(t time.Time) error
	SetWriteDeadline(t time.Time) error
}
type Listener interface {
	Accept() (Conn, error)
	Close() error
	Addr() Addr
}
type Error interface {
	error
	Timeout() bool
	Temporary() bool
}
`,
  ],
  [
    'net/http',
    `package http

import (
	"bufio"
	"net"
	"net/url"
)

type Handler interface{ ServeHTTP(ResponseWriter, *Request) }
type ResponseWriter interface {
	Header() Header
	Write([]byte) (int, error)
	WriteHeader(statusCode int)
}
type RoundTripper interface{ RoundTrip(*Request) (*Response, error) }
type Flusher interface{ Flush() }
type Hijacker interface{ Hijack() (net.Conn, *bufio.ReadWriter, error) }
type CookieJar interface {
	SetCookies(u *url.URL, cookies []*Cookie)
	Cookies(u *url.URL) []*Cookie
}
type FileSystem interface{ Open(name string) (File, error) }
`,
  ],
  [
    'context',
    `package context

import "time"

type Context interface {
	Deadline() (deadline time.Time, ok bool)
	Done() <-chan struct{}
	Err() error
	Value(key any) any
}
`,
  ],
  ['sync', 'package sync\n\ntype Locker interface {\n\tLock()\n\tUnlock()\n}\n'],
  [
    'hash',
    `package hash

import "io"

type Hash interface {
	io.Writer
	Sum(b []byte) []byte
	Reset()
	Size() int
	BlockSize() int
}
type Hash32 interface {
	Hash
	Sum32() uint32
}
type Hash64 interface {
	Hash
	Sum64() uint64
}
`,
  ],
  ['flag', 'package flag\n\ntype Value interface {\n\tString() string\n\tSet(string) error\n}\ntype Getter interface {\n\tValue\n\tGet() any\n}\n'],
  [
    'io/fs',
    `package fs

import "time"

type FS interface{ Open(name string) (File, error) }
type File interface {
	Stat() (FileInfo, error)
	Read([]byte) (int, error)
	Close() error
}
type FileInfo interface {
	Name() string
	Size() int64
	Mode() FileMode
	ModTime() time.Time
	IsDir() bool
	Sys() any
}
type DirEntry interface {
	Name() string
	IsDir() bool
	Type() FileMode
	Info() (FileInfo, error)
}
type ReadFileFS interface {
	FS
	ReadFile(name string) ([]byte, error)
}
type ReadDirFS interface {
	FS
	ReadDir(name string) ([]DirEntry, error)
}
`,
  ],
  [
    'image',
    `package image

import "image/color"

type Image interface {
	ColorModel() color.Model
	Bounds() Rectangle
	At(x, y int) color.Color
}
`,
  ],
  [
    'log/slog',
    `package slog

import "context"

type Handler interface {
	Enabled(context.Context, Level) bool
	Handle(context.Context, Record) error
	WithAttrs(attrs []Attr) Handler
	WithGroup(name string) Handler
}
type LogValuer interface{ LogValue() Value }
type Leveler interface{ Level() Level }
`,
  ],
  [
    'crypto',
    `package crypto

import "io"

type Signer interface {
	Public() PublicKey
	Sign(rand io.Reader, digest []byte, opts SignerOpts) (signature []byte, err error)
}
type Decrypter interface {
	Public() PublicKey
	Decrypt(rand io.Reader, msg []byte, opts DecrypterOpts) (plaintext []byte, err error)
}
`,
  ],
];

/** Where the standard library's virtual files live in the join (never a path of the index). */
export const STD_ROOT = '(go standard library)';

/**
 * The stored-chunk shape of one virtual file: the package clause and imports as the first chunk, then one chunk per
 * `type` declaration (each starts a line, as written above).
 */
export function stdChunkRows(path: string, source: string): GoChunkRow[] {
  const starts = [...source.matchAll(/^type (\w+) /gm)];
  const rows: GoChunkRow[] = [{ id: '', path, kind: 'code', symbol: '', name: '', startByte: 0, content: source.slice(0, starts[0]?.index ?? source.length) }];
  starts.forEach((m, i) => {
    const end = i + 1 < starts.length ? starts[i + 1]!.index! : source.length;
    rows.push({ id: '', path, kind: 'interface', symbol: m[1]!, name: m[1]!, startByte: m.index!, content: source.slice(m.index!, end) });
  });
  return rows;
}

/**
 * The facts of the well-known interfaces, read by the pass's own fact reader (`readFacts`: the Go parser over chunk
 * rows, as for stored files). Their declarations carry no chunk (`chunkId` ''): the join writes rows for the project's
 * types only.
 */
export async function stdInterfaceFacts(readFacts: (files: Array<{ path: string; chunks: GoChunkRow[] }>) => Promise<GoFileFacts[]>): Promise<GoFileFacts[]> {
  const files = STD_INTERFACE_SOURCES.map(([dir, source]) => {
    const path = `${STD_ROOT}/${dir}/interfaces.go`;
    return { path, chunks: stdChunkRows(path, source) };
  });
  return readFacts(files);
}
