import assert from 'node:assert/strict';
import { Engine } from '../../../server/src/engine/engine';
import { removeDir, tempDir, writeFiles } from '../../support/workspace';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';

/** "who calls X": the callers first, said so; a name nothing calls says that too, instead of passing word matches off. */
for (const cfg of RANKING_CONFIGURATIONS) {
  describe(`callers of a name (${cfg.label})`, function () {
    this.timeout(120_000);
    let root: string;
    let engine: Engine;
    before(async () => {
      root = tempDir('quarry-callers-');
      writeFiles(root, {
        'src/format.ts': [
          'export function formatPrice(cents: number): string {\n  return `$${(cents / 100).toFixed(2)}`;\n}',
          'export function formatLegacyPrice(cents: number): string {\n  return `USD ${cents / 100}`;\n}',
        ].join('\n\n'),
        'src/cart.ts': "import { formatPrice } from './format';\n\nexport function cartTotalLabel(items: number[]): string {\n  return formatPrice(items.reduce((a, b) => a + b, 0));\n}\n",
        'src/receipt.ts': "import { formatPrice } from './format';\n\nexport function receiptLine(name: string, cents: number): string {\n  return `${name}: ${formatPrice(cents)}`;\n}\n",
        'src/legacy.ts': 'export function priceFormatNotes(): string[] {\n  return ["legacy price format kept for old invoices"];\n}\n',
        // hands formatPrice on without calling it: a reference, after the calls
        'src/registry.ts': "import { formatPrice } from './format';\n\nexport const formatters = { price: formatPrice, label: 'price' };\n",
        // names formatPrice in its doc comment only: it calls nothing
        'src/hint.ts': '/** The rule behind formatPrice: cents, two decimals. */\nexport function priceHint(): string {\n  // formatPrice rounds; this only describes it\n  return "cents";\n}\n',
      });
      engine = await Engine.open(root, cfg.open);
      await engine.index();
    });
    after(async () => {
      await engine?.close();
      removeDir(root);
    });

    it('lists the callers, each saying it calls the name, with no warning', async () => {
      const res = await engine.search('who calls formatPrice', { limit: 5 });
      const callers = res.matches.filter((m) => m.why === 'calls or refers to `formatPrice`').map((m) => m.content.symbol).sort();
      assert.deepEqual(callers, ['cartTotalLabel', 'formatters', 'receiptLine'], res.matches.map((m) => `${m.content.symbol}: ${m.why}`).join('\n'));
      // the units that call it before the one that only hands it on
      const at = (s: string) => res.matches.findIndex((m) => m.content.symbol === s);
      assert.ok(at('formatters') > at('cartTotalLabel') && at('formatters') > at('receiptLine'), res.matches.map((m) => `${m.content.symbol}: ${m.why}`).join('\n'));
      assert.ok(res.matches[at('formatters')]!.explanation.some((l) => l.includes('refers to formatPrice without calling it')));
      // a unit that names it in a comment only is no caller (and is not listed with them)
      const hint = res.matches.findIndex((m) => m.content.symbol === 'priceHint');
      assert.ok(hint === -1 || hint >= 3, res.matches.map((m) => `${m.content.symbol}: ${m.why}`).join('\n'));
      assert.ok(!res.warnings.some((w) => w.startsWith('No code among the results calls')), res.warnings.join('\n'));
    });

    it('the callers come first, the definition right after them', async () => {
      const res = await engine.search('who calls formatPrice', { limit: 5 });
      const order = res.matches.map((m) => m.content.symbol);
      assert.deepEqual(order.slice(0, 2).sort(), ['cartTotalLabel', 'receiptLine'], order.join(', '));
      assert.equal(order[2], 'formatPrice', order.join(', '));
      assert.equal(res.matches[2]!.why, 'defines `formatPrice`');
    });

    it('a name nothing calls: a warning says so', async () => {
      const res = await engine.search('who calls formatLegacyPrice', { limit: 5 });
      assert.ok(res.warnings.some((w) => w.startsWith('No code among the results calls or refers to `formatLegacyPrice`')), res.warnings.join('\n'));
      assert.ok(!res.matches.some((m) => m.why.startsWith('calls or refers to')), res.matches.map((m) => `${m.content.symbol}: ${m.why}`).join('\n'));
    });
  });
}
