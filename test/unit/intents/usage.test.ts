import assert from 'node:assert/strict';
import { asksAboutUsage } from '../../../server/src/engine/ranking/intents/usage';

describe('questions about using a library (intents/usage.ts)', () => {
  it('tells how-tos, recommendations, support and upgrades from descriptions of what the code does', () => {
    for (const q of [
      'how do I send logs to a unix domain socket', 'how to load a C extension library', 'recommended keep-alive settings',
      'should a greeter answer the prompts automatically', 'is there a way to access configured loggers statically',
      'which Ruby versions are supported', 'upgrading an application from the previous major version',
      'what should I use instead of the removed handlers', 'why does my handler block other requests', 'an example of a crawler',
    ]) assert.ok(asksAboutUsage(q), q);
    for (const q of [
      'where are cookie values signed together with a timestamp', 'listen on every address localhost resolves to',
      'choose the body parser for a content type', 'how is the wait before retrying a failed job computed',
    ]) assert.equal(asksAboutUsage(q), false, q);
  });
});
