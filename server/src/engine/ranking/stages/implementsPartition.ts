/**
 * Seed 000's contract for "what implements X" as a partition, so that no score (learned or rule) can undo it:
 *  1. the implementations — type declarations, extensions and impl blocks that conform to X (declared in their
 *     header, or proven by the conformance index: Go method sets) — come first, in score order, the direct ones
 *     before those that conform through a sub-interface or a superclass;
 *     (for a qualified X, `Faraday::Middleware`, a conformer whose written supertype resolves to a nearer declaration
 *     of the same name conforms through it, or not at all: `resolveQualified`);
 *  2. X's own definition is kept in the top 3 of that first group, after its first two implementations (it is
 *     context, not an answer: "implementers first, protocol in the top 3");
 *  3. everything else (the implementations' members, usage sites, ...) follows in score order.
 * With no implementation of X in the candidates, X's definition and the interfaces that extend it form the first
 * group (with a warning saying that nothing implements X); with no definition either, nothing changes (the query falls
 * back to text ranking).
 */
import { isTestPath } from '../../testPaths';
import type { Candidate, Stage } from '../candidate';
import { TYPE_DECLARATION_KINDS } from '../../types';

export const PROTOCOL_KINDS: ReadonlySet<string> = new Set(['protocol', 'interface', 'trait']);

export const lastSegment = (name: string): string => name.split(/\.|::/).pop() ?? name;

/**
 * A declaration that conforms to `name` (lower-case last segment): an answer to "what implements name". Interfaces,
 * protocols and traits that extend it (Go's `SizedReader` embedding `Reader`) are refinements, not implementations:
 * they rank with the other results.
 */
export function isImplementation(c: Candidate, name: string, go?: GoPackages): boolean {
  const chunk = c.chunk;
  if (!chunk || !TYPE_DECLARATION_KINDS.has(chunk.kind) || PROTOCOL_KINDS.has(chunk.kind)) return false;
  if (go && chunk.language === 'go') {
    // a row's bare name that the declaration writes with its package (a declared row of `struct{ io.Reader }` is
    // `Reader`) is that package's
    const written = (x: string) => (x.includes('.') ? x : chunk.conformances.find((w) => w.endsWith(`.${x}`)) ?? x);
    return [...(c.conformsTo !== undefined ? [written(c.conformsTo)] : []), ...chunk.conformances].some((x) => goNamesTarget(x, c.path, go));
  }
  if (c.conformsTo !== undefined && lastSegment(c.conformsTo).toLowerCase() === name) return true;
  return chunk.conformances.some((x) => lastSegment(x.replace(/<.*$/s, '')).toLowerCase() === name);
}

/** Go's packages are folders: what a Go conformance is compared with. */
export interface GoPackages {
  /** The target's segments, lower-case (`['io', 'reader']`, `['reader']`). */
  target: string[];
  /** The folders (last segment, lower-case) of the index's declarations of the target's name among the candidates. */
  declaredIn: ReadonlySet<string>;
}

const folderOf = (path: string): string => {
  const parts = path.toLowerCase().split('/');
  return parts.length > 1 ? parts[parts.length - 2]! : '';
};

/**
 * Whether a Go type's conformance (an embedded type as written, `io.Reader` or `Reader`, or a conformance-index row:
 * `io.Reader` for a standard interface, `Reader` for an interface of the index) names the target. A name written
 * without a package is the type's own package's (or, for a row, an interface the index declares); one written with
 * it is that package's: `struct{ io.Reader }` implements `io.Reader`, not the project's own `myio.Reader`.
 */
function goNamesTarget(conformance: string, path: string, go: GoPackages): boolean {
  const segs = segmentsOf(conformance);
  const want = go.target;
  if (segs[segs.length - 1] !== want[want.length - 1]) return false;
  const written = segs.length > 1 ? segs[segs.length - 2] : undefined;
  const wanted = want.length > 1 ? want[want.length - 2] : undefined;
  if (wanted !== undefined) return written !== undefined ? written === wanted : folderOf(path) === wanted || go.declaredIn.has(wanted);
  // a bare target: the index's own declaration of the name when it has one, else the one outside (`io.Reader`)
  return written === undefined || go.declaredIn.size === 0 || go.declaredIn.has(written);
}

