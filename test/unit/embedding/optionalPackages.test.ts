import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmbeddingProvider, missingPackages } from '../../../server/src/engine/embedding/registry';

describe('embedding registry: optional packages left out of the default VS Code package', () => {
  it('missingPackages looks for node_modules/<pkg> from a folder upwards', () => {
    const root = mkdtempSync(join(tmpdir(), 'quarry-opt-'));
    try {
      mkdirSync(join(root, 'node_modules', '@scope', 'here'), { recursive: true });
      writeFileSync(join(root, 'node_modules', '@scope', 'here', 'package.json'), '{}');
      mkdirSync(join(root, 'dist'), { recursive: true });
      assert.deepEqual(missingPackages(['@scope/here', 'not-there'], join(root, 'dist')), ['not-there']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('in this repository the optional providers\' packages are installed (npm ci installs them)', () => {
    assert.deepEqual(missingPackages(['@huggingface/transformers', '@energetic-ai/embeddings']), []);
  });

  it('an onnx provider without its model directory still fails with the model error, not a package error', async () => {
    await assert.rejects(createEmbeddingProvider({ provider: 'onnx', onnx: { modelPath: join(tmpdir(), 'no-such-model-dir') } }), (e: Error) => !/not installed/.test(e.message));
  });
});
