// Loaded before every test file (.mocharc.json "require"): keep LanceDB's native logger to errors only.
process.env.LANCEDB_LOG = process.env.LANCEDB_LOG || 'error';
