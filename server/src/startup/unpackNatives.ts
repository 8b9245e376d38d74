/**
 * Imported FIRST by every bundled entry point (server/src/cli/main.ts, lsp/main.ts, mcp/stdio.ts, mcp/http.ts), so
 * that it runs before the bundle's first `require('@lancedb/lancedb')`: in a packaged extension it unpacks the native
 * libraries shipped compressed (./packedNatives.ts); in a development checkout it finds no manifest and does nothing.
 * Bundled, __dirname is the package's dist/ folder, where scripts/package-vsix.mjs puts the manifest.
 */
import { ensurePackedNatives, PackedNativeError } from './packedNatives';

try {
  for (const r of ensurePackedNatives(__dirname)) {
    if (r.action === 'unpacked') {
      process.stderr.write(`quarry: first start: unpacked ${r.file.path} (${(r.file.size / 1e6).toFixed(0)} MB, sha256 checked) to ${r.location} in ${(r.ms / 1000).toFixed(1)} s\n`);
    }
  }
} catch (err) {
  process.stderr.write(`quarry: ${err instanceof PackedNativeError ? err.message : (err as Error).stack ?? String(err)}\n`);
  process.exit(1);
}
