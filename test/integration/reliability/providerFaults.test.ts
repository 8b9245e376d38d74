/**
 * Issue 20: an embedding provider that refuses connections, rejects the key (401), answers malformed JSON or hangs.
 * `quarry index` still builds the keyword index (exit 0) and ends with a warning naming the cause and what search
 * does meanwhile; a search answers by keywords with a warning; a hung provider costs a search one call cut by the
 * query-time budget (≤ 2 s by default: `queryBudgetMs`), not retried. Real CLI, a local server speaking Voyage's wire
 * format (test/support/fakeVoyage.ts) or one that misbehaves below it.
 */
import assert from 'node:assert/strict';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, removeDir, writeFiles } from '../../support/workspace';
import { cliAsync } from '../../support/reliability';
import { startFakeVoyage, FAKE_VOYAGE_KEY, FakeVoyage } from '../../support/fakeVoyage';

function project(root: string, baseUrl: string, key = FAKE_VOYAGE_KEY): void {
  writeFiles(root, {
    'src/cart.ts': '/** Adds an item to the shopping cart. */\nexport function addToCart(cart: string[], item: string): string[] {\n  return [...cart, item];\n}\n',
    'src/tax.ts': '/** Computes the sales tax of an amount. */\nexport function computeTax(amount: number, rate: number): number {\n  return amount * rate;\n}\n',
  });
  mkdirSync(join(root, '.quarry'), { recursive: true });
  // short index-time limits keep the test fast; the query-time limits are the defaults (the contract under test)
  writeFileSync(
    join(root, '.quarry', 'config.yml'),
    ['embedding:', '  provider: voyage', '  voyage:', `    apiKey: ${key}`, `    baseUrl: ${baseUrl}`, '    outputDimension: 256', '    timeoutMs: 400', '    retryDelaysMs: [10, 20]', 'rerank:', '  provider: none'].join('\n') + '\n',
  );
}

/** A server that answers 200 with a body that is not JSON. */
async function malformedServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object": "list", "data": [');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server };
}

/** A loopback port with nothing listening (connection refused). */
async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}/v1`;
}

describe('reliability: a failing embedding provider is named, never quiet (issue 20)', function () {
  this.timeout(120_000);
  let fake: FakeVoyage;
  const roots: string[] = [];
  const fresh = () => {
    const r = tempDir('quarry-provider-');
    roots.push(r);
    return r;
  };

  before(async () => {
    fake = await startFakeVoyage({ dims: 256 });
  });
  afterEach(() => fake.reset());
  after(async () => {
    await fake.close();
    for (const r of roots) removeDir(r);
  });

  /** Index: exit 0, the keyword index complete, a warning naming `cause`; then a keyword search answers with a warning. */
  async function expectNamed(root: string, cause: RegExp): Promise<void> {
    const ix = await cliAsync(['index', '-p', root, '--json', '-q']);
    assert.equal(ix.status, 0, ix.stderr);
    const summary = JSON.parse(ix.stdout);
    assert.equal(summary.totalChunks, 2);
    const w = summary.warnings.find((x: string) => /^Embedding stopped after 0 of 2 chunks/.test(x));
    assert.ok(w, `no embedding warning in ${JSON.stringify(summary.warnings)}`);
    assert.match(w, cause);
    assert.match(w, /by keywords \(BM25\) only .*next `quarry index` embeds what is missing/);
    assert.match(ix.stderr, /^Warning: Embedding stopped/m, 'the warning is on stderr too');
    const s = await cliAsync(['search', 'compute the sales tax of an amount', '-p', root, '-o', 'json']);
    assert.equal(s.status, 0, s.stderr);
    const res = JSON.parse(s.stdout);
    assert.equal(res.matches[0]?.file.path, 'src/tax.ts');
    assert.ok(res.warnings.length > 0, 'the keyword-only answer says so');
  }

  it('connection refused: the warning names the address that cannot be reached', async () => {
    const url = await refusedUrl();
    const root = fresh();
    project(root, url);
    await expectNamed(root, new RegExp(`cannot reach ${url.replace(/[.]/g, '\\.')} \\(ECONNREFUSED\\)`));
  });

  it('HTTP 401: the warning says the key was rejected and where to fix it', async () => {
    const root = fresh();
    project(root, fake.baseUrl, 'a-wrong-key');
    await expectNamed(root, /rejected the key \(HTTP 401\)\. Fix: check VOYAGE_API_KEY/);
  });

  it('malformed JSON: the warning says so', async () => {
    const { url, server } = await malformedServer();
    try {
      const root = fresh();
      project(root, url);
      await expectNamed(root, /answered with malformed JSON/);
    } finally {
      server.close();
    }
  });

  it('a hung provider: index names the timeout; a search makes one call, cut at the 2 s query budget, then answers by keywords', async () => {
    const root = fresh();
    project(root, fake.baseUrl);
    fake.always('embeddings', { delayMs: 60_000 });
    await expectNamed(root, /no answer from .* within 400 ms/);
    fake.reset();
    fake.always('embeddings', { delayMs: 60_000 });
    const s = await cliAsync(['search', 'sales tax of an amount', '-p', root, '-o', 'json']);
    assert.equal(s.status, 0, s.stderr);
    const res = JSON.parse(s.stdout);
    assert.equal(res.matches[0]?.file.path, 'src/tax.ts');
    const w = res.warnings.find((x: string) => /no answer from .* within \d+ ms/.test(x));
    assert.ok(w, JSON.stringify(res.warnings));
    // the per-call limit the search ran under: the default query timeout, within the default 2 s budget, not retried
    assert.ok(Number(/within (\d+) ms/.exec(w)![1]) <= 2000, w);
    assert.equal(fake.requests.filter((r) => r.body.input_type === 'query').length, 1, 'a timed-out query embedding is not retried');
  });
});
