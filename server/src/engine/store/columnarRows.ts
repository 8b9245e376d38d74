/**
 * Rows to and from Arrow, a column at a time.
 *
 * Writing: rows → an Arrow table, a column at a time (issue 21: indexing throughput). LanceDB's `add` turns an array of row
 * objects into Arrow through apache-arrow's builders, one value at a time (on a cold index about 0.2 ms per chunk row,
 * 3–4% of the whole run); this lays each column out directly: a string column is its UTF-8 bytes written once into
 * one buffer with an offsets array, a list of strings is the same one level down, numbers are typed arrays. The
 * values are exactly what the builders write (UTF-8 of the JavaScript string, lone surrogates as U+FFFD) and
 * `table.add` takes the table as it is (its schema is the table's).
 *
 * Only the types the store's tables use: Utf8, List<Utf8>, Int32, Float64, FixedSizeList<Float32> (a vector, given as
 * a Float32Array or an array of numbers), all without nulls — a row that lacks a
 * value of its schema, or holds one of another type, is refused by name (a programming error, never a user's).
 */
import { DataType, Field, makeData, RecordBatch, Schema, Struct, Table, type Data, type FixedSizeList, type Float32, type List, type Utf8, type Vector } from 'apache-arrow';

export type Row = Record<string, unknown>;

function refuse(field: Field, row: number, value: unknown, want: string): never {
  throw new TypeError(`columnar rows: column ${field.name} of row ${row} is ${value === null ? 'null' : typeof value}, not ${want}`);
}

/** One Utf8 column of these strings. */
function utf8Data(type: Utf8, values: readonly string[]): Data<Utf8> {
  const offsets = new Int32Array(values.length + 1);
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    total += Buffer.byteLength(values[i]!, 'utf8');
    if (total > 0x7fffffff) throw new RangeError('columnar rows: a string column over 2 GiB (write fewer rows at a time)');
    offsets[i + 1] = total;
  }
  const bytes = Buffer.allocUnsafe(total);
  let at = 0;
  for (const v of values) at += bytes.write(v, at, 'utf8');
  return makeData({ type, length: values.length, nullCount: 0, valueOffsets: offsets, data: new Uint8Array(bytes.buffer, bytes.byteOffset, total) });
}

function column(field: Field, rows: readonly Row[]): Data {
  const n = rows.length;
  const type = field.type as DataType;
  if (DataType.isUtf8(type)) {
    const values = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const v = rows[i]![field.name];
      values[i] = typeof v === 'string' ? v : refuse(field, i, v, 'a string');
    }
    return utf8Data(type, values);
  }
  if (DataType.isInt(type) && type.bitWidth === 32 && type.isSigned) {
    const values = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const v = rows[i]![field.name];
      values[i] = typeof v === 'number' ? v : refuse(field, i, v, 'a number');
    }
    return makeData({ type, length: n, nullCount: 0, data: values });
  }
  if (DataType.isFloat(type) && type.precision === 2) {
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = rows[i]![field.name];
      values[i] = typeof v === 'number' ? v : refuse(field, i, v, 'a number');
    }
    return makeData({ type, length: n, nullCount: 0, data: values });
  }
  if (DataType.isList(type) && DataType.isUtf8((type as List).children[0]!.type)) {
    const list = type as List<Utf8>;
    const offsets = new Int32Array(n + 1);
    const flat: string[] = [];
    for (let i = 0; i < n; i++) {
      const v = rows[i]![field.name];
      if (!Array.isArray(v)) refuse(field, i, v, 'an array of strings');
      for (const s of v) flat.push(typeof s === 'string' ? s : refuse(field, i, s, 'a string in a list'));
      offsets[i + 1] = flat.length;
    }
    return makeData({ type: list, length: n, nullCount: 0, valueOffsets: offsets, child: utf8Data(list.children[0]!.type, flat) });
  }
  if (DataType.isFixedSizeList(type) && DataType.isFloat((type as FixedSizeList).children[0]!.type) && ((type as FixedSizeList).children[0]!.type as Float32).precision === 1) {
    const vec = type as FixedSizeList<Float32>;
    const width = vec.listSize;
    const values = new Float32Array(n * width);
    for (let i = 0; i < n; i++) {
      const v = rows[i]![field.name];
      if (!(v instanceof Float32Array || Array.isArray(v)) || v.length !== width) refuse(field, i, v, `${width} numbers`);
      values.set(v as ArrayLike<number>, i * width);
    }
    const child = makeData({ type: vec.children[0]!.type, length: n * width, nullCount: 0, data: values });
    return makeData({ type: vec, length: n, nullCount: 0, child });
  }
  throw new TypeError(`columnar rows: column ${field.name} has type ${String(type)}, which this module does not lay out`);
}

