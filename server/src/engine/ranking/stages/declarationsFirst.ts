/**
 * Declarations first (contract) for a bare identifier: the units that declare the name — as their own name
 * (`fetch`, `Store.fetch`, `fetch_all` for `fetchAll`) or as a member held inside them (a small class kept whole,
 * `HashWithIndifferentAccess` holding `fetch`) — come before the units that only use it, whatever their lexical
 * scores: a three-line method that calls `fetch` twice out-scores a 90-line class that defines it on BM25's length
 * normalisation, but the user who types a name wants where it is declared (issue 18). Within each group score
 * decides. When nothing declares the name (a typo, a partial name, a name declared outside the workspace) the order
 * is left as it is.
 */
import type { Candidate, Stage } from '../candidate';
import { declaresName, TYPE_DECLARATION_KINDS } from '../../types';
import { CALLABLE_KINDS } from '../../chunking/common';

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * One type declared in several places — a C# `partial class`, a Ruby class reopened in other files — is listed from its
 * primary declaration: the one with a doc comment or base types, then the longest (the 2,400-line `partial class
 * Server : IDisposable`, not the three 4-line `partial class Server` files beside it that BM25's length normalisation
 * put first). So is a function, method or constructor declared in several files under one name: a build variant or a stand-in
 * (go-sqlite3's one-line `SQLiteConn.RegisterAggregator` in `static_mock.go`, for builds without cgo, before the
 * documented 100-line one in `sqlite3.go`). The declarations trade their scores in that order; nothing else moves.
 */
function primaryFirst(declaring: Candidate[]): void {
  const sets = new Map<string, Candidate[]>();
  for (const c of declaring) {
    const chunk = c.chunk!;
    if (!(TYPE_DECLARATION_KINDS.has(chunk.kind) || CALLABLE_KINDS.has(chunk.kind)) || chunk.kind === 'extension' || !chunk.symbol) continue;
    const key = `${chunk.kind}\0${chunk.symbol}`;
    const list = sets.get(key);
    if (list) list.push(c);
    else sets.set(key, [c]);
  }
  for (const set of sets.values()) {
    if (set.length < 2 || new Set(set.map((c) => c.path)).size < 2) continue;
    const weight = (c: Candidate) => {
      const chunk = c.chunk!;
      return (chunk.doc || chunk.conformances.length ? 1e9 : 0) + (chunk.endLine - chunk.startLine);
    };
    const scores = set.map((c) => c.score).sort((a, b) => b - a);
    // tied scores (the same words in files of the same size) are parted, so that the order holds
    for (let i = scores.length - 2; i >= 0; i--) if (scores[i]! <= scores[i + 1]!) scores[i] = scores[i + 1]! + Math.max(Math.abs(scores[i + 1]!) * 1e-6, 1e-9);
    const ordered = [...set].sort((a, b) => weight(b) - weight(a) || b.score - a.score || (a.id < b.id ? -1 : 1));
    ordered.forEach((c, i) => {
      if (c.score === scores[i]) return;
      c.explanation.push(`declarations first: ${i === 0 ? 'the primary declaration' : 'another declaration'} of ${c.chunk!.kind} ${c.chunk!.symbol} (${ordered.length} in all; the one with its doc or base types, then the longest, first): score ${round(c.score)} → ${round(scores[i]!)}`);
      c.score = scores[i]!;
    });
  }
}

export const declarationsFirstStage: Stage = {
  name: 'declarations-first',
  apply(ctx, candidates) {
    if (ctx.query.form !== 'identifier') return candidates;
    const declaring = candidates.filter((c) => c.chunk && declaresName(c.chunk, ctx.query.text));
    if (!declaring.length) return candidates;
    primaryFirst(declaring);
    if (declaring.length === candidates.length) return candidates;
    const first = new Set(declaring);
    for (const c of candidates) {
      if (first.has(c)) {
        c.explanation.push(`declarations first: declares '${ctx.query.text}' → first group`);
      } else {
        c.group = (c.group ?? 0) + 1;
        c.explanation.push(`declarations first: does not declare '${ctx.query.text}' → after its declarations`);
      }
    }
    return candidates;
  },
};
