import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { copyFixture, removeDir, REPO_ROOT } from '../../support/workspace';

interface Expected {
  query: string;
  path: string;
  symbol: string;
}

const expectedFile = join(REPO_ROOT, 'test', 'fixtures', 'polyglot', 'expected-definitions.json');
const expected: Expected[] = existsSync(expectedFile) ? JSON.parse(readFileSync(expectedFile, 'utf8')) : [];

describe('identifier search returns the defining chunk first (polyglot fixture)', function () {
  this.timeout(180_000);
  let root: string;
  let engine: Engine;
  before(async () => {
    root = copyFixture('polyglot');
    engine = await Engine.open(root);
    const s = await engine.index();
    assert.equal(s.errors.length, 0, JSON.stringify(s.errors));
  });
  after(async () => {
    await engine?.close();
    removeDir(root);
  });

  it('has expectations for every required language', () => {
    const langs = new Set(expected.map((e) => e.path.split('.').pop()));
    for (const ext of ['ts', 'tsx', 'js', 'py', 'go', 'rs', 'java', 'cs', 'kt', 'swift', 'c', 'cpp', 'rb', 'php']) {
      assert.ok(langs.has(ext), `no expectation for .${ext}`);
    }
  });

  for (const e of expected) {
    it(`${e.query} → ${e.path} ${e.symbol}`, async () => {
      const res = await engine.search(e.query, { limit: 5 });
      const top = res.matches[0];
      assert.ok(top, `no results for ${e.query}`);
      assert.equal(`${top.file.path} ${top.content.symbol}`, `${e.path} ${e.symbol}`, `top results: ${res.matches.map((m) => `${m.file.path} ${m.content.symbol}`).join(' | ')}`);
    });
  }

  // Members of small classes live in their class's chunk: the chunk that defines them comes first, not a
  // chunk whose name merely shares a part of the identifier (ParcelCarrier for dispatchParcel).
  for (const e of [
    { query: 'dispatchParcel', path: 'backend/app/WarehouseService.java', symbol: 'WarehouseService' },
    { query: 'ComputeInvoiceVat', path: 'backend/app/InvoiceRenderer.cs', symbol: 'Stockroom.Billing.InvoiceRenderer' },
  ]) {
    it(`member ${e.query} → ${e.symbol}`, async () => {
      const top = (await engine.search(e.query, { limit: 5 })).matches[0];
      assert.equal(`${top.file.path} ${top.content.symbol}`, `${e.path} ${e.symbol}`);
      assert.ok(top.content.content.includes(e.query));
    });
  }

  it('explains the top result term by term', async () => {
    const res = await engine.search(expected[0].query, { limit: 1 });
    assert.ok(res.matches[0].explanation.some((l) => /^bm25 [\d.]+ = name:/.test(l)), res.matches[0].explanation.join('\n'));
  });
  it('a misspelt identifier: the results say they only share parts of it, and a warning names the declared names near it', async () => {
    const res = await engine.search('InventoryCatalg', { limit: 5 });
    assert.ok(res.matches.length > 0);
    const warning = res.warnings.find((w) => w.startsWith('Nothing in the index is named "InventoryCatalg"'));
    assert.ok(warning, res.warnings.join('\n'));
    assert.match(warning!, /Did you mean `InventoryCatalog`/);
    for (const m of res.matches) assert.doesNotMatch(m.why, /uses `InventoryCatalg`/, m.why);
    // the name spelt right: no such warning
    const right = await engine.search('InventoryCatalog', { limit: 5 });
    assert.ok(!right.warnings.some((w) => w.startsWith('Nothing in the index is named')), right.warnings.join('\n'));
  });
});
