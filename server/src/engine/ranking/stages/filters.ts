/** Filters applied after ranking (seed 003 FR-7.4: type filters run after re-ranking). */
import type { Candidate, Stage } from '../candidate';
import { compareCandidates } from '../candidate';
import { isTestUnit } from '../../testPaths';
import { pathMatcher } from '../query';

/** Drops test files (and Rust's tests inside source files) unless the search includes them. */
export const excludeTestsStage: Stage = {
  name: 'exclude-tests',
  apply(ctx, candidates) {
    if (ctx.options.includeTests) return candidates;
    return candidates.filter((c) => !isTestUnit(c.path, c.chunk));
  },
};

/** Keeps only the requested languages (`focus_languages`, `lang:`). */
export const languageFilterStage: Stage = {
  name: 'language-filter',
  apply(ctx, candidates) {
    const langs = [...(ctx.options.languages ?? []), ...ctx.query.filters.languages].map((l) => l.toLowerCase());
    if (!langs.length) return candidates;
    return candidates.filter((c) => c.chunk && langs.includes(c.chunk.language));
  },
};

/** `path:` globs. */
export const pathFilterStage: Stage = {
  name: 'path-filter',
  apply(ctx, candidates) {
    if (!ctx.query.filters.paths.length) return candidates;
    const ok = pathMatcher(ctx.query.filters.paths);
    return candidates.filter((c) => ok(c.path));
  },
};

/** `kind:` / `--type`: exact chunk types, after ranking. */
export const typeFilterStage: Stage = {
  name: 'type-filter',
  apply(ctx, candidates) {
    const kinds = new Set([...ctx.query.filters.kinds, ...(ctx.options.types ?? [])]);
    if (!kinds.size) return candidates;
    return candidates.filter((c) => c.chunk && kinds.has(c.chunk.kind));
  },
};

/** `-word`: drops chunks that contain the word (whole word, case-insensitive). */
export const excludeWordsStage: Stage = {
  name: 'exclude-words',
  apply(ctx, candidates) {
    const words = ctx.query.filters.excludes;
    if (!words.length) return candidates;
    const res = words.map((w) => new RegExp(`(^|[^\\p{L}\\p{N}_])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^\\p{L}\\p{N}_]|$)`, 'iu'));
    return candidates.filter((c) => !c.chunk || !res.some((re) => re.test(c.chunk!.content) || re.test(c.chunk!.symbol)));
  },
};

/**
 * One result per declaration: a declaration over the chunk size is stored as several pieces with the same name at the
 * same place — an outline of a large class cut by lines (the same lines), a function or macro cut at statement
 * boundaries (other lines) — and two of them in one answer read as the same result twice (a 2,700-line class took two
 * of five places; four parts of one Rust macro filled places 2–5 of "bail"). The best-placed piece stays; the others
 * go. Pieces are told by their file, kind, symbol and name position (units without a name: their lines).
 */
export const collapsePiecesStage: Stage = {
  name: 'collapse-pieces',
  apply(_ctx, candidates) {
    const keyOf = (c: Candidate) => {
      const ch = c.chunk;
      if (!ch) return undefined;
      const at = ch.symbol && ch.nameRange ? `${ch.nameRange.line}:${ch.nameRange.column}` : `${ch.startLine}-${ch.endLine}`;
      return `${c.path}\0${ch.kind}\0${ch.symbol}\0${at}`;
    };
    const first = new Map<string, Candidate>();
    for (const c of [...candidates].sort(compareCandidates)) {
      const key = keyOf(c);
      if (key !== undefined && !first.has(key)) first.set(key, c);
    }
    if (first.size === candidates.length) return candidates;
    return candidates.filter((c) => {
      const key = keyOf(c);
      return key === undefined || first.get(key) === c;
    });
  },
};
