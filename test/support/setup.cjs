// Loaded before every test file (.mocharc.json "require"): keep LanceDB's native logger to errors only.
process.env.LANCEDB_LOG = process.env.LANCEDB_LOG || 'error';
// Structured logs stay quiet in tests unless asked for (the logging test installs its own destination).
process.env.QUARRY_LOG_LEVEL = process.env.QUARRY_LOG_LEVEL || 'silent';
// The machine's own user-level config file (~/.config/quarry/config.yml) never leaks into a test: tests that
// need one point QUARRY_CONFIG_HOME at a folder of their own.
if (!process.env.QUARRY_CONFIG_HOME) {
  const { mkdtempSync, rmSync } = require('node:fs');
  const { join } = require('node:path');
  const { tmpdir } = require('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'quarry-no-user-config-'));
  process.env.QUARRY_CONFIG_HOME = dir;
  // gone with the test run (child processes inherit the variable and finish first)
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
}
