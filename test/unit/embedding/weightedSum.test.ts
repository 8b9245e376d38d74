import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundledModelDir } from '../../../server/src/engine/embedding/registry';
import { ModelTable } from '../../../server/src/engine/embedding/static/table';
import { REPO_ROOT } from '../../support/workspace';

/** The kernel's arithmetic written element by element (table.ts's header). */
function reference(file: Int8Array, dims: number, rows: number[], weights: number[], scales: Float32Array): Float32Array {
  const v = new Float32Array(dims);
  rows.forEach((r, k) => {
    const w = Math.fround(weights[k]! * scales[r]!);
    for (let j = 0; j < dims; j++) v[j]! += Math.fround(w * file[r * dims + j]!);
  });
  return v;
}

describe('the static model\'s weighted row sum (WebAssembly SIMD kernel over the kept rows)', () => {
  const dir = bundledModelDir('quarry-code')!;
  const meta = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
  const path = join(dir, meta.files.table.path);
  const bytes = readFileSync(path);
  const file = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  const s = readFileSync(join(dir, meta.files.scales.path));
  const scales = new Float32Array(s.buffer.slice(s.byteOffset, s.byteOffset + s.length));
  const dims: number = meta.dims;

  it('sums rows that evict one another from the row cache as if each were read alone', () => {
    const table = new ModelTable(path, meta.rows, dims);
    // rows that share a set of the two-way cache (8,192 places: 4,096 sets): the third evicts the first while the
    // first is still to be summed
    const shift = 33 - Math.log2(table.capacity);
    const setOf = (r: number) => Math.imul(r, 0x9e3779b1) >>> shift;
    const same = Array.from({ length: meta.rows }, (_, r) => r).filter((r) => setOf(r) === setOf(7)).slice(0, 6);
    assert.ok(same.length >= 5, 'rows that share a set');
    const rows = [same[0]!, 11, same[1]!, same[2]!, 12, same[3]!, same[4]!, same[0]!];
    const weights = rows.map((_, k) => 1 + Math.log(k + 1));
    assert.deepEqual(table.weightedSum(rows, weights, scales), reference(file, dims, rows, weights, scales));
    assert.ok(table.size <= 2 * 3, 'the set holds two rows at a time');
  });

  it('sums more rows than one kernel call takes, and rows already kept', () => {
    const table = new ModelTable(path, meta.rows, dims);
    const rows = Array.from({ length: 9_000 }, (_, i) => (i * 7919) % meta.rows);
    const weights = rows.map((r) => 1 + (r % 5) / 3);
    const want = reference(file, dims, rows, weights, scales);
    assert.deepEqual(table.weightedSum(rows, weights, scales), want);
    table.forIndexing();
    assert.deepEqual(table.weightedSum(rows, weights, scales), want, 'the indexing cache');
    const reads = table.reads;
    assert.deepEqual(table.weightedSum(rows.slice(0, 100), weights.slice(0, 100), scales), reference(file, dims, rows.slice(0, 100), weights.slice(0, 100), scales));
    assert.equal(table.reads, reads, 'kept rows are not read again');
  });

  it('an empty list of rows is the zero vector', () => {
    const table = new ModelTable(path, meta.rows, dims);
    const v = table.weightedSum([], [], scales);
    assert.equal(v.length, dims);
    assert.ok(v.every((x) => x === 0));
  });

  it('the committed kernel is the assembly of its source (scripts/build-wasm.mjs)', async function () {
    this.timeout(30_000);
    const script = await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'build-wasm.mjs')).href);
    for (const k of script.KERNELS) {
      assert.equal(readFileSync(join(REPO_ROOT, k.ts), 'utf8'), await script.kernelModule(k), `${k.ts}: run node scripts/build-wasm.mjs`);
    }
  });
});
