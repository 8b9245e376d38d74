import assert from 'node:assert/strict';
import { renameSync, unlinkSync, writeFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { defaultConfig } from '../../../server/src/engine/config/schema';
import { tempDir, writeFiles, removeDir } from '../../support/workspace';
import { POOL_MIN_FILES } from '../../../server/src/engine/indexer/chunkPool';

const FILES = {
  'src/auth.py': `"""Authentication helpers."""\n\ndef authenticate_user(username, password):\n    """Check credentials and return the user."""\n    user = lookup_account(username)\n    if user is None:\n        return None\n    return user if verify_password(user, password) else None\n\n\ndef verify_password(user, password):\n    """Compare a password against the stored hash."""\n    return hash_secret(password) == user.password_hash\n`,
  'src/orders.ts': `/** An order line. */\nexport interface OrderLine {\n  sku: string;\n  quantity: number;\n}\n\n/** Sums the quantities of an order. */\nexport function totalQuantity(lines: OrderLine[]): number {\n  return lines.reduce((n, l) => n + l.quantity, 0);\n}\n`,
  'src/util.go': `package util\n\n// Clamp limits v to [lo, hi].\nfunc Clamp(v, lo, hi int) int {\n\tif v < lo {\n\t\treturn lo\n\t}\n\tif v > hi {\n\t\treturn hi\n\t}\n\treturn v\n}\n`,
};

async function chunkIdsByPath(engine: Engine, query: string): Promise<Map<string, string[]>> {
  const res = await engine.search(query, { limit: 100 });
  const out = new Map<string, string[]>();
  for (const m of res.matches) out.set(m.file.path, [...(out.get(m.file.path) ?? []), m.content.chunk_id]);
  return out;
}

describe('incremental indexing (edit, rename, delete)', function () {
  this.timeout(120_000);
  let root: string;
  let engine: Engine;
  beforeEach(async () => {
    root = tempDir();
    writeFiles(root, FILES);
    engine = await Engine.open(root);
  });
  afterEach(async () => {
    await engine.close();
    removeDir(root);
  });

  it('indexes everything once, then nothing when nothing changed', async () => {
    const first = await engine.index();
    assert.equal(first.filesIndexed, 3);
    assert.ok(first.totalChunks >= 3);
    const second = await engine.index();
    assert.equal(second.filesIndexed, 0);
    assert.equal(second.filesUnchanged, 3);
    assert.equal(second.totalChunks, first.totalChunks);
  });

  it('re-indexes exactly the edited file and keeps other chunks untouched', async () => {
    await engine.index();
    const before = await engine.search('authenticate_user', { limit: 50 });
    const goBefore = (await engine.search('Clamp', { limit: 5 })).matches[0];
    writeFileSync(join(root, 'src/auth.py'), FILES['src/auth.py'].replace('lookup_account', 'find_account_by_name'));
    const s = await engine.index();
    assert.equal(s.filesIndexed, 1);
    assert.deepEqual(Object.keys(s.filesByLanguage), ['python']);
    const after = await engine.search('find_account_by_name', { limit: 5 });
    assert.equal(after.matches[0].file.path, 'src/auth.py');
    assert.ok((await engine.search('lookup_account', { limit: 50 })).matches.every((m) => !m.content.content.includes('lookup_account')), 'the old text is gone');
    const goAfter = (await engine.search('Clamp', { limit: 5 })).matches[0];
    assert.equal(goAfter.content.chunk_id, goBefore.content.chunk_id);
    assert.equal(goAfter.content.content, goBefore.content.content);
    // Stable ids: the edited function keeps its id.
    const idBefore = before.matches.find((m) => m.content.symbol === 'authenticate_user')!.content.chunk_id;
    const idAfter = after.matches.find((m) => m.content.symbol === 'authenticate_user')!.content.chunk_id;
    assert.equal(idAfter, idBefore);
  });

  it('a touched file with the same content is not re-chunked', async () => {
    await engine.index();
    const p = join(root, 'src/util.go');
    writeFileSync(p, readFileSync(p));
    const s = await engine.index();
    assert.equal(s.filesIndexed, 0);
  });

  it('moves chunks on rename and removes them on delete, with no duplicates', async () => {
    const first = await engine.index();
    renameSync(join(root, 'src/orders.ts'), join(root, 'src/order_lines.ts'));
    const s = await engine.index();
    assert.equal(s.filesRemoved, 1);
    assert.equal(s.filesIndexed, 1);
    assert.equal(s.totalChunks, first.totalChunks);
    const byPath = await chunkIdsByPath(engine, 'totalQuantity');
    assert.ok(byPath.has('src/order_lines.ts'));
    assert.ok(!byPath.has('src/orders.ts'));
    unlinkSync(join(root, 'src/util.go'));
    const s2 = await engine.index();
    assert.equal(s2.filesRemoved, 1);
    assert.deepEqual((await engine.search('Clamp', { limit: 5 })).matches.filter((m) => m.file.path === 'src/util.go'), []);
    const status = await engine.status();
    assert.equal(status.files, 2);
    assert.equal(status.chunks, s2.totalChunks);
    assert.equal(status.chunksByLanguage.go, undefined);
  });

  it('survives a damaged lexical index: detected on open, rebuilt by the next index run', async () => {
    await engine.index();
    await engine.close();
    const lexDir = join(root, '.quarry', 'lexical');
    const seg = readdirSync(lexDir).find((f) => f.endsWith('.qlx'))!;
    writeFileSync(join(lexDir, seg), 'garbage');
    engine = await Engine.open(root);
    assert.ok((await engine.status()).problems.some((p) => p.includes('lexical')));
    await engine.index();
    assert.equal((await engine.search('totalQuantity', { limit: 3 })).matches[0].file.path, 'src/orders.ts');
  });

  it('rebuilds everything when discovery or chunking settings change (settings hash)', async () => {
    await engine.index();
    await engine.close();
    const config = defaultConfig();
    config.chunking.minTokens = 50;
    engine = await Engine.open(root, { config, embedding: null, reranker: null });
    const s = await engine.index();
    assert.match(s.rebuiltBecause ?? '', /settings changed/);
    assert.equal(s.filesIndexed, 3);
    assert.equal((await engine.index()).rebuiltBecause, undefined, 'stable once rebuilt');
  });

  it('the index folder ignores itself for git', async () => {
    await engine.index();
    assert.match(readFileSync(join(root, '.quarry', '.gitignore'), 'utf8'), /^\*$/m);
  });
});

describe('incremental indexing through the chunking worker (64+ files: documents added as their chunks arrive)', function () {
  this.timeout(120_000);
  it("editing every file of a large run replaces each file's documents once: old words gone, new ones found, no duplicate", async () => {
    const root = tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < POOL_MIN_FILES + 10; i++) files[`pkg/m${i}.py`] = `def handler_${i}(request):\n    # Answer with the legacy quokka payload.\n    return quokka_payload(request, ${i})\n`;
    writeFiles(root, files);
    const engine = await Engine.open(root, { embedding: null, reranker: null, longRunning: true });
    try {
      const first = await engine.index();
      assert.equal(first.filesIndexed, POOL_MIN_FILES + 10);
      for (const [p, text] of Object.entries(files)) writeFileSync(join(root, p), text.replace(/quokka/g, 'wombat'));
      const again = await engine.index();
      assert.equal(again.filesIndexed, POOL_MIN_FILES + 10);
      assert.equal(again.chunksRemoved, first.chunksCreated, 'every old document removed once');
      assert.equal((await engine.search('quokka', { limit: 200 })).matches.length, 0);
      const now = await engine.search('wombat', { limit: 200 });
      assert.equal(now.matches.length, POOL_MIN_FILES + 10);
      assert.equal(new Set(now.matches.map((m) => m.content.chunk_id)).size, now.matches.length, 'no duplicate');
      assert.equal((await engine.status()).chunks, first.totalChunks);
    } finally {
      await engine.close();
      removeDir(root);
    }
  });
});

describe('codebase size limits (seed 002 FR-039) and error warnings', function () {
  this.timeout(60_000);
  it('warns above discovery.largeCodebaseFiles and refuses above discovery.maxFiles with the cause and a fix', async () => {
    const root = tempDir();
    writeFiles(root, { 'a.py': 'x = 1\n', 'b.py': 'y = 2\n', 'c.py': 'z = 3\n' });
    try {
      const config = defaultConfig();
      config.discovery.largeCodebaseFiles = 2;
      const engine = await Engine.open(root, { config, embedding: null, reranker: null });
      const s = await engine.index();
      assert.match(s.warnings.join('\n'), /Large codebase detected \(3 files\)/);
      await engine.close();
      config.discovery.maxFiles = 2;
      const strict = await Engine.open(root, { config, embedding: null, reranker: null });
      await assert.rejects(strict.index(), /Codebase too large: 3 files to index \(the limit is 2\).*discovery\.exclude/);
      await strict.close();
    } finally {
      removeDir(root);
    }
  });
});
