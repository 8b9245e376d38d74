/**
 * Issue 20: `quarry index --full` builds a new generation beside the current one and switches to it in one atomic step
 * when it is complete (server/src/engine/store/generations.ts). Real CLI processes, a real `quarry mcp` server, real
 * LanceDB, real lexical index:
 *   - readers — a long-running engine in this process, the MCP server, CLI searches — answer in full from the old
 *     generation during the rebuild (every answer is the old index's or the rebuilt one's, never a partial one), follow
 *     the switch without a restart, and the old generation is removed;
 *   - a rebuild killed after it created its generation leaves the old one answering in full (a note, no problem); the
 *     next `quarry index --full` removes the abandoned generation, a plain `quarry index` resumes it;
 *   - an index in the layout before generations (generation 0) is rebuilt into a generation folder with its vectors
 *     reused (nothing embedded again) and its old files removed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, tempDir, removeDir } from '../../support/workspace';
import { cli, cliAsync } from '../../support/reliability';
import { applyVersionB, copyTree, fingerprint, Fingerprint, generationLayout, layoutProblems, QUERIES, writeConfig, writeVersionA } from '../../support/faultTrials';
import { Engine } from '../../../server/src/engine/engine';

const core = (f: Fingerprint): Fingerprint => ({ chunks: f.chunks, files: f.files, answers: f.answers });
const REBUILD_NOTE = /^A full rebuild is in progress/;

/** Starts `quarry index --full` and kills it (SIGKILL) as soon as its new generation folder exists. */
function killAfterNewGeneration(root: string): Promise<{ killed: boolean; generation?: string }> {
  return new Promise((resolve) => {
    const before = new Set(generationLayout(root).folders);
    const child = spawn(process.execPath, [CLI, 'index', '-p', root, '-q', '--full'], { env: { ...process.env, QUARRY_LOG_LEVEL: 'silent' }, stdio: 'ignore' });
    let generation: string | undefined;
    const timer = setInterval(() => {
      generation = generationLayout(root).folders.find((f) => !before.has(f));
      // its store exists: the rebuild is under way
      if (generation && existsSync(join(root, '.quarry', 'generations', generation, 'store.json'))) {
        clearInterval(timer);
        child.kill('SIGKILL');
      }
    }, 5);
    child.on('close', (_code, signal) => {
      clearInterval(timer);
      resolve({ killed: signal === 'SIGKILL', generation });
    });
  });
}

