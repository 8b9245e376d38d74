/**
 * How an editor starts the language server: node's flags and the environment it adds. The VS Code client starts the
 * server with them and the memory benchmark (bench/lsRss.ts) too, so that what is measured is what users run. Each
 * was measured on a 1,000-file Go workspace (BENCHMARKS.md "Language server memory"):
 *
 * - `--liftoff-only`: on Node 24 (code-server's runtime) V8's optimizing WASM compiler aborts the process ("Fatal
 *   process out of memory: Zone") on the tree-sitter grammars; Liftoff alone indexes as fast.
 * - `--max-semi-space-size=4`: a young generation of 4 MB per semi-space instead of 16 (the worker threads get the
 *   same from startup/heapPolicy.ts; the main thread's must be on the command line): about 60 MB less at the peak of
 *   the first index and 15–25 MB at rest.
 * - `--optimize-for-size`: V8 favours memory over speed where it has the choice (smaller heap growth steps, earlier
 *   release of unused pages): about 30 MB less at the peak of the first index and 10 MB at rest, with the same index
 *   and query times.
 * - `MALLOC_ARENA_MAX=2`: glibc keeps an arena per thread otherwise (LanceDB's runtime, the chunking worker), whose
 *   freed memory stays resident.
 * - `MALLOC_MMAP_THRESHOLD_=131072`: allocations of 128 KB and more (Arrow buffers, query results) are mapped on their
 *   own and given back when freed; glibc's default raises that threshold as large blocks are freed, so they end up in
 *   the main heap, whose freed space stays resident: 60–65 MB less at rest.
 * A variable already set in the editor's environment is left as it is.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--liftoff-only', '--max-semi-space-size=4', '--optimize-for-size'];

export function serverEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  return {
    LANCEDB_LOG: env.LANCEDB_LOG ?? 'error',
    MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? '2',
    MALLOC_MMAP_THRESHOLD_: env.MALLOC_MMAP_THRESHOLD_ ?? '131072',
  };
}
