/** Per-language chunk boundaries and metadata, over the polyglot fixture and small inline samples. */
import assert from 'node:assert/strict';
import { bySymbol, chunk, chunkFixture } from './helpers';

describe('chunking: per-language metadata', () => {
  it('typescript: interfaces, class with implements/extends, functions, arrow functions', async () => {
    const chunks = await chunkFixture('web/src/catalog.ts');
    const cls = bySymbol(chunks, 'InventoryCatalog');
    assert.equal(cls.kind, 'class');
    assert.equal(cls.language, 'typescript');
    assert.equal(cls.source, 'ast');
    assert.deepEqual(cls.conformances, ['EventEmitter', 'ProductLookup']);
    assert.deepEqual(cls.symbols, ['InventoryCatalog', 'constructor', 'upsertProduct', 'findBySku', 'search']);
    assert.equal(cls.doc, 'An in-memory product catalog that emits `changed` whenever a product is added or removed.');
    assert.equal(cls.signature, 'export class InventoryCatalog extends EventEmitter implements ProductLookup');
    assert.equal(cls.semanticClass, 'DEFINITION_TYPE');
    assert.equal(cls.startLine, 17);
    assert.equal(cls.endLine, 45);
    assert.ok(cls.references.includes('CatalogProduct'));
    assert.ok(!cls.references.includes('InventoryCatalog'));
    const fn = bySymbol(chunks, 'formatPriceCents');
    assert.equal(fn.kind, 'function');
    assert.equal(fn.semanticClass, 'DEFINITION_CALLABLE');
    assert.equal(fn.signature, 'export function formatPriceCents(cents: number, currency: string): string');
    assert.match(fn.doc, /^Formats a price in cents/);
    const arrow = bySymbol(chunks, 'parseCatalogTags');
    assert.equal(arrow.kind, 'function');
    assert.equal(bySymbol(chunks, 'ProductLookup').kind, 'interface');
  });

  it("typescript: a module augmentation (`declare module 'express'`) is named by the module, without its quotes", async () => {
    const chunks = await chunk('typescript', 'src/types/express.d.ts', "declare module 'express' {\n  interface Request {\n    user?: { id: string };\n  }\n}\n");
    const aug = bySymbol(chunks, 'express.Request');
    assert.equal(aug.kind, 'interface');
    assert.ok(chunks.some((c) => c.symbol === 'express' && c.kind === 'namespace'), chunks.map((c) => c.symbol).join(', '));
    const mod = chunks.find((c) => c.symbol === 'express')!;
    assert.deepEqual([mod.nameRange!.line, mod.nameRange!.column, mod.nameRange!.endColumn], [1, 17, 24]);
  });

  it('tsx: components, type aliases, class components', async () => {
    const chunks = await chunkFixture('web/ui/OrderSummary.tsx');
    assert.equal(bySymbol(chunks, 'OrderSummaryPanel').kind, 'function');
    assert.equal(bySymbol(chunks, 'OrderSummaryProps').kind, 'type_alias');
    const badge = bySymbol(chunks, 'LegacyBasketBadge');
    assert.deepEqual(badge.conformances, ['Component']);
    assert.deepEqual(badge.symbols, ['LegacyBasketBadge', 'render']);
  });

  it('javascript: functions, classes, const arrow functions', async () => {
    const chunks = await chunkFixture('scripts/restock.js');
    assert.equal(bySymbol(chunks, 'readRestockCsv').kind, 'function');
    assert.equal(bySymbol(chunks, 'RestockBatcher').kind, 'class');
    assert.equal(bySymbol(chunks, 'scheduleRestockRun').kind, 'function');
    const js = await chunk('javascript', 'a.js', 'class A extends mod.Base {\n  m() { return 1; }\n}\n');
    assert.deepEqual(js[0].conformances, ['Base']);
  });

  it('python: classes with base classes (object skipped), docstrings, functions', async () => {
    const chunks = await chunkFixture('services/pricing/discounts.py');
    const rule = bySymbol(chunks, 'VolumeDiscountRule');
    assert.equal(rule.kind, 'class');
    assert.deepEqual(rule.conformances, ['DiscountRule']);
    assert.equal(rule.doc, 'Takes a percentage off when the quantity reaches a threshold.');
    assert.deepEqual(rule.symbols, ['VolumeDiscountRule', '__init__', 'apply']);
    assert.deepEqual(bySymbol(chunks, 'DiscountRule').conformances, ['ABC']);
    const fn = bySymbol(chunks, 'apply_discount_chain');
    assert.equal(fn.doc, 'Applies every rule in order and never lets the total drop below zero.');
    assert.equal(fn.signature, 'def apply_discount_chain(quote: PriceQuote, rules: list[DiscountRule]) -> PriceQuote');
  });

  it('go: methods as Receiver.Method, embedding as conformances, preceding // docs', async () => {
    const chunks = await chunkFixture('services/ledger/stock.go');
    const m = bySymbol(chunks, 'MemoryLedger.ReserveUnits');
    assert.equal(m.kind, 'method');
    assert.equal(m.container, 'MemoryLedger');
    assert.equal(m.name, 'ReserveUnits');
    assert.equal(m.doc, 'ReserveUnits takes qty units of a SKU out of stock, or fails with ErrInsufficientStock.');
    assert.deepEqual(bySymbol(chunks, 'StockLedger').conformances, ['StockReader', 'fmt.Stringer'], 'an embedded type keeps its package');
    assert.equal(bySymbol(chunks, 'StockLedger').kind, 'interface');
    const s = bySymbol(chunks, 'MemoryLedger');
    assert.equal(s.kind, 'struct');
    assert.deepEqual(s.conformances, ['auditTrail']);
    assert.equal(bySymbol(chunks, 'NewMemoryLedger').kind, 'function');
  });

  it('go: a var or const declaration names its own specs, not the locals of a function literal it holds', async () => {
    const src = 'package x\n\nvar (\n\ta = 1\n\tb, c = 2, 3\n)\n\n// f counts.\nvar f = func() int {\n\tvar inner = 5\n\tconst k = 1\n\treturn inner + k\n}\n\nconst (\n\tX = iota\n\tY\n)\n';
    const chunks = await chunk('go', 'x.go', src, { minTokens: 1 });
    const names = (first: string) => {
      const c = chunks.find((x) => x.symbols.includes(first));
      assert.ok(c, `${first}: ${chunks.map((x) => x.symbols.join('/')).join(', ')}`);
      return c!.symbols;
    };
    assert.deepEqual([...names('a')].sort(), ['a', 'b', 'c']);
    assert.deepEqual(names('f'), ['f']);
    assert.deepEqual([...names('X')].sort(), ['X', 'Y']);
    assert.ok(!chunks.some((c) => c.symbols.includes('inner') || c.symbols.includes('k')), 'a local of the literal is no declared name');
  });

  it('rust: structs/enums/traits, impl blocks named by type with trait conformances', async () => {
    const chunks = await chunkFixture('engine/order_ledger.rs');
    assert.equal(bySymbol(chunks, 'FulfilmentState').kind, 'enum');
    const order = chunks.find((c) => c.symbol === 'Order' && c.kind === 'struct')!;
    assert.equal(order.doc, 'A customer order with its lines.');
    assert.ok(order.content.startsWith('/// A customer order'), 'doc comment and #[derive] belong to the struct chunk');
    const impls = chunks.filter((c) => c.kind === 'impl');
    assert.equal(impls.length, 3);
    assert.ok(impls.every((c) => c.symbol === 'Order'));
    assert.deepEqual(impls.map((c) => c.conformances), [[], ['Billable'], ['Display']]);
    assert.deepEqual(impls[0].symbols, ['Order', 'new', 'add_line']);
    assert.deepEqual(bySymbol(chunks, 'Billable').conformances, ['Debug']);
    assert.equal(bySymbol(chunks, 'Billable').kind, 'trait');
    // an impl for a reference is named after the type, as any other (hyper's `impl Service for &'_ Client<C, B>`)
    const byRef = await chunk('rust', 'client.rs', "impl<C, B> Service<Request<B>> for &'_ Client<C, B> {\n    type Error = Error;\n    fn call(&mut self, req: Request<B>) -> Self::Future {\n        self.request(req)\n    }\n}\n");
    assert.ok(byRef.some((c) => c.kind === 'impl' && c.symbol === 'Client'), byRef.map((c) => `${c.kind} ${c.symbol}`).join(', '));
    const big = await chunk('rust', 'x.rs', 'impl Order {\n' + Array.from({ length: 30 }, (_, i) => `    /// Method ${i}.\n    pub fn m${i}(&self, factor: u32) -> u32 {\n        let base = self.id * factor + ${i};\n        let adjusted = if base > 100 { base - 100 } else { base + self.offset };\n        adjusted * 2\n    }\n`).join('') + '}\n', { targetTokens: 200 });
    const m3 = bySymbol(big, 'Order.m3');
    assert.equal(m3.container, 'Order');
    assert.equal(m3.kind, 'method');
  });

  it('java: classes, interfaces, records, extends/implements', async () => {
    const chunks = await chunkFixture('backend/app/WarehouseService.java');
    const svc = bySymbol(chunks, 'WarehouseService');
    assert.deepEqual(svc.conformances, ['AbstractService', 'AutoCloseable', 'Auditable']);
    assert.equal(svc.doc, 'Picks, packs and ships orders from one warehouse.');
    assert.ok(svc.symbols.includes('dispatchParcel'));
    assert.equal(bySymbol(chunks, 'ParcelCarrier').kind, 'interface');
    assert.equal(bySymbol(chunks, 'BinLocation').kind, 'class');
  });

  it('csharp: namespace-qualified types, base lists, XML doc cleaned', async () => {
    const chunks = await chunkFixture('backend/app/InvoiceRenderer.cs');
    const r = bySymbol(chunks, 'Stockroom.Billing.InvoiceRenderer');
    assert.equal(r.container, 'Stockroom.Billing');
    assert.equal(r.name, 'InvoiceRenderer');
    assert.deepEqual(r.conformances, ['RendererBase', 'IDocumentRenderer', 'IDisposable']);
    assert.equal(r.doc, 'Renders invoices as plain text with aligned columns.');
    assert.equal(bySymbol(chunks, 'Stockroom.Billing.PaymentTerms').kind, 'enum');
    assert.equal(bySymbol(chunks, 'Stockroom.Billing').kind, 'namespace');
  });

  it('kotlin: classes, objects, interfaces, enums, extension functions', async () => {
    const chunks = await chunkFixture('android/ShipmentTracker.kt');
    const t = bySymbol(chunks, 'ShipmentTracker');
    assert.deepEqual(t.conformances, ['BaseTracker', 'ShipmentListener']);
    assert.equal(bySymbol(chunks, 'ShipmentListener').kind, 'interface');
    assert.equal(bySymbol(chunks, 'DeliveryWindow').kind, 'enum');
    assert.equal(bySymbol(chunks, 'TrackerRegistry').kind, 'class');
    const ext = bySymbol(chunks, 'TrackingEvent.toNotificationText');
    assert.equal(ext.container, 'TrackingEvent');
    assert.equal(ext.name, 'toNotificationText');
    assert.match(ext.doc, /^Formats a tracking event/);
  });

  it('swift: protocol, struct, extension with conformance, class, free function', async () => {
    const chunks = await chunkFixture('ios/ChunkStore.swift');
    assert.equal(bySymbol(chunks, 'ChunkStore').kind, 'protocol');
    const ext = chunks.find((c) => c.kind === 'extension')!;
    assert.equal(ext.symbol, 'User');
    assert.deepEqual(ext.conformances, ['Codable']);
    assert.deepEqual(ext.symbols, ['User', 'avatarInitials']);
    assert.equal(chunks.find((c) => c.symbol === 'User' && c.kind === 'struct')!.doc, 'A customer of the shop.');
    const store = bySymbol(chunks, 'MemoryChunkStore');
    assert.equal(store.kind, 'class');
    assert.deepEqual(store.conformances, ['NSObject', 'ChunkStore']);
    assert.equal(bySymbol(chunks, 'ProductBadge').kind, 'enum');
    assert.equal(bySymbol(chunks, 'makeCatalogCacheKey').kind, 'function');
  });

  it('c: functions, structs, typedef enums', async () => {
    const chunks = await chunkFixture('native/barcode.c');
    const f = bySymbol(chunks, 'ean13_check_digit');
    assert.equal(f.kind, 'function');
    assert.equal(f.signature, 'int ean13_check_digit(const char *digits)');
    assert.match(f.doc, /^Computes the EAN-13 check digit/);
    assert.equal(bySymbol(chunks, 'BarcodeScan').kind, 'struct');
    assert.equal(bySymbol(chunks, 'ScanSource').kind, 'enum');
  });

  it('cpp: namespaces, base classes, out-of-line Class::method definitions', async () => {
    const chunks = await chunkFixture('native/pick_list.cpp');
    const cls = bySymbol(chunks, 'stockroom.PickListBuilder');
    assert.deepEqual(cls.conformances, ['RouteStrategy', 'NonCopyable']);
    const m = bySymbol(chunks, 'stockroom.PickListBuilder.totalUnits');
    assert.equal(m.kind, 'method');
    assert.equal(m.container, 'stockroom.PickListBuilder');
    const ctor = await chunk('cpp', 'c.cpp', 'Cart::Cart(int n) : n_(n) {\n  reset();\n  log("created a cart with a capacity");\n}\n');
    assert.equal(ctor[0].kind, 'constructor');
    assert.equal(ctor[0].symbol, 'Cart.Cart');
    assert.equal(bySymbol(chunks, 'splitIntoTrolleys').kind, 'function');
  });

  it('ruby: modules, classes with < Base and include, def self.x', async () => {
    const chunks = await chunkFixture('backend/app/returns.rb');
    const r = bySymbol(chunks, 'ReturnRequest');
    assert.deepEqual(r.conformances, ['ApplicationRecord', 'ReturnPolicy', 'Comparable']);
    assert.equal(r.doc, 'A request from a customer to send items back.');
    assert.ok(r.symbols.includes('from_payload'));
    assert.equal(bySymbol(chunks, 'ReturnPolicy').kind, 'module');
    const small = await chunk('ruby', 'a.rb', 'module Shop\n  class Cart < Base\n    def self.build\n      new\n    end\n  end\nend\n');
    const cart = bySymbol(small, 'Shop.Cart');
    assert.equal(cart.container, 'Shop');
    assert.deepEqual(cart.conformances, ['Base']);
    // a class built on a generated one conforms to the generator's receiver, not to `new`
    const built = await chunk('ruby', 'o.rb', 'module Http\n  class ProxyOptions < Options.new(:uri, :user,\n      :password)\n    def user\n      self[:user]\n    end\n  end\n  class Point < ::Struct.new(:x, :y); end\n  class Pair < Data.define(:a, :b); end\nend\n');
    assert.deepEqual(bySymbol(built, 'Http.ProxyOptions').conformances, ['Options']);
    assert.deepEqual(bySymbol(built, 'Http.Point').conformances, ['Struct']);
    assert.deepEqual(bySymbol(built, 'Http.Pair').conformances, ['Data']);
  });

  it('php: interfaces, traits, classes with extends/implements/use, functions', async () => {
    const chunks = await chunkFixture('backend/app/SupplierGateway.php');
    const g = bySymbol(chunks, 'SupplierGateway');
    assert.deepEqual(g.conformances, ['BaseGateway', 'PurchaseOrderSender', 'JsonSerializable', 'RetriesRequests']);
    assert.equal(g.doc, "Talks to the supplier's HTTP API to place and track purchase orders.");
    assert.equal(bySymbol(chunks, 'RetriesRequests').kind, 'trait');
    assert.equal(bySymbol(chunks, 'PurchaseOrderSender').kind, 'interface');
    assert.equal(bySymbol(chunks, 'normalize_supplier_sku').kind, 'function');
  });
});
