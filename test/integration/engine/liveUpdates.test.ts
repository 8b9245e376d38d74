import assert from 'node:assert/strict';
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import { tempDir, writeFiles, removeDir } from '../../support/workspace';

describe('live updates: single files, unsaved buffers, workspace symbols', function () {
  this.timeout(60_000);
  let root: string;
  let engine: Engine;
  beforeEach(async () => {
    root = tempDir();
    writeFiles(root, {
      'src/orders.ts': 'export class OrderSummaryPanel {\n  render() { return 1; }\n}\n',
      'src/billing.py': 'def compute_invoice_total(lines):\n    return sum(lines)\n',
    });
    engine = await Engine.open(root, { embedding: null, reranker: null });
    await engine.index();
  });
  afterEach(async () => {
    await engine.close();
    removeDir(root);
  });

  it('updateFiles re-indexes exactly the given paths (edit, create, delete)', async () => {
    writeFileSync(join(root, 'src/billing.py'), 'def compute_refund_total(lines):\n    return -sum(lines)\n');
    writeFileSync(join(root, 'src/new.go'), 'package x\n\nfunc ShipParcel() {}\n');
    const s = await engine.updateFiles(['src/billing.py', join(root, 'src/new.go')]);
    assert.equal(s.filesIndexed, 2);
    assert.equal((await engine.search('compute_refund_total')).matches[0].file.path, 'src/billing.py');
    assert.equal((await engine.search('ShipParcel')).matches[0].file.path, 'src/new.go');
    assert.equal((await engine.search('compute_invoice_total')).matches.filter((m) => m.content.symbol === 'compute_invoice_total').length, 0);
    unlinkSync(join(root, 'src/new.go'));
    const d = await engine.updateFiles(['src/new.go']);
    assert.equal(d.filesRemoved, 1);
    assert.equal((await engine.search('ShipParcel')).matches.length, 0);
  });

  it('an unsaved buffer is searchable; closing it restores the disk version', async () => {
    await engine.setBuffer('src/orders.ts', 'export class OrderSummaryPanel {\n  renderDraftTotals() { return 2; }\n}\n');
    const found = await engine.search('renderDraftTotals');
    assert.equal(found.matches[0].file.path, 'src/orders.ts');
    await engine.setBuffer(join(root, 'src/orders.ts'), null);
    assert.ok((await engine.search('renderDraftTotals')).matches.every((m) => !m.content.content.includes('renderDraftTotals')));
    assert.equal((await engine.index()).filesIndexed, 0, 'the disk version is current again');
  });

  it('serves workspace symbols and refreshes them after updates', async () => {
    assert.equal((await engine.symbols('OSP'))[0].name, 'OrderSummaryPanel');
    writeFileSync(join(root, 'src/billing.py'), 'class InvoiceLedger:\n    pass\n');
    await engine.updateFiles(['src/billing.py']);
    const hits = await engine.symbols('InvoiceLedger');
    assert.equal(hits[0].match, 'exact');
    assert.equal(hits[0].path, 'src/billing.py');
    assert.equal(hits[0].startLine, 1);
  });
});
