/**
 * Issue 20: `quarry serve` starts completely or exits non-zero; it binds loopback only (a non-loopback --host is
 * refused before anything opens) and every route, /health/ included, checks the Host header.
 */
import assert from 'node:assert/strict';
import { spawn, ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { createServer, Server, connect } from 'node:net';
import { CLI, tempDir, removeDir } from '../../support/workspace';
import { writeSmallProject } from '../../support/reliability';

function run(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; stderr: string }>; stderr: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, QUARRY_LOG_LEVEL: 'silent' } });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('exit', (code) => resolve({ code, stderr: err })));
  return { child, done, stderr: () => err };
}

async function waitFor(what: () => string, re: RegExp, ms = 60_000): Promise<RegExpMatchArray> {
  const t0 = Date.now();
  for (;;) {
    const m = what().match(re);
    if (m) return m;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${re}: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function get(url: string, host?: string): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: 'GET', headers: host ? { host } : {} }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

function listenAnywhere(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

describe('reliability: quarry serve starts completely or not at all, loopback only (issue 20)', function () {
  this.timeout(120_000);
  let root: string;
  before(() => {
    root = tempDir('quarry-serve-');
    writeSmallProject(root, 2);
  });
  after(() => removeDir(root));

  for (const host of ['0.0.0.0', '::', '192.0.2.1']) {
    it(`refuses --host ${host} with exit 2 before opening anything`, async () => {
      const { port, server } = await listenAnywhere();
      server.close();
      const r = run(['serve', '-p', root, '--host', host, '--port', String(port), '--no-index']);
      const { code, stderr } = await r.done;
      assert.equal(code, 2, stderr);
      assert.match(stderr, new RegExp(`Refusing to serve on ${host.replace(/\./g, '\\.')}: quarry serve binds loopback addresses only`));
      assert.doesNotMatch(stderr, /quarry serve: .* on http/);
      assert.ok(await portFree(port), 'nothing listens');
    });
  }

  it('answers /health/ only to loopback Host headers (DNS rebinding): 403 otherwise', async () => {
    const r = run(['serve', '-p', root, '--port', '0', '--no-mcp', '--no-index']);
    try {
      const url = (await waitFor(r.stderr, /on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
      const port = new URL(url).port;
      assert.equal((await get(`${url}/health/`)).status, 200);
      assert.equal((await get(`${url}/health/`, `localhost:${port}`)).status, 200);
      const evil = await get(`${url}/health/`, `evil.example:${port}`);
      assert.equal(evil.status, 403);
      assert.match(evil.body, /Invalid Host header/);
      assert.equal((await get(`${url}/nope`, 'evil.example')).status, 403);
    } finally {
      r.child.kill('SIGTERM');
      await r.done;
    }
  });

  it('exits non-zero, with nothing left listening, when the MCP listener cannot start', async () => {
    const taken = await listenAnywhere();
    const { port: httpPort, server } = await listenAnywhere();
    server.close();
    try {
      const r = run(['serve', '-p', root, '--port', String(httpPort), '--mcp-port', String(taken.port), '--no-index']);
      const { code, stderr } = await Promise.race([
        r.done,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`serve kept running half-started: ${r.stderr()}`)), 60_000)),
      ]).finally(() => r.child.kill('SIGKILL'));
      assert.equal(code, 1, stderr);
      assert.match(stderr, new RegExp(`Port ${taken.port} on 127\\.0\\.0\\.1 is already in use`));
      assert.ok(await portFree(httpPort), 'the HTTP port was released');
    } finally {
      taken.server.close();
    }
  });
});
