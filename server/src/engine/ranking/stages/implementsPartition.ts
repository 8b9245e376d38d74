/**
 * Seed 000's contract for "what implements X" as a partition, so that no score (learned or rule) can undo it:
 *  1. the implementations — type declarations, extensions and impl blocks that conform to X (declared in their
 *     header, or proven by the conformance index: Go method sets) — come first, in score order, the direct ones
 *     before those that conform through a sub-interface or a superclass;
 *  2. X's own definition is kept in the top 3 of that first group, never above its best implementation (it is
 *     context, not an answer: "implementers first, protocol in the top 3");
 *  3. everything else (the implementations' members, usage sites, ...) follows in score order.
 * With no implementation of X in the candidates, nothing changes (the query falls back to text ranking).
 */
import type { Candidate, Stage } from '../candidate';
import { TYPE_DECLARATION_KINDS } from '../../types';

export const PROTOCOL_KINDS: ReadonlySet<string> = new Set(['protocol', 'interface', 'trait']);

export const lastSegment = (name: string): string => name.split(/\.|::/).pop() ?? name;

/**
 * A declaration that conforms to `name` (lower-case last segment): an answer to "what implements name". Interfaces,
 * protocols and traits that extend it (Go's `SizedReader` embedding `Reader`) are refinements, not implementations:
 * they rank with the other results.
 */
export function isImplementation(c: Candidate, name: string): boolean {
  const chunk = c.chunk;
  if (!chunk || !TYPE_DECLARATION_KINDS.has(chunk.kind) || PROTOCOL_KINDS.has(chunk.kind)) return false;
  if (c.conformsTo !== undefined && lastSegment(c.conformsTo).toLowerCase() === name) return true;
  return chunk.conformances.some((x) => lastSegment(x.replace(/<.*$/s, '')).toLowerCase() === name);
}

/** X's own declaration (not a conformer of the same name, such as Go's strings.Reader for io.Reader). */
export function isDefinitionOf(c: Candidate, name: string): boolean {
  const chunk = c.chunk;
  return !!chunk && chunk.name.toLowerCase() === name && TYPE_DECLARATION_KINDS.has(chunk.kind) && chunk.kind !== 'extension' && c.conformsTo === undefined && !isImplementation(c, name);
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export const implementsPartitionStage: Stage = {
  name: 'implements-partition',
  apply(ctx, candidates) {
    const t = ctx.query.target;
    if (t?.relation !== 'implementations') return candidates;
    const name = lastSegment(t.name).toLowerCase();
    const impls = candidates.filter((c) => isImplementation(c, name));
    if (!impls.length) return candidates;
    // indirect implementations (through a sub-interface or a superclass) follow the direct ones
    const direct = impls.filter((c) => c.conformsVia === undefined);
    if (direct.length) {
      const floor = Math.min(...direct.map((c) => c.score));
      for (const c of impls) {
        if (c.conformsVia === undefined || c.score < floor) continue;
        c.explanation.push(`implements ${t.name} through ${c.conformsVia}: after the direct implementations (score ${round(c.score)} → ${round(floor * 0.999)})`);
        c.score = floor * 0.999;
      }
    }
    const defs = candidates.filter((c) => isDefinitionOf(c, name));
    // an interface/protocol/trait is what can be implemented (io.Reader over textproto.Reader, a struct)
    const def = defs.find((c) => PROTOCOL_KINDS.has(c.chunk!.kind)) ?? defs[0];
    const first = new Set([...impls, ...(def ? [def] : [])]);
    for (const c of candidates) {
      const g = c.group ?? 0;
      if (first.has(c)) {
        c.explanation.push(c === def ? `definition of ${t.name}: kept with its implementations` : `implements ${t.name}: listed with the implementations, before other results`);
        continue;
      }
      c.group = g + 1;
    }
    if (def) {
      // the definition takes at most the third place of the first group: just above the third implementation
      const group = [...first].sort((a, b) => b.score - a.score);
      const at = group.indexOf(def);
      if (at > 2) {
        const [a, b, c] = group.filter((x) => x !== def).map((x) => x.score);
        const target = b > c ? (b + c) / 2 : a > b ? (a + b) / 2 : c;
        if (b <= c && a <= b) {
          // the first ones tie: lift them just above the definition so that it stays third
          for (const lead of group.filter((x) => x !== def).slice(0, 2)) {
            lead.explanation.push(`stays ahead of the definition of ${t.name} (tied with the third result; score ${round(lead.score)} → ${round(c * 1.0002)})`);
            lead.score = c * 1.0002;
          }
        }
        def.explanation.push(`kept in the top 3 as the definition of ${t.name} (score ${round(def.score)} → ${round(Math.max(target, c * 1.0001))})`);
        def.score = Math.max(target, c * 1.0001);
      } else if (at === 0 && group.length > 1) {
        // implementers first: the definition follows the best implementation (second, or third behind a tie)
        const [a, b] = group.slice(1).map((x) => x.score);
        const target = b !== undefined && a! > b ? (a! + b) / 2 : a! - Math.abs(a!) * 1e-4;
        def.explanation.push(`definition of ${t.name}: after the first implementation (score ${round(def.score)} → ${round(target)})`);
        def.score = target;
      }
    }
    return candidates;
  },
};
