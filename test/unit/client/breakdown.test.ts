/** The results view's tooltip breakdown (seed 003 FR-6 in the extension). */
import assert from 'node:assert/strict';
import { breakdownMarkdown, escapeMarkdown } from '../../../client/src/breakdown';

describe('tooltip score breakdown (client/src/breakdown.ts)', () => {
  it('lists the channels with their FR-6 wording, the git history, and escapes Markdown', () => {
    const md = breakdownMarkdown({
      relevance_score: 0.856,
      score_breakdown: {
        final: 0.856,
        bm25: { score: 9.5, reason: 'exact keyword match on "authenticate_user"', exact: true },
        semantic: { similarity: 0.82, reason: 'high conceptual relevance' },
        activation: { score: 0.65, reason: 'accessed 3x, 23 commits, last used 2 days ago' },
        git: '23 commits, last modified 2 days ago',
      },
    });
    assert.equal(
      md,
      '**Final score 0.856**\n\n- BM25 9.500 ⭐ — exact keyword match on "authenticate\\_user"\n- Semantic 0.820 — high conceptual relevance\n' +
        '- Activation 0.650 — accessed 3x, 23 commits, last used 2 days ago\n- Git: 23 commits, last modified 2 days ago\n\n',
    );
    assert.equal(breakdownMarkdown({ relevance_score: 1 }), '');
    assert.equal(escapeMarkdown('a*b_c`d'), 'a\\*b\\_c\\`d');
  });
});
