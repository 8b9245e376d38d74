/**
 * Callers first (contract) for "who calls X" / "usages of X": the units that call or refer to X — its recorded
 * references, or the name whole in their text — without declaring it come first, whatever their scores; X's own
 * definition stays in the top 3 of that group (after the second caller when it outscored them: the answer's context,
 * as seed 000 keeps the protocol in the top 3 of "what implements X"); everything else follows. Without this, X's
 * definition (whose name matches exactly) and the outline of the class that declares it (whose member list names it)
 * took the first places of commander's "who calls _exit", above the three methods that call it. When nothing refers to
 * X, the order is left as it is (the search then warns that no caller is among the results).
 */
import type { Candidate, Stage } from '../candidate';
import { declaresName, lastNameSegment, type Chunk } from '../../types';
import { holdsIdentifier } from './relevanceCutoff';
import { codeOnly } from '../../tokenize/comments';

/** A unit's code without its comments, remembered per chunk (the rule stages, this contract and the reasons ask). */
const codes = new WeakMap<Chunk, string>();
function codeOf(chunk: Chunk): string {
  let code = codes.get(chunk);
  if (code === undefined) codes.set(chunk, (code = codeOnly(chunk.content, chunk.language)));
  return code;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Whether a unit calls or refers to `name` without declaring it (the predicate of the search's callers warning too):
 * among its recorded references, or the name whole in its code — not in a comment or docstring that mentions it
 * (requests' `Response.is_redirect`, whose docstring names `Session.resolve_redirects`, calls nothing).
 */
export function callsWithoutDeclaring(c: Candidate, name: string): boolean {
  const chunk = c.chunk;
  if (!chunk || declaresName(chunk, name)) return false;
  const lower = name.toLowerCase();
  // the outline of a class that declares it lists its header among its members': a declaration, not a call
  if (chunk.symbols.some((s) => lastNameSegment(s).toLowerCase() === lower)) return false;
  return chunk.references.some((r) => r.toLowerCase() === lower) || holdsIdentifier(codeOf(chunk), name);
}

/** Languages whose calls need no parentheses (`render partial`, `puts x`): there a mention is as good as a call. */
const PARENLESS_CALLS = new Set(['ruby']);

/** Whether a unit's code calls `name` (`name(`, `.name(`, `name<T>(`, `name!(`), as opposed to importing, exporting or passing it on. */
export function callsByName(c: Candidate, name: string): boolean {
  const chunk = c.chunk;
  if (!chunk) return false;
  if (PARENLESS_CALLS.has(chunk.language)) return true;
  const escaped = name.replace(/[$]/g, '\\$&');
  return new RegExp(`(^|[^\\w$])${escaped}\\s*(<[^<>()]*>\\s*)?!?\\s*\\(`, 'i').test(codeOf(chunk));
}

/** A unit that only refers to X (an import, an export, a value handed on) ranks after the units that call it. */
const REFERS_ONLY_FACTOR = 0.5;

export const callersFirstStage: Stage = {
  name: 'callers-first',
  apply(ctx, candidates) {
    const t = ctx.query.target;
    if (t?.relation !== 'callers') return candidates;
    const name = lastNameSegment(t.name);
    const callers = candidates.filter((c) => callsWithoutDeclaring(c, name));
    if (!callers.length) return candidates;
    const first = new Set(callers);
    // the units that call X before those that only name it (`import mergeConfig …`, `axios.mergeConfig = mergeConfig`)
    const calling = new Set(callers.filter((c) => callsByName(c, name)));
    if (calling.size) {
      for (const c of callers) {
        if (calling.has(c)) continue;
        c.score *= REFERS_ONLY_FACTOR;
        c.explanation.push(`×${REFERS_ONLY_FACTOR} refers to ${name} without calling it (an import, an export, a value passed on)`);
      }
    }
    const ranked = [...callers].sort((a, b) => b.score - a.score);
    // the definition: a unit named X itself (not the outline of the class that declares X among its members)
    const def = candidates
      .filter((c) => !first.has(c) && c.chunk && lastNameSegment(c.chunk.symbol || c.chunk.name).toLowerCase() === name.toLowerCase())
      .sort((a, b) => b.score - a.score)[0];
    for (const c of candidates) {
      if (first.has(c)) c.explanation.push(`calls or refers to ${name}: listed with the callers, before other results`);
      else if (c !== def) {
        c.group = (c.group ?? 0) + 1;
        c.explanation.push(`does not call ${name}: after its callers`);
      }
    }
    if (def) {
      const second = ranked[Math.min(1, ranked.length - 1)]!;
      const third = ranked[2];
      // at most the third place of the first group (second when there is one caller), never below the callers' floor
      const target = third ? Math.max(third.score, second.score * 0.9999) : second.score * 0.9999;
      if (def.score > target) {
        def.explanation.push(`definition of ${name}: kept after the first callers (score ${round(def.score)} → ${round(target)})`);
        def.score = target;
      } else if (ranked.length > 2 && def.score < third!.score) {
        def.explanation.push(`definition of ${name}: kept in the top 3 (score ${round(def.score)} → ${round(third!.score * 1.0001)})`);
        def.score = third!.score * 1.0001;
      } else def.explanation.push(`definition of ${name}: kept with its callers`);
    }
    return candidates;
  },
};
