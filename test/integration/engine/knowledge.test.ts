/**
 * Knowledge chunks through the real engine (seed 003 FR-3, FR-10.1): a README split by heading sections, a
 * conversation log in a configured (hidden) knowledge folder and one recognised by content elsewhere, a missing
 * knowledge folder reported as a warning; natural-language and `--type knowledge` searches find the phases.
 */
import assert from 'node:assert/strict';
import { unlinkSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { removeDir, tempDir, writeFiles } from '../../support/workspace';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';

const LOG = '.aurora/logs/conversations/2025/12/oauth-impl-2025-12-15.md';

const FILES: Record<string, string> = {
  '.quarry/config.yml': 'knowledge:\n  folders: [".aurora/logs/conversations", "missing/logs"]\n',
  'README.md':
    '# Stockroom\n\nInventory service.\n\n## Install\n\n### From source\n\nClone the repository, then run the build script and copy the binary.\n\n## Usage\n\nStart the server with a port number.\n',
  'src/auth.ts':
    '/** Checks a password against the stored hash. */\nexport function verifyPassword(user: { hash: string }, password: string): boolean {\n  return hashSecret(password) === user.hash;\n}\n\nfunction hashSecret(s: string): string {\n  return s.split("").reverse().join("");\n}\n',
  [LOG]:
    '# Conversation: Authentication Implementation\nDate: 2025-12-15\nQuery: How do I implement OAuth2 authentication?\n\n' +
    '## Phase 1: Assessment\nAurora assessed the query complexity as high because of security requirements.\n\n' +
    '## Phase 2: Retrieval\nRetrieved relevant chunks: src/auth.ts verifyPassword.\n\n' +
    '## Phase 3: Implementation\nThe access token expires after an hour, so a background refresh renews it with the refresh token before expiry.\n\n' +
    '## Phase 9: Response\nFinal response synthesized with confidence 0.89.\n',
  'notes/cache-decisions-2025-11-02.md':
    '# Conversation: Cache design\nQuery: should the cache be per user?\n\n## Phase 1: Assessment\nEviction uses least recently used order with a size limit.\n',
};

for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`knowledge chunks through the engine (seed 003 FR-3; ${cfg.label})`, function () {
    this.timeout(120_000);
    let root: string;
    let engine: Engine;
    beforeEach(async () => {
      root = tempDir('quarry-knowledge-engine-');
      writeFiles(root, FILES);
      engine = await Engine.open(root, cfg.open);
    });
    afterEach(async () => {
      await engine.close();
      removeDir(root);
    });

    it('indexes README sections and conversation phases, warns about a missing knowledge folder, finds a phase by a question', async () => {
      const summary = await engine.index();
      assert.deepEqual(summary.errors, []);
      assert.ok(summary.warnings.some((w) => w.startsWith('No conversation logs found in missing/logs/')), summary.warnings.join('\n'));
      assert.equal(summary.filesIndexed, 4, 'the hidden knowledge folder counts; the missing one does not fail the run');
      assert.ok(!summary.warnings.some((w) => w.includes('.aurora')));

      const res = await engine.search('how does the access token get refreshed before it expires');
      const top = res.matches[0];
      assert.equal(top.file.path, LOG);
      assert.equal(top.content.symbol, 'conv-oauth-impl-2025-12-15-phase3');
      assert.equal(top.content.kind, 'section');
      assert.deepEqual(top.content.metadata, {
        source_file: LOG,
        topic: 'Authentication Implementation',
        conversation_date: '2025-12-15',
        query: 'How do I implement OAuth2 authentication?',
        phase_number: 3,
        phase_name: 'Implementation',
      });
      assert.deepEqual(top.span, [11, 13]);

      // the seed's chunk id finds its phase; --type knowledge keeps documents only
      const byId = await engine.search('conv-oauth-impl-2025-12-15-phase3');
      assert.equal(byId.matches[0].content.symbol, 'conv-oauth-impl-2025-12-15-phase3');
      const know = await engine.search('password', { types: ['knowledge'] });
      assert.ok(know.matches.length > 0);
      assert.ok(know.matches.every((m) => m.content.kind === 'section' || m.content.kind === 'text'), know.matches.map((m) => m.content.kind).join());
      assert.ok(know.matches.some((m) => m.content.symbol === 'conv-oauth-impl-2025-12-15-phase2'));

      // a log outside the knowledge folders is recognised by its content
      const cache = await engine.search('least recently used eviction');
      assert.equal(cache.matches[0].content.symbol, 'conv-cache-decisions-2025-11-02-phase1');
      assert.equal(cache.matches[0].content.metadata?.query, 'should the cache be per user?');

      // Markdown documentation: heading path as the title
      const docs = await engine.search('build from source', { types: ['knowledge'] });
      assert.equal(docs.matches[0].content.symbol, 'Stockroom > Install > From source');
      assert.deepEqual(docs.matches[0].span, [7, 10]);
      assert.equal(docs.matches[0].content.metadata, undefined);
    });

    it('keeps knowledge-folder files on per-file updates and drops them when deleted', async () => {
      await engine.index();
      writeFileSync(join(root, LOG), FILES[LOG].replace('Phase 9: Response', 'Phase 4: Verification').replace('Final response', 'Verified the refresh flow'));
      const updated = await engine.updateFiles([LOG]);
      assert.equal(updated.filesIndexed, 1);
      const hit = await engine.search('verified the refresh flow');
      assert.equal(hit.matches[0].content.symbol, 'conv-oauth-impl-2025-12-15-phase4');
      // a full run leaves it in place too
      const again = await engine.index();
      assert.equal(again.filesRemoved, 0);
      unlinkSync(join(root, LOG));
      const removed = await engine.updateFiles([LOG]);
      assert.equal(removed.filesRemoved, 1);
      const gone = await engine.search('conv-oauth-impl-2025-12-15-phase4');
      assert.ok(!gone.matches.some((m) => m.file.path === LOG));
    });

    it('indexes a knowledge folder outside the workspace under absolute paths, and drops its deleted logs', async () => {
      const outside = tempDir('quarry-outside-conversations-');
      try {
        const log = join(outside, '2025', '12', 'deploy-2025-12-20.md');
        writeFiles(outside, { '2025/12/deploy-2025-12-20.md': '# Conversation: Deploys\nQuery: how do canary deploys roll back?\n\n## Phase 1: Assessment\nA canary deploy rolls back when the error budget burns faster than planned.\n' });
        writeFiles(root, { '.quarry/config.yml': `knowledge:\n  folders: [${JSON.stringify(outside)}]\n` });
        await engine.close();
        engine = await Engine.open(root, cfg.open);
        const summary = await engine.index();
        assert.deepEqual(summary.errors, []);
        const res = await engine.search('canary deploy rolls back');
        const top = res.matches[0];
        assert.equal(top.content.symbol, 'conv-deploy-2025-12-20-phase1');
        assert.equal(top.file.path, log.split(sep).join('/'));
        unlinkSync(log);
        const again = await engine.index();
        assert.equal(again.filesRemoved, 1);
        assert.ok(again.warnings.some((w) => w.startsWith('No conversation logs found in')), again.warnings.join('\n'));
        assert.ok(!(await engine.search('canary deploy rolls back')).matches.some((m) => m.content.symbol.startsWith('conv-deploy')));
      } finally {
        removeDir(outside);
      }
    });
  });
}
