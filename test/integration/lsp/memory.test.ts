/**
 * Activation and agent memory through a real language server session (seed 003 FR-4, FR-6.4): a result the editor
 * reports as opened (`codeSearch/resultOpened`) ranks with its access counted; a pattern recorded by another process
 * (the CLI, which does not own the index) is indexed by the owning server through its memory-folder watch.
 */
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { removeDir, runCli, tempDir, writeFiles } from '../../support/workspace';
import { noEmbeddingConfig } from '../../support/config';
import { LspTestClient } from './lspClient';

interface FindResult {
  matches: Array<{ file: { path: string }; content: { chunk_id: string; symbol: string; kind: string }; span: [number, number]; folder: string; activation?: { accesses: number; score: number }; explanation: string[] }>;
}

describe('LSP: opened results raise activation; patterns from other processes are indexed', function () {
  this.timeout(120_000);
  let root: string;
  let client: LspTestClient;

  before(async () => {
    root = tempDir('quarry-lsp-memory-');
    noEmbeddingConfig(root);
    writeFiles(root, {
      'src/cart.py': 'def add_item(cart, item):\n    """Add an item to the shopping cart."""\n    cart.append(item)\n\n\ndef remove_item(cart, item):\n    """Remove an item from the shopping cart."""\n    cart.remove(item)\n',
    });
    client = LspTestClient.spawn();
    await client.initialize([root]);
  });
  after(async () => {
    if (client && client.child.exitCode === null) client.child.kill('SIGKILL');
    removeDir(root);
  });

  const find = (query: string) => client.conn.sendRequest<FindResult>('codeSearch/find', { query, limit: 10 });

  it('codeSearch/resultOpened records an access that later searches count and explain', async () => {
    const first = await find('shopping cart item');
    const target = first.matches[0];
    assert.ok(target);
    const same = (m: FindResult['matches'][number]) => m.content.chunk_id === target.content.chunk_id;
    assert.equal(target.activation, undefined);
    await client.conn.sendNotification('codeSearch/resultOpened', { folder: target.folder, chunkId: target.content.chunk_id });
    let hit: FindResult['matches'][number] | undefined;
    for (let i = 0; i < 50 && !hit?.activation; i++) {
      await new Promise((r) => setTimeout(r, 100));
      hit = (await find('shopping cart item')).matches.find(same);
    }
    assert.equal(hit?.activation?.accesses, 1);
    assert.ok(hit!.explanation.some((l) => /activation .*accessed 1x/.test(l)), hit!.explanation.join('\n'));
    // by file and line too (a client without chunk ids)
    await client.conn.sendNotification('codeSearch/resultOpened', { folder: pathToFileURL(root).href, uri: pathToFileURL(`${root}/src/cart.py`).href, line: target.span[0] });
    for (let i = 0; i < 50 && hit?.activation?.accesses !== 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      hit = (await find('shopping cart item')).matches.find(same);
    }
    assert.equal(hit?.activation?.accesses, 2);
  });

  it('a pattern recorded by the CLI while the server owns the index becomes searchable through the server', async () => {
    const r = runCli(['pattern', 'record', '-p', root, '--id', 'cart-pattern', '-t', 'implementation', '-s', '0.9', '-d', 'Cart changes: validate the item before touching the shopping cart list.']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /becomes searchable when the language server \(pid \d+\) picks up the change/);
    let found: FindResult['matches'] = [];
    for (let i = 0; i < 100 && !found.length; i++) {
      await new Promise((res) => setTimeout(res, 100));
      found = (await client.conn.sendRequest<FindResult>('codeSearch/find', { query: 'validate item cart', types: ['reasoning'] })).matches;
    }
    assert.deepEqual(found.map((m) => m.content.symbol), ['cart-pattern']);
  });
});
