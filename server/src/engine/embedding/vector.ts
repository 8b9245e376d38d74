/** Small vector helpers shared by the providers. */

/** L2-normalises in place and returns the array (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i]! *= inv;
  }
  return v;
}

export function toNormalizedFloat32(v: ArrayLike<number>): Float32Array {
  return normalize(Float32Array.from(v as ArrayLike<number>));
}

export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Cosine similarity (for normalised vectors equal to the dot product). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const d = Math.sqrt(dot(a, a) * dot(b, b));
  return d === 0 ? 0 : dot(a, b) / d;
}

/** Indices of `items` packed greedily into consecutive batches of at most `maxItems` and `maxCost` total cost. */
export function packBatches<T>(items: readonly T[], cost: (t: T) => number, maxItems: number, maxCost: number): number[][] {
  const out: number[][] = [];
  let cur: number[] = [];
  let curCost = 0;
  for (let i = 0; i < items.length; i++) {
    const c = cost(items[i]!);
    if (cur.length > 0 && (cur.length >= maxItems || curCost + c > maxCost)) {
      out.push(cur);
      cur = [];
      curCost = 0;
    }
    cur.push(i);
    curCost += c;
  }
  if (cur.length) out.push(cur);
  return out;
}
