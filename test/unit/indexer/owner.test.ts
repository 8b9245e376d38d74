import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { acquireIndexLock } from '../../../server/src/engine/indexer/lock';
import { IndexOwnership, liveOwner, lockHeldByLiveProcess, OwnerState, readOwner } from '../../../server/src/engine/indexer/owner';
import { removeDir, tempDir } from '../../support/workspace';

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

async function eventually(test: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const started = Date.now();
  while (!test()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('index ownership (.quarry/owner.json)', () => {
  let dir: string;
  const open: IndexOwnership[] = [];
  const claim = async (kind: 'lsp' | 'serve' | 'mcp', extra: Partial<Parameters<typeof IndexOwnership.claim>[1]> = {}) => {
    const o = await IndexOwnership.claim(dir, { kind, root: '/ws', pollMs: 20, lockWaitMs: 100, ...extra });
    open.push(o);
    return o;
  };
  const writeRecord = (info: Record<string, unknown>) => writeFileSync(join(dir, 'owner.json'), JSON.stringify({ host: hostname(), startedAt: 'then', id: 'x', root: '/ws', ...info }));

  beforeEach(() => {
    dir = join(tempDir('quarry-owner-'), '.quarry');
    mkdirSync(dir);
  });
  afterEach(() => {
    for (const o of open.splice(0)) o.close();
    removeDir(join(dir, '..'));
  });

  it('the first claimant owns the index and writes its record (pid, kind, MCP URL); close removes it', async () => {
    const o = await claim('lsp', { mcpUrl: 'http://127.0.0.1:1234/mcp' });
    assert.equal(o.owned, true);
    const rec = readOwner(dir)!;
    assert.equal(rec.pid, process.pid);
    assert.equal(rec.kind, 'lsp');
    assert.equal(rec.mcpUrl, 'http://127.0.0.1:1234/mcp');
    assert.equal(rec.alive, true);
    o.setMcpUrl('http://127.0.0.1:999/mcp');
    assert.equal(readOwner(dir)!.mcpUrl, 'http://127.0.0.1:999/mcp');
    o.close();
    assert.equal(existsSync(join(dir, 'owner.json')), false);
  });

  it('a claimant of equal or lower rank reads while a live owner holds the index', async () => {
    const first = await claim('lsp');
    const second = await claim('lsp');
    const mcp = await claim('mcp');
    assert.equal(first.owned, true);
    assert.equal(second.owned, false);
    assert.equal(mcp.owned, false);
    assert.equal(second.holder?.id, first.info.id);
    // Closing a reader never removes the owner's record.
    second.close();
    assert.equal(readOwner(dir)?.id, first.info.id);
  });

  it('a record whose pid is gone, or whose heartbeat stopped, is stale and taken over', async () => {
    writeRecord({ pid: deadPid(), kind: 'lsp' });
    assert.equal(readOwner(dir)?.alive, false);
    assert.equal(liveOwner(dir), undefined);
    const o = await claim('mcp');
    assert.equal(o.owned, true);
    o.close();

    writeRecord({ pid: process.pid, kind: 'lsp', id: 'frozen' });
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(dir, 'owner.json'), old, old);
    assert.equal(readOwner(dir)?.alive, false, 'no heartbeat for 2 minutes');
    assert.equal((await claim('mcp')).owned, true);
  });

  it('a higher rank takes over from a live owner, which steps down on its next poll', async () => {
    const changes: Array<[boolean, OwnerState | undefined]> = [];
    const mcp = await claim('mcp', { onChange: (owned, holder) => changes.push([owned, holder]) });
    assert.equal(mcp.owned, true);
    const lsp = await claim('lsp');
    assert.equal(lsp.owned, true);
    await eventually(() => changes.length > 0, 'the mcp owner to step down');
    assert.equal(changes[0][0], false);
    assert.equal(changes[0][1]?.kind, 'lsp');
    assert.equal(mcp.owned, false);
    // serve outranks mcp but not lsp
    assert.equal((await claim('serve')).owned, false);
  });

  it('a reader succeeds an owner that exits', async () => {
    const owner = await claim('lsp');
    const gained: boolean[] = [];
    const reader = await claim('mcp', { onChange: (owned) => gained.push(owned) });
    assert.equal(reader.owned, false);
    owner.close();
    await eventually(() => gained.includes(true), 'the reader to take over');
    assert.equal(reader.owned, true);
    assert.equal(readOwner(dir)?.id, reader.info.id);
  });

  it('claims race under the index lock: exactly one of several simultaneous claimants owns the index', async () => {
    const all = await Promise.all([claim('mcp'), claim('mcp'), claim('mcp'), claim('mcp')]);
    assert.equal(all.filter((o) => o.owned).length, 1);
    const winner = all.find((o) => o.owned)!;
    for (const o of all.filter((x) => !x.owned)) assert.equal(o.holder?.id, winner.info.id);
  });

  it('while a one-shot indexer holds the lock and nobody owns the index, a claimant reads, then claims once the lock is free', async () => {
    const release = acquireIndexLock(dir);
    assert.equal(lockHeldByLiveProcess(dir), true);
    const gained: boolean[] = [];
    const o = await claim('mcp', { onChange: (owned) => gained.push(owned) });
    assert.equal(o.owned, false);
    assert.equal(o.holder, undefined);
    release();
    await eventually(() => gained.includes(true), 'the claim after the lock was released');
    assert.equal(JSON.parse(readFileSync(join(dir, 'owner.json'), 'utf8')).id, o.info.id);
  });

  it('an owner whose record vanished writes it again', async () => {
    const o = await claim('serve');
    removeDir(join(dir, 'owner.json'));
    await eventually(() => readOwner(dir)?.id === o.info.id, 'the record to be rewritten');
    assert.equal(o.owned, true);
  });
});
