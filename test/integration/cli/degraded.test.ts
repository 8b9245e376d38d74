import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { CLI, tempDir, writeFiles, removeDir } from '../../support/workspace';
import { startFakeVoyage, FAKE_VOYAGE_KEY, FakeVoyage } from '../../support/fakeVoyage';

/** Runs the CLI asynchronously (the fake server lives in this process, so spawnSync would block it). */
function cli(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, VOYAGE_API_KEY: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

describe('CLI with a remote embedder that fails (fake Voyage server): honest degraded mode', function () {
  this.timeout(120_000);
  let fake: FakeVoyage;
  let root: string;
  before(async () => {
    fake = await startFakeVoyage({ dims: 32 });
    root = tempDir();
    writeFiles(root, {
      'src/cart.ts': '/** Adds an item to the shopping cart. */\nexport function addToCart(cart: Cart, item: Item): Cart {\n  return { ...cart, items: [...cart.items, item] };\n}\n',
      'src/tax.py': 'def compute_tax(amount, rate):\n    """Compute the sales tax of an amount."""\n    return amount * rate\n',
    });
    mkdirSync(join(root, '.quarry'), { recursive: true });
    writeFileSync(
      join(root, '.quarry', 'config.yml'),
      [
        'embedding:',
        '  provider: voyage',
        '  voyage:',
        `    apiKey: ${FAKE_VOYAGE_KEY}`,
        `    baseUrl: ${fake.baseUrl}`,
        '    outputDimension: 256',
        '    retryDelaysMs: [10, 20]',
        '    queryRetryDelaysMs: [10]',
        '    queryTimeoutMs: 1000',
        'rerank:',
        '  provider: none',
      ].join('\n') + '\n',
    );
  });
  after(async () => {
    await fake.close();
    removeDir(root);
  });

  it('embeds while the service is up, and the search is hybrid', async () => {
    const idx = await cli(['index', '-p', root, '--json']);
    assert.equal(idx.status, 0, idx.stderr);
    const s = JSON.parse(idx.stdout);
    assert.equal(s.embedding.model, 'voyage:voyage-code-3@256');
    assert.equal(s.embedding.embedded, s.totalChunks);
    const res = JSON.parse((await cli(['search', 'add an item to the shopping cart', '-p', root, '-o', 'json'])).stdout);
    assert.deepEqual(res.search_strategy, ['HYBRID_SEARCH']);
    assert.equal(res.matches[0].file.path, 'src/cart.ts');
  });

  it('while the service is down: BM25 results, a warning line (table) and SPARSE_ONLY + warnings (JSON)', async () => {
    fake.always('embeddings', { status: 503 });
    try {
      const table = await cli(['search', 'compute the sales tax', '-p', root]);
      assert.equal(table.status, 0, table.stderr);
      assert.match(table.stdout, /⚠️ {2}Warning: Dense embedding service unavailable .*using sparse \(BM25\) search only/);
      assert.match(table.stdout, /^src\/tax\.py:1:5 +\| function/m);
      const json = JSON.parse((await cli(['search', 'compute the sales tax', '-p', root, '-o', 'json'])).stdout);
      assert.deepEqual(json.search_strategy, ['SPARSE_ONLY']);
      assert.ok(json.warnings.some((w: string) => /Dense embedding service unavailable/.test(w)));
      assert.equal(json.matches[0].file.path, 'src/tax.py');
      // Indexing keeps going without the embedder.
      writeFileSync(join(root, 'src', 'new.ts'), 'export function refundOrder(id: string) {\n  return id;\n}\n');
      const idx = await cli(['index', '-p', root]);
      assert.equal(idx.status, 0, idx.stderr);
      assert.match(idx.stdout, /stopped: voyage/);
      const found = JSON.parse((await cli(['search', 'refundOrder', '-p', root, '-o', 'json'])).stdout);
      assert.equal(found.matches[0].file.path, 'src/new.ts');
    } finally {
      fake.always('embeddings', null);
    }
  });
});