/** An interface, protocol or trait that extends `name` (lower-case last segment): a refinement, not an implementation. */
export function isRefinement(c: Candidate, name: string): boolean {
  const chunk = c.chunk;
  if (!chunk || !PROTOCOL_KINDS.has(chunk.kind)) return false;
  if (c.conformsTo !== undefined && lastSegment(c.conformsTo).toLowerCase() === name) return true;
  return chunk.conformances.some((x) => lastSegment(x.replace(/<.*$/s, '')).toLowerCase() === name);
}

/** X's own declaration (not a conformer of the same name, such as Go's strings.Reader for io.Reader). */
export function isDefinitionOf(c: Candidate, name: string): boolean {
  const chunk = c.chunk;
  return !!chunk && chunk.name.toLowerCase() === name && TYPE_DECLARATION_KINDS.has(chunk.kind) && chunk.kind !== 'extension' && c.conformsTo === undefined && !isImplementation(c, name);
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** A file of type declarations only (TypeScript's `.d.ts`, Python's `.pyi` stubs): it describes code kept elsewhere. */
export const isDeclarationFile = (path: string): boolean => /\.d\.[cm]?ts$|\.pyi$/i.test(path);

/** A name's segments, lower-case, whatever the language writes between them (`Faraday::Middleware`, `io.Reader`, `A\\B`). */
export const segmentsOf = (name: string): string[] =>
  name
    .replace(/<.*$/s, '')
    .split(/\.|::|\\|\//)
    .filter(Boolean)
    .map((s) => s.toLowerCase());

/** Whether `name` ends with the segments of `suffix` (`faraday.response.middleware` ends with `response.middleware`). */
const endsWithSegments = (name: string[], suffix: string[]): boolean =>
  suffix.length <= name.length && suffix.every((s, i) => name[name.length - suffix.length + i] === s);

/** File stems that name their folder's module, not one of their own (`pkg/__init__.py`, `lib/index.js`, `src/mod.rs`). */
const PACKAGE_FILE = /^(__init__|index|mod|lib|main)$/;

/**
 * The module a file is, as segments (`tornado/web.py` → tornado, web; `pkg/__init__.py` → pkg): where the file is the
 * namespace (Python, JavaScript and TypeScript modules, Rust's files), `web.RequestHandler` names the `RequestHandler`
 * that `tornado/web.py` declares.
 */
function moduleSegments(path: string): string[] {
  const parts = path.toLowerCase().split('/');
  const stem = parts.pop()!.replace(/\.[^.]*$/, '');
  return PACKAGE_FILE.test(stem) ? parts : [...parts, stem];
}

/**
 * Whether a declaration is the one a qualified target names: its symbol ends with the target's segments
 * (`Faraday::Response::Middleware`), or its module and symbol do (`web.RequestHandler` for `tornado/web.py`'s
 * `RequestHandler`).
 */
function declaresQualified(c: Candidate, wanted: string[]): boolean {
  const symbol = segmentsOf(c.chunk!.symbol);
  return endsWithSegments(symbol, wanted) || endsWithSegments([...moduleSegments(c.path), ...symbol], wanted);
}

/**
 * A qualified target ("classes that extend Faraday::Middleware") may share its last name with other declarations: a
 * conformer whose supertype is written `Middleware` inside `Faraday::Response`, where a `Middleware` is declared too,
 * extends `Faraday::Response::Middleware`. The written name is looked up from the conformer's enclosing scope outward
 * (lexical nesting: how Ruby, C#, C++, Java's nested classes and Swift resolve it, and PHP within its namespace) among
 * the candidates' declarations of that name. A conformer that resolves to another declaration conforms through it
 * when that one implements the target (it follows the direct implementations), else it is no implementation of the
 * target. Nothing changes for an unqualified target, or when no nearer declaration is among the candidates.
 */
function resolveQualified(target: string, name: string, candidates: Candidate[], impls: Candidate[]): Candidate[] {
  const wanted = segmentsOf(target);
  if (wanted.length < 2) return impls;
  // declarations of the name by symbol; several of one symbol (modules of their own) are told apart by their file
  const declared = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const chunk = c.chunk;
    if (!chunk || !TYPE_DECLARATION_KINDS.has(chunk.kind) || chunk.kind === 'extension' || chunk.name.toLowerCase() !== name) continue;
    const key = segmentsOf(chunk.symbol).join('.');
    const list = declared.get(key);
    if (list) list.push(c);
    else declared.set(key, [c]);
  }
  // the declaration a written name finds: the conformer's own file's first (a module's names are its own), else the first
  const lookup = (key: string, from: Candidate): Candidate | undefined => {
    const list = declared.get(key)?.filter((d) => d !== from);
    return list?.find((d) => d.path === from.path) ?? list?.[0];
  };
  const out: Candidate[] = [];
  for (const c of impls) {
    const chunk = c.chunk!;
    const written = chunk.conformances.map(segmentsOf).find((s) => s[s.length - 1] === name);
    if (!written || c.conformsVia !== undefined) {
      out.push(c);
      continue;
    }
    const scope = segmentsOf(chunk.symbol).slice(0, -1);
    let resolved: string[] | undefined;
    let via: Candidate | undefined;
    for (let i = scope.length; i >= 0 && !resolved; i--) {
      const key = [...scope.slice(0, i), ...written];
      via = lookup(key.join('.'), c);
      if (via) resolved = key;
    }
    // no nearer declaration, or the one found is the target itself (by its symbol, or its module and symbol)
    if (!resolved || !via || endsWithSegments(resolved, wanted) || declaresQualified(via, wanted)) {
      out.push(c);
      continue;
    }
    if (impls.includes(via)) {
      c.conformsVia = via.chunk!.symbol;
      c.explanation.push(`extends ${via.chunk!.symbol} (the nearer ${chunk.conformances.find((x) => segmentsOf(x).join('.') === written.join('.'))}), which implements ${target}`);
      out.push(c);
    } else {
      c.explanation.push(`extends ${via.chunk!.symbol} (the nearer ${lastSegment(target)}), not ${target}`);
    }
  }
  return out;
}

export const implementsPartitionStage: Stage = {
  name: 'implements-partition',
  apply(ctx, candidates) {
    const t = ctx.query.target;
    if (t?.relation !== 'implementations') return candidates;
    const name = lastSegment(t.name).toLowerCase();
    // a qualified target's own declaration (Faraday::Response::Middleware, which itself extends Faraday::Middleware):
    // the definition, never one of its implementations
    const wanted = segmentsOf(t.name);
    const ownDecl =
      wanted.length >= 2
        ? candidates.find((c) => !!c.chunk && TYPE_DECLARATION_KINDS.has(c.chunk.kind) && c.chunk.kind !== 'extension' && declaresQualified(c, wanted))
        : undefined;
    // Go: the target's package against the conformance's (the folders of the index's declarations of the name)
    const go: GoPackages = {
      target: wanted,
      declaredIn: new Set(candidates.filter((c) => c.chunk?.language === 'go' && isDefinitionOf(c, name)).map((c) => folderOf(c.path))),
    };
    let impls = resolveQualified(t.name, name, candidates, candidates.filter((c) => c !== ownDecl && isImplementation(c, name, go)));
    let found = candidates.filter((c) => isDefinitionOf(c, name));
    // a qualified target whose own declaration is not among the candidates (Go's `io.Reader` in a tree without the io
    // package): a declaration of the name counts only where its file's folders hold the qualifier (package `io`:
    // `io/io.go`), never another package's type of the same name (`bytes.Reader` is a struct, not io's interface)
    if (!ownDecl && wanted.length >= 2) {
      const qualifier = wanted[wanted.length - 2]!;
      found = found.filter((c) => c.path.toLowerCase().split('/').slice(0, -1).includes(qualifier));
    }
    // the project's own declaration before a test file's (a test that re-declares or augments the type: zod's
    // `declare module "zod/v4" { interface ZodType … }` in a test beside the real `abstract class ZodType`)
    const outsideTests = found.filter((c) => !isTestPath(c.path));
    const defs = outsideTests.length ? outsideTests : found;
    // an interface/protocol/trait is what can be implemented (io.Reader over textproto.Reader, a struct)
    const def = ownDecl ?? defs.find((c) => PROTOCOL_KINDS.has(c.chunk!.kind)) ?? defs[0];
    // nothing in the index implements X (an interface only extended by others, a protocol the project declares for
    // its users to adopt): its definition and the interfaces that extend it come first, with a line saying so,
    // instead of the text ranking's usage sites (zod's `ParseContext` was 12th, behind functions that take one)
    if (!impls.length) {
      // only for a name written as a type's (a lower-case "retry policy implementations" may be a phrase, not a name)
      if (!/\p{Lu}/u.test(lastSegment(t.name))) return candidates;
      if (!def) {
        // neither declared nor implemented here (cobra's "what implements SliceValue": pflag declares it): say so, so
        // that the text matches below are not taken for implementations
        ctx.effects?.warnings.push(`No declaration or implementation of ${t.name} was found in the files searched; the results are text matches.`);
        return candidates;
      }
      impls = candidates.filter((c) => c !== def && isRefinement(c, name));
      ctx.effects?.warnings.push(
        `Nothing in the index implements ${t.name}; listed first: its definition${impls.length ? ` and the ${impls.length === 1 ? 'interface that extends' : 'interfaces that extend'} it` : ''}.`,
      );
      for (const c of impls) c.explanation.push(`extends ${t.name}, which nothing in the index implements: listed with its definition`);
    }
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
    // a declaration file's class (`types/agent.d.ts`, a `.pyi` stub) describes code that is elsewhere: after every
    // implementation with code (undici declares each dispatcher twice, in lib/*.js and types/*.d.ts)
    const withCode = impls.filter((c) => !isDeclarationFile(c.path));
    if (withCode.length && withCode.length < impls.length) {
      const floor = Math.min(...withCode.map((c) => c.score));
      const lifted = impls.filter((c) => isDeclarationFile(c.path) && c.score >= floor).sort((a, b) => b.score - a.score);
      lifted.forEach((c, i) => {
        // in their own order, below the last implementation with code
        const to = floor * (0.998 - i * 1e-5);
        c.explanation.push(`declared in a type declaration file: after the implementations with code (score ${round(c.score)} → ${round(to)})`);
        c.score = to;
      });
    }
    // an unqualified name the project declares more than once as an interface (Go's `a.Reader` and `b.Reader`, two
    // `Handler` interfaces in two modules): the conformers of each are implementations, so each declaration is listed
    // with them — the chosen one in the top 3, the others last of the first group — and a warning names the places
    const others =
      def && wanted.length < 2 && PROTOCOL_KINDS.has(def.chunk!.kind) ? defs.filter((c) => c !== def && c.path !== def.path && PROTOCOL_KINDS.has(c.chunk!.kind)) : [];
    if (others.length) {
      const places = [def!, ...others].map((c) => c.path);
      ctx.effects?.warnings.push(
        `${t.name} is declared in ${places.length} places (${places.slice(0, 5).join(', ')}${places.length > 5 ? ` and ${places.length - 5} more` : ''}): the implementations of each are listed; name the package or namespace${others[0]!.chunk!.language === 'go' ? ` (e.g. "what implements ${folderOf(others[0]!.path)}.${others[0]!.chunk!.name}")` : ''} to ask for one of them.`,
      );
    }
    const first = new Set([...impls, ...(def ? [def] : []), ...others]);
    for (const c of candidates) {
      const g = c.group ?? 0;
      if (first.has(c)) {
        if (c === def) c.explanation.push(`definition of ${t.name}: kept with its implementations`);
        else if (others.includes(c)) continue;
        else if (!c.explanation.some((l) => l.startsWith(`extends ${t.name}, which nothing`))) c.explanation.push(`implements ${t.name}: listed with the implementations, before other results`);
        continue;
      }
      c.group = g + 1;
    }
    if (others.length) {
      const floor = Math.min(...[...first].filter((c) => !others.includes(c)).map((c) => c.score));
      others.forEach((c, i) => {
        const to = floor - Math.abs(floor) * 1e-4 * (i + 1);
        c.explanation.push(`another declaration of ${t.name} (${c.path}): listed with the implementations, after them (score ${round(c.score)} → ${round(to)})`);
        c.score = to;
      });
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
      } else {
        // implementers first: the definition follows the first two implementations (the first, when there is one):
        // third at most, as seed 000 asks, and never before an answer it could follow
        const rest = group.filter((x) => x !== def);
        const place = Math.min(2, rest.length);
        if (at < place) {
          const above = rest[place - 1]!.score;
          const below = rest[place]?.score;
          let target: number;
          if (below === undefined) target = above - Math.abs(above) * 1e-4;
          else if (above > below) target = (above + below) / 2;
          else {
            // the implementation before it ties with the one after: lift the first ones just above the tie
            const lifted = below + Math.abs(below) * 2e-4;
            for (const lead of rest.slice(0, place)) {
              if (lead.score >= lifted) continue;
              lead.explanation.push(`stays ahead of the definition of ${t.name} (tied with the next implementation; score ${round(lead.score)} → ${round(lifted)})`);
              lead.score = lifted;
            }
            target = below + Math.abs(below) * 1e-4;
          }
          def.explanation.push(`definition of ${t.name}: after the first ${place === 1 ? 'implementation' : `${place} implementations`} (score ${round(def.score)} → ${round(target)})`);
          def.score = target;
        }
      }
    }
    return candidates;
  },
};
