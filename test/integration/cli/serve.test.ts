import assert from 'node:assert/strict';
import { spawn, ChildProcess } from 'node:child_process';
import { CLI, copyFixture, removeDir } from '../../support/workspace';

function startServe(args: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 30_000);
    child.stderr!.on('data', (d) => {
      err += d;
      const m = err.match(/on (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], stderr: () => err });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${err}`));
    });
  });
}

describe('quarry serve: GET /health/ (seed 002 FR-010-Enhanced)', function () {
  this.timeout(120_000);
  let root: string;
  before(() => {
    root = copyFixture('polyglot');
  });
  after(() => removeDir(root));

  it('serves the health JSON with indexing progress, services and statistics, and stops cleanly on SIGTERM', async () => {
    const { child, url } = await startServe(['-p', root, '--port', '0']);
    try {
      let health: Record<string, any> = {};
      for (let i = 0; i < 100; i++) {
        health = (await (await fetch(`${url}/health/`)).json()) as Record<string, any>;
        if (health.indexing.state === 'idle' && health.indexing.last_indexed) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(health.status, 'healthy');
      assert.ok(Date.parse(health.timestamp));
      assert.equal(typeof health.uptime_seconds, 'number');
      for (const k of ['files_discovered', 'files_processed', 'chunks_created', 'errors', 'current_file', 'start_time', 'estimated_completion']) {
        assert.ok(k in health.indexing.progress, k);
      }
      assert.ok(health.indexing.progress.files_processed > 0);
      assert.deepEqual(Object.keys(health.services).sort(), ['embedding_provider', 'reranking', 'sparse_embedding', 'vector_store']);
      assert.equal(health.services.vector_store.status, 'up');
      assert.ok(health.statistics.total_chunks_indexed > 0);
      assert.ok(health.statistics.languages_indexed.includes('swift'));
      for (const k of ['search_queries_total', 'search_results_returned', 'search_intent_distribution', 'indexing_chunks_created_total', 'indexing_errors_total', 'indexing_duration_seconds', 'embedding_api_requests_total', 'embedding_api_latency_ms', 'vector_store_operation_latency_ms', 'circuit_breaker_state', 'circuit_breaker_open_count']) {
        assert.ok(k in health.metrics, `metrics.${k}`);
      }
      assert.ok(health.metrics.indexing_chunks_created_total > 0);
      const missing = await fetch(`${url}/nope`);
      assert.equal(missing.status, 404);
      child.kill('SIGTERM');
      const code = await new Promise((r) => child.on('exit', r));
      assert.equal(code, 0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('names the cause when the port is taken', async () => {
    const first = await startServe(['-p', root, '--port', '0', '--no-index']);
    try {
      const port = new URL(first.url).port;
      const second = spawn(process.execPath, [CLI, 'serve', '-p', root, '--port', port, '--no-index'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      second.stderr!.on('data', (d) => (err += d));
      const code = await new Promise((r) => second.on('exit', r));
      assert.equal(code, 1);
      assert.match(err, new RegExp(`Port ${port} on 127.0.0.1 is already in use`));
    } finally {
      first.child.kill('SIGKILL');
    }
  });
});
