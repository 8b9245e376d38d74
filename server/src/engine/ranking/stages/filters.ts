/** Filters applied after ranking (seed 003 FR-7.4: filters run after re-ranking). */
import type { Stage } from '../candidate';
import { isTestPath } from '../../testPaths';

/** Drops test files unless the search includes them. */
export const excludeTestsStage: Stage = {
  name: 'exclude-tests',
  apply(ctx, candidates) {
    if (ctx.options.includeTests) return candidates;
    return candidates.filter((c) => !isTestPath(c.path));
  },
};

/** Keeps only the requested languages (`focus_languages`). */
export const languageFilterStage: Stage = {
  name: 'language-filter',
  apply(ctx, candidates) {
    const langs = ctx.options.languages?.map((l) => l.toLowerCase());
    if (!langs?.length) return candidates;
    return candidates.filter((c) => c.chunk && langs.includes(c.chunk.language));
  },
};
