/**
 * Runs discovery on one folder with the default rules and prints the result as JSON — for tests that must run
 * discovery in another process (e.g. root without its read-any-file capability, to meet a truly unreadable folder).
 *   node --import tsx test/support/discoverJson.ts <dir>
 */
import { DiscoveryConfigSchema } from '../../server/src/engine/config/schema';
import { discover } from '../../server/src/engine/discovery';

discover(process.argv[2]!, DiscoveryConfigSchema.parse({})).then(
  (r) => process.stdout.write(JSON.stringify({ files: r.files.map((f) => f.path), skipped: r.skipped })),
  (e: Error) => {
    process.stderr.write(`${e.stack ?? e}\n`);
    process.exitCode = 1;
  },
);
