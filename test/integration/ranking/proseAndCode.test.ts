import assert from 'node:assert/strict';
import { copyFixture } from '../../support/workspace';
import { indexedWorkspace } from '../../support/indexedWorkspace';
import { QuarryConfigSchema } from '../../../server/src/engine/config/schema';

/**
 * The code model puts prose nearer to any English sentence than code: retrieval discounts the dense similarity of
 * Markdown sections and text windows (`retrieval.denseProseFactor`, 0.9) unless the question asks for information
 * (seed 004's intents), which the guide answers (test/fixtures/prose-and-code: a retry library and its guide).
 */
describe('prose and code in the dense channel (default configuration)', function () {
  this.timeout(120_000);
  const ws = indexedWorkspace(() => copyFixture('prose-and-code'), {});

  it('a description of what the code does: the code first, the guide\'s sections discounted with a line saying so', async () => {
    const res = await ws.engine().search('how long to wait before the next attempt, honouring the Retry-After header', { limit: 10, explain: true });
    assert.equal(res.matches[0]!.content.symbol, 'delayBeforeAttempt', res.matches.map((m) => m.content.symbol).join(', '));
    const guide = res.matches.filter((m) => m.file.path === 'docs/Retries.md' && m.explanation.some((l) => l.includes('dense')));
    assert.ok(guide.length > 0);
    for (const m of guide) assert.ok(m.explanation.some((l) => l.includes('(×0.9: prose, the question asks for no information or usage)')), m.explanation.join('\n'));
  });

  it('a question about using the library (a how-to): the guide\'s similarity as it is', async () => {
    const res = await ws.engine().search('how do I set the maximum number of retries', { limit: 10, explain: true });
    assert.ok(res.matches.some((m) => m.file.path === 'docs/Retries.md'), res.matches.map((m) => m.content.symbol).join(', '));
    for (const m of res.matches) assert.ok(!m.explanation.some((l) => l.includes('prose, the question asks for no information or usage')), m.explanation.join('\n'));
  });

  it('an information question (a comparison): the guide first, its similarity as it is', async () => {
    const res = await ws.engine().search('what is the difference between a retry and a timeout', { limit: 10, explain: true });
    assert.equal(res.matches[0]!.file.path, 'docs/Retries.md', res.matches.map((m) => m.content.symbol).join(', '));
    for (const m of res.matches) assert.ok(!m.explanation.some((l) => l.includes('prose, the question asks for no information or usage')), m.explanation.join('\n'));
  });
});

describe('prose and code in the dense channel: the discount switched off (retrieval.denseProseFactor: 1)', function () {
  this.timeout(120_000);
  const ws = indexedWorkspace(() => copyFixture('prose-and-code'), { config: QuarryConfigSchema.parse({ retrieval: { denseProseFactor: 1 } }) });

  it('no prose is discounted', async () => {
    const res = await ws.engine().search('double the wait after every failed attempt', { limit: 10, explain: true });
    for (const m of res.matches) assert.ok(!m.explanation.some((l) => l.includes('×0.9: prose')), m.explanation.join('\n'));
  });
});
