import assert from 'node:assert/strict';
import { fitToTokenLimit, MIN_MATCH_SHARE, TRUNCATION_MARKER } from '../../../server/src/mcp/tools';
import { countTokens } from '../../../server/src/engine/tokenize/tokenCount';
import type { CodeMatch } from '../../../server/src/engine/api/results';

/** A match whose content is `lines` lines of code (each about 8 tokens). */
function match(id: string, lines: number): CodeMatch {
  const content = Array.from({ length: lines }, (_, i) => `  const value${i} = compute(${id}, ${i});`).join('\n');
  return { content: { chunk_id: id, content, token_count: 0 } } as unknown as CodeMatch;
}
const ids = (r: { matches: CodeMatch[] }) => r.matches.map((m) => m.content.chunk_id);

describe('find_code token budget (issue 18: an answer holds max_results unless the budget truly cannot)', () => {
  it('a list that fits is returned whole, token counts set', () => {
    const list = [match('a', 5), match('b', 5)];
    const fit = fitToTokenLimit(list, 10_000);
    assert.deepEqual(ids(fit), ['a', 'b']);
    assert.equal(fit.dropped, 0);
    assert.equal(fit.truncated, 0);
    assert.equal(fit.tokens, countTokens(list[0].content.content) * 2);
  });

  it('two huge classes among small units: the classes are cut to a common cap, every match stays, in rank order', () => {
    const list = [match('bigClass', 1200), match('m1', 10), match('otherClass', 900), ...Array.from({ length: 7 }, (_, i) => match(`m${i + 2}`, 12))];
    const fit = fitToTokenLimit(list, 10_000);
    assert.deepEqual(ids(fit), ids({ matches: list }), 'all 10 matches, same order');
    assert.equal(fit.dropped, 0);
    assert.equal(fit.truncated, 2);
    assert.ok(fit.tokens <= 10_000, `${fit.tokens}`);
    assert.ok(fit.cap! >= MIN_MATCH_SHARE);
    for (const m of fit.matches) assert.equal(m.content.token_count, countTokens(m.content.content));
    assert.ok(fit.matches[0].content.content.endsWith(TRUNCATION_MARKER));
    assert.equal(fit.matches[1].content.content, list[1].content.content, 'small units stay whole');
  });

  it('lower-ranked matches are dropped only when every kept match would get less than its share', () => {
    const list = Array.from({ length: 50 }, (_, i) => match(`m${i}`, 100));
    const fit = fitToTokenLimit(list, 2_000);
    assert.ok(fit.dropped > 0 && fit.matches.length >= 2);
    assert.deepEqual(ids(fit), ids({ matches: list.slice(0, fit.matches.length) }), 'the best-ranked ones are kept');
    assert.ok(fit.cap! >= MIN_MATCH_SHARE && fit.tokens <= 2_000);
  });

  it("a match's own token count (its chunk's, counted by the chunker) is used as it is; 0 is counted", () => {
    const known = match('known', 5);
    const exact = countTokens(known.content.content);
    const fit = fitToTokenLimit([{ ...known, content: { ...known.content, token_count: exact } }, match('unknown', 5)], 10_000);
    assert.deepEqual(fit.matches.map((m) => m.content.token_count), [exact, countTokens(match('unknown', 5).content.content)]);
    // a stated count is trusted (the budget is decided on it): the chunker's count is the content's count
    const stated = fitToTokenLimit([{ ...known, content: { ...known.content, token_count: 7 } }], 10_000);
    assert.equal(stated.tokens, 7);
  });

  it('a lone match bigger than the whole budget is cut to it; a budget under the marker returns nothing', () => {
    const fit = fitToTokenLimit([match('big', 400), match('next', 400)], 60);
    assert.deepEqual(ids(fit), ['big']);
    assert.ok(fit.tokens <= 60);
    assert.equal(fitToTokenLimit([match('big', 400)], 3).matches.length, 0);
  });
});