describe('reliability: `index --full` builds a new generation and switches when complete (issue 20)', function () {
  this.timeout(300_000);
  let base: string;
  let refA: Fingerprint;
  let refB: Fingerprint;
  const dir = (name: string) => join(base, name);

  before(async () => {
    base = tempDir('quarry-generations-');
    writeVersionA(dir('A-indexed'));
    writeConfig(dir('A-indexed'), 'rules');
    assert.equal(cli(['index', '-p', dir('A-indexed'), '-q']).status, 0);
    refA = core(await fingerprint(dir('A-indexed')));
    writeVersionA(dir('B-clean'));
    applyVersionB(dir('B-clean'));
    writeConfig(dir('B-clean'), 'rules');
    assert.equal(cli(['index', '-p', dir('B-clean'), '-q']).status, 0);
    refB = core(await fingerprint(dir('B-clean')));
    assert.notDeepEqual(refA.answers, refB.answers);
  });
  after(() => removeDir(base));

  it('readers in other processes (a long-running engine, `quarry mcp`, CLI searches) answer in full during the rebuild and follow the switch', async () => {
    const root = dir('concurrent');
    copyTree(dir('A-indexed'), root);
    applyVersionB(root);
    assert.equal(generationLayout(root).current, '', 'the index starts in generation 0 (the layout before generations)');

    const reader = await Engine.open(root);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--no-index', '-p', root],
      env: { ...(process.env as Record<string, string>), LANCEDB_LOG: 'error', QUARRY_LOG_LEVEL: 'silent' },
      stderr: 'pipe',
    });
    const mcp = new Client({ name: 'quarry-generations', version: '0.0.0' });
    await mcp.connect(transport);
    const mcpAnswer = async (q: string) => {
      const r = (await mcp.callTool({ name: 'find_code', arguments: { query: q, max_results: 8 } })) as CallToolResult;
      const text = (r.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');
      if (r.isError) throw new Error(`find_code failed: ${text}`);
      const res = (r.structuredContent ?? JSON.parse(text)) as { matches: Array<{ file: { path: string }; content: { line_range: number[] } }>; warnings: string[] };
      return { answer: res.matches.map((m) => `${m.file.path}:${m.content.line_range.join('-')}`), warnings: res.warnings };
    };
    try {
      for (const q of QUERIES) assert.deepEqual((await mcpAnswer(q)).answer, refA.answers[q], `MCP before the rebuild: ${q}`);

      const failures: string[] = [];
      const seen = { old: 0, rebuilt: 0, reads: 0, mcp: 0, cli: 0 };
      const check = (who: string, q: string, answer: string[], warnings: string[]) => {
        seen.reads++;
        if (JSON.stringify(answer) === JSON.stringify(refA.answers[q])) seen.old++;
        else if (JSON.stringify(answer) === JSON.stringify(refB.answers[q])) seen.rebuilt++;
        else failures.push(`${who}: "${q}" answered with neither the old nor the rebuilt index: ${JSON.stringify(answer)}`);
        const other = warnings.filter((w) => !REBUILD_NOTE.test(w));
        if (other.length) failures.push(`${who}: "${q}" warned: ${other.join('; ')}`);
      };
      let done = false;
      const rebuild = cliAsync(['index', '-p', root, '--full', '-q']).finally(() => (done = true));
      // CLI searches (each a new process) started while the rebuild runs
      const cliReads = (async () => {
        while (!done) {
          const q = QUERIES[seen.cli % QUERIES.length]!;
          const r = await cliAsync(['search', q, '-p', root, '-o', 'json', '-l', '8']);
          if (r.status !== 0) failures.push(`CLI search "${q}" failed: ${r.stderr}`);
          else {
            const res = JSON.parse(r.stdout) as { warnings: string[]; matches: Array<{ file: { path: string }; content: { line_range: number[] } }> };
            check('CLI search', q, res.matches.map((m) => `${m.file.path}:${m.content.line_range.join('-')}`), res.warnings);
          }
          seen.cli++;
        }
      })();
      while (!done) {
        for (const q of QUERIES) {
          const r = await reader.search(q, { limit: 8, explain: false });
          check('engine reader', q, r.matches.map((m) => `${m.file.path}:${m.content.line_range.join('-')}`), r.warnings);
        }
        const q = QUERIES[seen.mcp++ % QUERIES.length]!;
        const m = await mcpAnswer(q);
        check('MCP reader', q, m.answer, m.warnings);
      }
      const r = await rebuild;
      await cliReads;
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(failures.slice(0, 10), [], `${failures.length} failures in ${seen.reads} reads`);
      assert.ok(seen.old > 0, `readers answered during the rebuild (${JSON.stringify(seen)})`);

      // after the switch: every reader answers from the new generation, without a restart; the old one is gone
      const layout = generationLayout(root);
      assert.notEqual(layout.current, '', 'the index now lives in a generation folder');
      assert.deepEqual(layoutProblems(root), []);
      for (const q of QUERIES) {
        const res = await reader.search(q, { limit: 8, explain: false });
        assert.deepEqual(res.matches.map((m) => `${m.file.path}:${m.content.line_range.join('-')}`), refB.answers[q], `engine reader after the switch: ${q}`);
        assert.deepEqual(res.warnings, []);
        assert.deepEqual((await mcpAnswer(q)).answer, refB.answers[q], `MCP reader after the switch: ${q}`);
      }
      const status = await reader.status();
      assert.deepEqual({ chunks: status.chunks, files: status.files, problems: status.problems }, { chunks: refB.chunks, files: refB.files, problems: [] });
      process.stdout.write(`      reads during the rebuild: ${JSON.stringify(seen)}\n`);

      // a second rebuild: the readers follow again (generation N -> N+1), and generation N is removed
      assert.equal(cli(['index', '-p', root, '--full', '-q']).status, 0);
      const next = generationLayout(root);
      assert.notEqual(next.current, layout.current);
      assert.deepEqual(next.folders, [next.current]);
      for (const q of QUERIES) assert.deepEqual((await reader.search(q, { limit: 8, explain: false })).matches.map((m) => `${m.file.path}:${m.content.line_range.join('-')}`), refB.answers[q]);
      assert.deepEqual((await mcpAnswer('TokenBucket take')).answer, refB.answers['TokenBucket take']);
    } finally {
      await mcp.close().catch(() => undefined);
      await reader.close();
    }
  });

  it('a rebuild killed in its new generation leaves the old one answering in full; `index --full` removes the abandoned generation', async () => {
    const root = dir('killed-full');
    copyTree(dir('A-indexed'), root);
    applyVersionB(root);
    const kill = await killAfterNewGeneration(root);
    assert.ok(kill.killed && kill.generation, 'killed while its generation was being written');
    assert.ok(generationLayout(root).folders.includes(kill.generation!), 'the partial generation is there');

    const now = await fingerprint(root);
    assert.deepEqual(core(now), refA, 'the old generation answers, in full');
    assert.deepEqual([...now.problems, ...now.warnings], []);
    assert.equal(now.notes.length, 1);
    assert.match(now.notes[0]!, /full rebuild .*did not finish.*previous complete build/);
    const status = JSON.parse(cli(['status', '-p', root, '--json']).stdout) as { health: { status: string }; notes: string[] };
    assert.equal(status.health.status, 'healthy');
    assert.match(cli(['status', '-p', root]).stdout, /Notes:\n {2}- a full rebuild/);

    assert.equal(cli(['index', '-p', root, '--full', '-q']).status, 0);
    const layout = generationLayout(root);
    assert.ok(!layout.folders.includes(kill.generation!), 'the abandoned generation was removed');
    assert.deepEqual(layoutProblems(root), []);
    const after = await fingerprint(root);
    assert.deepEqual(core(after), refB);
    assert.deepEqual([...after.problems, ...after.warnings, ...after.notes], []);
  });

  it('a plain `quarry index` resumes a killed rebuild in its own generation, then switches', async () => {
    const root = dir('resumed-full');
    copyTree(dir('A-indexed'), root);
    applyVersionB(root);
    const kill = await killAfterNewGeneration(root);
    assert.ok(kill.killed && kill.generation);
    const r = cli(['index', '-p', root, '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.match((JSON.parse(r.stdout) as { resumed?: string }).resumed ?? '', /interrupted full rebuild/);
    assert.equal(generationLayout(root).current, kill.generation, 'the resumed generation became the current one');
    assert.deepEqual(layoutProblems(root), []);
    const after = await fingerprint(root);
    assert.deepEqual(core(after), refB);
    assert.deepEqual([...after.problems, ...after.warnings, ...after.notes], []);
  });

  it('an index in the layout before generations is rebuilt into a generation folder, its vectors reused and its old files removed', async () => {
    const root = dir('legacy-default');
    writeVersionA(root);
    writeConfig(root, 'default');
    assert.equal(cli(['index', '-p', root, '-q']).status, 0);
    const q = join(root, '.quarry');
    assert.ok(existsSync(join(q, 'lancedb', 'chunks.lance')) && existsSync(join(q, 'state.json')), 'generation 0: the tables and state directly under .quarry');
    const before = await fingerprint(root);
    const r = cli(['index', '-p', root, '--full', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const summary = JSON.parse(r.stdout) as { embedding?: { embedded: number; cached: number } };
    assert.equal(summary.embedding?.embedded, 0, 'no vector computed again');
    assert.ok((summary.embedding?.cached ?? 0) > 0);
    const layout = generationLayout(root);
    assert.notEqual(layout.current, '');
    assert.deepEqual(layoutProblems(root), []);
    // the shared folder keeps the vector tables only
    assert.deepEqual(readdirSync(join(q, 'lancedb')).filter((f) => !f.startsWith('vectors_')), []);
    const after = await fingerprint(root);
    assert.deepEqual(core(after), core(before));
    assert.deepEqual([...after.problems, ...after.warnings], []);
  });
});
