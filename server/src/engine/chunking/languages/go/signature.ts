/**
 * Go method signatures in canonical form, and their comparison (no parser here: `syntax.ts` builds them from trees).
 *
 * What is matched: method names AND signatures. Every method carries its
 * signature, parsed with tree-sitter (interface methods from the type declaration, concrete methods from their
 * header in the chunk text, all headers of a file in one parse): parameter and result types in order, names dropped,
 * `a, b int` counted twice, `...T` (variadic) distinct from `[]T`, `byte` = `uint8`, `rune` = `int32`,
 * `any` = `interface{}`, whitespace and parentheses insignificant, pointer/slice/array/map/chan (with direction)/func
 * structure kept, interface literals compared as sorted method sets. A named type compares by name and package: the
 * qualifier as written (an import alias is mapped to the imported path's last element), or for an unqualified name the
 * package of the file that declares the method or interface; so `Reader` in package io equals `io.Reader` anywhere,
 * while `Reader` in package stream does not; a type alias declared in the index (`type FileMode = fs.FileMode`)
 * stands for its target. A method matches the interface's when both signatures are equal.
 * Where a side is not fully known the match loosens, never disappears: a type parameter (of a generic interface or of
 * a generic receiver) and a type the parser did not understand match any type in that position (arity and
 * variadic-ness still count); an unqualified name in a file with a dot import matches that name in any package; a
 * method whose header did not parse (or was not found whole in the chunk text) matches by name only. When build tags
 * give a method several signatures (one per file), any of them may match.
 */
import type { GoSignature } from './types';

/** Marker: any type (a type parameter, a type not understood). */
export const ANY = '\u0000';
/** Marker before a name: any package (an unqualified name in a file with a dot import). */
export const ANY_PKG = '\u0001';

/** A signature from canonical parameter and result types. */
export function makeGoSignature(params: string[], results: string[]): GoSignature {
  const sig: GoSignature = { params, results, key: `(${params.join(', ')}) (${results.join(', ')})` };
  if (sig.key.includes(ANY) || sig.key.includes(ANY_PKG)) sig.wild = true;
  return sig;
}

/** A signature as Go-like text: `(io.Reader, ...int) (int, error)`; `?` for any type, `?.` for any package. */
export function formatGoSignature(sig: GoSignature | null | undefined): string {
  return sig ? sig.key.replaceAll(ANY, '?').replaceAll(ANY_PKG, '?.') : '(?)';
}

const patterns = new Map<string, RegExp>();
function wildPattern(type: string): RegExp {
  let re = patterns.get(type);
  if (!re) {
    const body = type
      .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      .replaceAll(ANY, '.+')
      .replaceAll(ANY_PKG, String.raw`(?:[\p{L}\p{N}_]+\.)?`);
    patterns.set(type, (re = new RegExp(`^${body}$`, 'u')));
  }
  return re;
}

export const isWild = (type: string) => type.includes(ANY) || type.includes(ANY_PKG);

function typesMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const wa = isWild(a);
  const wb = isWild(b);
  if (!wa && !wb) return false;
  if (a.startsWith('...') !== b.startsWith('...')) return false;
  if (wa && wb) return true; // two partly unknown types (a generic interface and a generic receiver): lenient
  return wa ? wildPattern(a).test(b) : wildPattern(b).test(a);
}

/**
 * Whether a concrete method's signature satisfies an interface method's (symmetric). Unknown (null/undefined) on
 * either side: true (name-only match). Fully known: equal canonical types in order. Partly known: same arity, and
 * each position equal or matching the unknown part.
 */
export function goSignaturesMatch(a: GoSignature | null | undefined, b: GoSignature | null | undefined): boolean {
  if (!a || !b) return true;
  if (!a.wild && !b.wild) return a.key === b.key;
  if (a.params.length !== b.params.length || a.results.length !== b.results.length) return false;
  return a.params.every((t, i) => typesMatch(t, b.params[i])) && a.results.every((t, i) => typesMatch(t, b.results[i]));
}