/** The rows as one Arrow record batch of `schema` (every field of the schema read from every row). */
export function columnarTable(schema: Schema, rows: readonly Row[]): Table {
  const children = schema.fields.map((f) => column(f, rows));
  const struct = makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new Table([new RecordBatch(schema, struct)]);
}

// ---------------------------------------------------------------------------------------------
// Reading

/**
 * How a row's value is read from a column. Arrow's `get`, but for the string columns without nulls: a string is read
 * straight from its offsets with Node's UTF-8 decoder, and a list of strings — a chunk's symbols, references,
 * conformances — as a string[] (Arrow builds a vector per list value: 15 µs against 1 µs), which the store's row
 * functions take as they take Arrow's values (`String(v)`, `list(v)`).
 */
export function reader(values: Vector): (row: number) => unknown {
  const data = values.data[0];
  if (values.data.length !== 1 || !data || data.nullCount) return (row) => values.get(row);
  if (DataType.isUtf8(data.type)) {
    const text = strings(data.values as Uint8Array, data.valueOffsets as Int32Array, data.offset);
    return text;
  }
  const child = data.children[0];
  if (DataType.isList(data.type) && child && DataType.isUtf8(child.type) && !child.nullCount) {
    const offsets = data.valueOffsets as Int32Array;
    const base = data.offset;
    const text = strings(child.values as Uint8Array, child.valueOffsets as Int32Array, child.offset);
    return (row) => {
      const out: string[] = [];
      for (let k = offsets[base + row]!; k < offsets[base + row + 1]!; k++) out.push(text(k));
      return out;
    };
  }
  return (row) => values.get(row);
}

/** The i-th string of a UTF-8 column (values and offsets as Arrow lays them out). */
function strings(bytes: Uint8Array, offsets: Int32Array, base: number): (i: number) => string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return (i) => buf.toString('utf8', offsets[base + i]!, offsets[base + i + 1]!);
}

/**
 * The rows of a query's record batches as plain objects, through the column readers above (LanceDB's `toArray()`
 * gives Arrow row proxies: every field read goes through the proxy and every list value becomes an Arrow vector).
 * Values are what the store's row functions take: strings, numbers, bigints, and string[] for lists of strings.
 */
export async function plainRows(batches: AsyncIterable<RecordBatchLike>): Promise<Row[]> {
  const out: Row[] = [];
  for await (const rb of batches) for (const r of batchRows(rb)) out.push(r);
  return out;
}

/** One record batch's rows as plain objects (see `plainRows`). */
export function batchRows(rb: RecordBatchLike): Row[] {
  const columns = rb.schema.fields.map((f, j) => [f.name, reader(rb.getChildAt(j)!)] as const);
  const out = new Array<Row>(rb.numRows);
  for (let i = 0; i < rb.numRows; i++) {
    const r: Row = {};
    for (const [name, valueAt] of columns) r[name] = valueAt(i);
    out[i] = r;
  }
  return out;
}

/** What `batchRows` reads of a record batch (LanceDB's and apache-arrow's RecordBatch both fit). */
export interface RecordBatchLike {
  numRows: number;
  schema: { fields: Array<{ name: string }> };
  getChildAt(index: number): Vector | null;
}
