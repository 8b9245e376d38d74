import assert from 'node:assert/strict';
import { mergeConfig, ConfigError } from '../../../server/src/engine/config/load';
import { defaultConfig } from '../../../server/src/engine/config/schema';

describe('editor settings layered over the configuration', () => {
  it('merges nested keys and keeps the rest', () => {
    const base = defaultConfig();
    base.discovery.exclude = ['vendor/**'];
    const merged = mergeConfig(base, { embedding: { provider: 'none' }, bm25: { k1: 1.2 } }, 'editor settings');
    assert.equal(merged.embedding.provider, 'none');
    assert.equal(merged.bm25.k1, 1.2);
    assert.equal(merged.bm25.b, 0.75);
    assert.deepEqual(merged.discovery.exclude, ['vendor/**']);
  });
  it('names every invalid key', () => {
    assert.throws(
      () => mergeConfig(defaultConfig(), { bm25: { k1: -3 }, bogus: true }, 'editor settings (quarry.*)'),
      (e: unknown) => e instanceof ConfigError && /bm25\.k1/.test(e.message) && /'bogus'/.test(e.message) && /editor settings/.test(e.message),
    );
  });
});
