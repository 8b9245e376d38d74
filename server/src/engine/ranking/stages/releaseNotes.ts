/**
 * Release notes (CHANGELOG.md, HISTORY.md, NEWS, a docs/releases/ folder) rank below the code and guides of a
 * question that is not about releases: each of their sections names a feature in passing ("Fix `res.send()` when …",
 * "Add support for env variables"), so they matched most questions of a long-lived project — express's History.md
 * took the first three places of "find all places that read environment variables". A question about versions and
 * changes ("what changed in 4.7", "when was X deprecated", "breaking changes of the last major version", "release
 * notes") keeps them as they are.
 */
import type { Stage } from '../candidate';

/**
 * A release-notes file: CHANGELOG, CHANGES, HISTORY, NEWS, RELEASES, RELEASE-NOTES (any case; no extension or a prose
 * one, `.md`, `.rst`, `.txt`, `.adoc`), or a prose file under releases/, changelog/, changes/ — never source code
 * (`lib/history.js`, `changes.py`).
 */
const RELEASE_NOTES = /(^|\/)(change[-_ ]?log|changes|history|news|releases|release[-_ ]?notes)([-_][\w.-]*)?(\.(md|markdown|rst|txt|adoc|asciidoc))?$|(^|\/)(releases|changelogs?|changes|release[-_ ]?notes)\/[^/]*\.(md|markdown|rst|txt|adoc|asciidoc)$/i;

/** Words of a question about releases and changes. */
const ASKS_ABOUT_RELEASES = /\b(releases?|released|change ?logs?|changes? (in|since|between|from)|changed|what'?s new|new in|added in|introduced|since|versions?|v?\d+\.\d+|deprecat\w*|breaking|upgrad\w*|migrat\w*|history|regressions?)\b/i;

export function isReleaseNotes(path: string): boolean {
  return RELEASE_NOTES.test(path);
}

/** Factor of a release-notes result for a question that is not about releases. */
export const RELEASE_NOTES_FACTOR = 0.5;

export const releaseNotesStage: Stage = {
  name: 'release-notes',
  apply(ctx, candidates) {
    if (ctx.query.form !== 'natural' || ASKS_ABOUT_RELEASES.test(ctx.query.text)) return candidates;
    for (const c of candidates) {
      if (!isReleaseNotes(c.path)) continue;
      c.score *= RELEASE_NOTES_FACTOR;
      c.explanation.push(`×${RELEASE_NOTES_FACTOR} release notes (the question is not about versions or changes)`);
    }
    return candidates;
  },
};
