import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import type { EngineContext } from '../../../server/src/engine/facade/context';
import { forgetLexicalAgreement, lexicalAgreementKnown, readStateIn } from '../../../server/src/engine/openIndex';
import { chunk } from '../../support/chunks';
import { removeDir, tempDir } from '../../support/workspace';

const ctxOf = (engine: Engine): EngineContext => (engine as unknown as { ctx: EngineContext }).ctx;

/**
 * The lexical index and the chunk store are written side by side; an index run compares every document id of both
 * only when a writer may have stopped between the two writes (issue 21: that comparison cost every editor save 30 ms
 * at 96k chunks). The generation's state records the lexical generation at which both are known to agree.
 */
describe('the lexical index and the chunk store: agreement known, compared only when not', function () {
  this.timeout(120_000);
  let root: string;
  let engine: Engine;
  beforeEach(async () => {
    root = tempDir('quarry-agree-');
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'a.ts'), 'export function parseLedger(text: string): string[] {\n  return text.split("\\n");\n}\n');
    engine = await Engine.open(root, { embedding: null, reranker: null, longRunning: true });
    await engine.index();
  });
  afterEach(async () => {
    await engine.close();
    removeDir(root);
  });

  /** A chunk written to the chunk store alone, as by a writer killed before its lexical commit. */
  async function writeStoreOnly(ctx: EngineContext): Promise<void> {
    const orphan = chunk({ path: 'src/orphan.ts', language: 'typescript', kind: 'function', name: 'quokkaBalance', content: 'export function quokkaBalance() { return 1; }' });
    await ctx.store.replacePaths(['src/orphan.ts'], [orphan]);
  }

  it('a run records the agreement; edits and buffers keep it', async () => {
    const ctx = ctxOf(engine);
    const dir = ctx.generation.dir;
    assert.equal(readStateIn(dir)?.lexicalAgrees, ctx.lexical.committedGeneration);
    writeFileSync(join(root, 'src', 'b.ts'), 'export const wombatRate = 3;\n');
    await engine.updateFiles(['src/b.ts']);
    assert.ok(lexicalAgreementKnown(dir, ctx.lexical), 'after a run over one file');
    await engine.setBuffer('src/b.ts', 'export const wombatRate = 4;\n');
    assert.ok(lexicalAgreementKnown(dir, ctx.lexical), 'after an unsaved buffer was written');
  });

  it('a writer that stopped between its writes (agreement not recorded): the next run compares and repairs', async () => {
    const ctx = ctxOf(engine);
    forgetLexicalAgreement(ctx.generation.dir);
    await writeStoreOnly(ctx);
    assert.equal((await engine.search('quokkaBalance', { limit: 3 })).matches.length, 0, 'not in the lexical index');
    await engine.index();
    assert.equal((await engine.search('quokkaBalance', { limit: 3 })).matches[0]?.content.symbol, 'quokkaBalance', 'rebuilt from the chunk store');
    assert.ok(lexicalAgreementKnown(ctx.generation.dir, ctx.lexical));
  });

  it('with the agreement recorded, a run does not compare (a write that broke the protocol goes unnoticed)', async () => {
    const ctx = ctxOf(engine);
    await writeStoreOnly(ctx);
    await engine.index();
    assert.equal((await engine.search('quokkaBalance', { limit: 3 })).matches.length, 0, 'no comparison: the orphan stays out');
  });
});
