// `npm test` after the build and the type check: the unit and integration tests (mocha), then the end-to-end tests in
// a real VS Code (test/e2e/run.ts: code-server + Chromium). Each part prints its own "N passed, N failed"; this prints
// both with their times and, as the LAST line, their sum, which is what CI counts. A part that prints no summary
// (a crash) counts as one failure. The end-to-end part runs even when mocha failed, so both are always counted.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(ROOT, 'node_modules', '.bin', name);
const SUMMARY = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$/gm;

let current;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    // The end-to-end runner stops code-server's process group on these.
    if (current && current.exitCode === null) current.kill(sig);
    setTimeout(() => process.exit(1), 15_000).unref();
  });
}

function part(label, cmd, args) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    let tail = '';
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['inherit', 'pipe', 'inherit'], env: process.env });
    current = child;
    child.stdout.on('data', (b) => {
      process.stdout.write(b);
      tail = (tail + b.toString('utf8')).slice(-65536);
    });
    const done = (code, error) => {
      const seconds = (Date.now() - t0) / 1000;
      const m = [...tail.matchAll(SUMMARY)].pop();
      if (!m) {
        resolve({ label, passed: 0, failed: 1, skipped: 0, seconds, code: code ?? 1, note: `printed no "N passed, N failed" summary (${error ?? `exit ${code}`}): counted as 1 failed` });
        return;
      }
      const [passed, failed, skipped] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
      // A non-zero exit with no failure counted (e.g. a crash after the summary) is a failure too.
      const extra = code !== 0 && failed === 0 ? 1 : 0;
      resolve({ label, passed, failed: failed + extra, skipped, seconds, code, note: extra ? `exited with ${code} after reporting no failure: counted as 1 failed` : '' });
    };
    child.on('error', (e) => done(1, e.message));
    child.on('close', (code, signal) => done(code ?? 1, signal ? `killed by ${signal}` : undefined));
  });
}

const fmt = (s) => (s >= 90 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${s.toFixed(1)} s`);
const parts = [];
// The spec lives here, not in .mocharc.json, so that `npx mocha <file>` runs just that file.
const SPEC = ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'];
parts.push(await part('unit + integration (mocha)', bin('mocha'), [...(process.stdout.isTTY ? ['--color'] : []), ...SPEC]));
parts.push(await part('end-to-end (VS Code = code-server + Chromium)', bin('tsx'), [join('test', 'e2e', 'run.ts'), '--no-build']));

const sum = (k) => parts.reduce((n, p) => n + p[k], 0);
console.log('');
for (const p of parts) console.log(`${p.label}: ${p.passed} passed, ${p.failed} failed${p.skipped ? `, ${p.skipped} skipped` : ''} (${fmt(p.seconds)})${p.note ? ` — ${p.note}` : ''}`);
const skipped = sum('skipped');
process.stdout.write(`${sum('passed')} passed, ${sum('failed')} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exitCode = sum('failed') > 0 || parts.some((p) => p.code !== 0) ? 1 : 0;
