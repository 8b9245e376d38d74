// Loaded before every test file (.mocharc.json "require"): keep LanceDB's native logger to errors only.
process.env.LANCEDB_LOG = process.env.LANCEDB_LOG || 'error';
// Structured logs stay quiet in tests unless asked for (the logging test installs its own destination).
process.env.QUARRY_LOG_LEVEL = process.env.QUARRY_LOG_LEVEL || 'silent';
