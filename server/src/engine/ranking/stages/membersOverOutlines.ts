/**
 * Members over outlines (rule stage): a description lands on the member that does the work, not on the outline of
 * its class. A class too large to be one unit is indexed as an outline — its header, doc, fields and its members'
 * signatures, bodies elided — plus a unit per member; the outline spans the whole class and lists every member's
 * name, so it collects the words of all of them and the learned scorer often puts it first ("find the command whose
 * name is closest to a mistyped name" → symfony's `Application` outline before `Application.findAlternatives`;
 * "injectable clock…" → `ResilientCaller` before its members). Shown, such a result opens on the class's first
 * line and answers nothing: on the frozen evaluation's tune half, the first result showed the answering lines for
 * 0.39 of the behaviour questions when an outline is credited only with the lines it shows (bench/eval/run.ts).
 *
 * So an outline trades places with its best-scored member among the candidates: the member takes the outline's
 * score and place, the outline the member's. Nothing else moves, so the files in the list and their order stay as
 * they were (an outline and its members share a file). An outline is any code unit whose lines hold other units of
 * the list (a split class, struct, impl or trait; a large function split into its header and inner functions).
 * Identifier queries, the forms that name a declaration or a relation ("what implements X", "who calls X") and
 * documents keep their order.
 */
import type { Candidate, Stage } from '../candidate';
import { isDocumentChunk } from '../intents/context';
import { asksAboutConstruction } from './constructors';

const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * A member this short — a signature, one statement, a closing brace: `__aiter__` returning self, a getter — shows
 * nothing of its class's work and does not take the outline's place (tornado's `WaitIterator.__aiter__`, with no
 * keyword of "how is a generator-based async function driven step by step", took `WaitIterator`'s second place).
 */
const ONE_STATEMENT_LINES = 3;

/** Code units of the list, by path (an outline and its members share a file). */
function codeUnitsByPath(candidates: readonly Candidate[]): Map<string, Candidate[]> {
  const byPath = new Map<string, Candidate[]>();
  for (const c of candidates) {
    if (!c.chunk || isDocumentChunk(c.chunk) || c.chunk.kind === 'reasoning') continue;
    const list = byPath.get(c.path);
    if (list) list.push(c);
    else byPath.set(c.path, [c]);
  }
  return byPath;
}

/** Whether `inner`'s lines lie within `outer`'s and are not the same lines. */
function nestedIn(inner: Candidate, outer: Candidate): boolean {
  const a = inner.chunk!;
  const b = outer.chunk!;
  return b.startLine <= a.startLine && a.endLine <= b.endLine && (a.startLine !== b.startLine || a.endLine !== b.endLine);
}

export const membersOverOutlinesStage: Stage = {
  name: 'members-over-outlines',
  apply(ctx, candidates) {
    if (ctx.query.form !== 'natural' || ctx.query.target) return candidates;
    const byPath = codeUnitsByPath(candidates);
    const traded = new Set<Candidate>();
    // a constructor does not take its class's place for a description of what the class does (stages/constructors.ts),
    // nor does a member of one statement
    const skipConstructors = !asksAboutConstruction(ctx.query.text);
    const outlines = [...byPath.values()].flatMap((units) => units.filter((c) => units.some((m) => m !== c && nestedIn(m, c))));
    outlines.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    for (const outline of outlines) {
      if (traded.has(outline)) continue;
      let best: Candidate | undefined;
      for (const m of byPath.get(outline.path)!) {
        if (m === outline || traded.has(m) || !nestedIn(m, outline)) continue;
        if (skipConstructors && m.chunk!.kind === 'constructor') continue;
        if (m.chunk!.endLine - m.chunk!.startLine + 1 <= ONE_STATEMENT_LINES) continue;
        if (!best || m.score > best.score || (m.score === best.score && m.id < best.id)) best = m;
      }
      if (!best || best.score >= outline.score) continue;
      const [high, low] = [outline.score, best.score];
      best.score = high;
      outline.score = low;
      traded.add(best).add(outline);
      const name = outline.chunk!.symbol || outline.chunk!.kind;
      best.explanation.push(`members over outlines: takes the place of ${name}, the outline that holds it (signatures only): score ${round(low)} → ${round(high)}`);
      outline.explanation.push(`members over outlines: gives its place to its member ${best.chunk!.symbol || best.chunk!.kind}: score ${round(high)} → ${round(low)}`);
    }
    return candidates;
  },
};
