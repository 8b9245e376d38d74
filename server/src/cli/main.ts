/**
 * The `quarry` command line: a thin adapter over the engine facade.
 *
 *   quarry index  [--project DIR] [--full]
 *   quarry search <query> [--project DIR] [--limit N] [--output-format table|json|markdown] [--intent I]
 *                 [--include-tests | --no-include-tests] [--languages a,b]
 *   quarry status [--project DIR] [--json]
 *   quarry config --show [--project DIR] [--config FILE] [--json]
 *
 * Exit codes: 0 success (also when a search finds nothing), 1 runtime error, 2 invalid usage.
 */
// First: a packaged extension unpacks its compressed native libraries before anything requires LanceDB.
import '../startup/unpackNatives';
import '../startup/heapPolicy';
import { Command, InvalidArgumentError, Option } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import { stringify as toYaml } from 'yaml';
import { Engine } from '../engine/engine';
import { readSkippedRecord, type IndexProgress } from '../engine/indexer/indexer';
import type { EmbedProgress } from '../engine/indexer/embedder';
import { IndexLockedError } from '../engine/indexer/lock';
import { ConfigError, loadConfig } from '../engine/config/load';
import { QueryError } from '../engine/ranking/query';
import { formatIndexSummary, formatSearch, formatStatus, OUTPUT_FORMATS, OutputFormat } from './format';
import { formatSearchTable, terminalDisplay } from './display';
import { registerPatternCommands } from './patterns';
import { PatternError } from '../engine/memory/patterns';
import { healthWithProblems } from '../http/server';
import { enableFileLogs } from '../engine/log';
import { runServe, ServeRefusedError, type ServeOptions } from './serve';
import { environmentCause, IndexUnavailableError } from '../engine/store/storeErrors';
import { version } from '../../../package.json';

process.env.LANCEDB_LOG ??= 'error';

class UsageError extends Error {}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer.');
  return n;
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number 0-65535 (0 = any free port).');
  return n;
}

function outputFormat(value: string): OutputFormat {
  const v = value.toLowerCase();
  if (!(OUTPUT_FORMATS as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected one of ${OUTPUT_FORMATS.join(', ')}.`);
  return v as OutputFormat;
}

interface Reporter {
  update: (p: IndexProgress) => void;
  embed: (p: EmbedProgress) => void;
  stop: () => void;
}

/** A progress bar on a terminal (stderr); periodic plain lines otherwise. */
function progressReporter(quiet: boolean): Reporter {
  if (quiet) return { update: () => undefined, embed: () => undefined, stop: () => undefined };
  if (process.stderr.isTTY) {
    const bar = new SingleBar(
      { format: 'Indexing |{bar}| {value}/{total} files · {chunks} chunks · {file}', hideCursor: true, clearOnComplete: true, stream: process.stderr },
      Presets.shades_classic,
    );
    let started = false;
    let embedBar: SingleBar | undefined;
    return {
      update(p) {
        if (p.phase === 'discovering') return;
        if (!started) {
          bar.start(p.filesToProcess, 0, { chunks: 0, file: '' });
          started = true;
        }
        bar.update(p.filesProcessed, { chunks: p.chunksCreated, file: (p.currentFile ?? p.phase).slice(-50) });
      },
      embed(p) {
        if (started) {
          bar.stop();
          started = false;
        }
        if (!embedBar) {
          embedBar = new SingleBar(
            { format: 'Embedding |{bar}| {value}/{total} chunks · {model}', hideCursor: true, clearOnComplete: true, stream: process.stderr },
            Presets.shades_classic,
          );
          embedBar.start(p.total, 0, { model: p.model });
        }
        embedBar.update(p.done);
      },
      stop() {
        if (started) bar.stop();
        embedBar?.stop();
      },
    };
  }
  let last = 0;
  const every5s = (line: () => string) => {
    const now = Date.now();
    if (now - last > 5000) {
      last = now;
      process.stderr.write(line());
    }
  };
  return {
    update(p) {
      if (p.phase === 'indexing') every5s(() => `indexing: ${p.filesProcessed}/${p.filesToProcess} files, ${p.chunksCreated} chunks\n`);
    },
    embed(p) {
      every5s(() => `embedding: ${p.done}/${p.total} chunks (${p.model})\n`);
    },
    stop: () => undefined,
  };
}

async function withEngine<T>(project: string, fn: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await Engine.open(project);
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}

function buildProgram(): Command {
  const program = new Command();
  program
    .name('quarry')
    .description('Hybrid code search: index a workspace and find code by identifier or description.')
    .version(version)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (str, write) => write(str) })
    .exitOverride();

  const projectOption = () => new Option('-p, --project <dir>', 'project directory').default(process.cwd(), 'current directory');

  program
    .command('index')
    .description('index the project (incremental: only new, changed and deleted files are processed)')
    .addOption(projectOption())
    .option('--full', 'drop the existing index and rebuild from scratch')
    .option('--lexical-only', 'skip the embedding (dense) phase in this run')
    .option('-q, --quiet', 'no progress output')
    .option('--json', 'print the summary as JSON')
    .action(async (opts: { project: string; full?: boolean; lexicalOnly?: boolean; quiet?: boolean; json?: boolean }) => {
      enableFileLogs(opts.project);
      await withEngine(opts.project, async (engine) => {
        const progress = progressReporter(Boolean(opts.quiet || opts.json));
        const abort = new AbortController();
        const onSignal = () => abort.abort();
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        try {
          const summary = await engine.index({
            full: opts.full,
            lexicalOnly: opts.lexicalOnly,
            onProgress: progress.update,
            onEmbedProgress: progress.embed,
            signal: abort.signal,
          });
          progress.stop();
          const totals = await engine.chunkTypeTotals();
          process.stdout.write((opts.json ? JSON.stringify({ ...summary, chunkTypes: totals }, null, 2) : formatIndexSummary(summary, totals)) + '\n');
          if (abort.signal.aborted) {
            process.stderr.write('Indexing interrupted; what was committed is kept. Run `quarry index` again to finish.\n');
            process.exitCode = 130;
          }
          for (const w of summary.warnings) process.stderr.write(`Warning: ${w}\n`);
        } finally {
          progress.stop();
          process.off('SIGINT', onSignal);
          process.off('SIGTERM', onSignal);
        }
      });
    });

  program
    .command('search')
    .description('search the indexed project (indexes it first if it has never been indexed)')
    .argument('<query>', 'natural-language description or identifier')
    .addOption(projectOption())
    .addOption(new Option('-l, --limit <n>', 'maximum results').argParser(positiveInt).default(10))
    .addOption(new Option('-o, --output-format <format>', `output format (${OUTPUT_FORMATS.join('|')})`).argParser(outputFormat).default('table'))
    .addOption(new Option('--format <format>', 'alias of --output-format').argParser(outputFormat).hideHelp())
    .option('-i, --intent <intent>', 'search intent (understand|implement|debug|optimize|test|configure|document)')
    .option('--include-tests', 'include test files (default)')
    .option('--no-include-tests', 'leave test files out')
    .option('--languages <list>', 'only these languages, comma-separated (e.g. python,go)')
    .option('--type <types>', 'only these chunk types, comma-separated (function, method, class, code, knowledge, or a fine kind)')
    .option('--no-explain', 'leave the per-result score breakdown out of JSON output')
    .option('--show-scores', 'show each result\'s score breakdown in a box (seed 003 FR-6)')
    .option('--legacy', 'compact table: File | Type | Name | Lines | Score, without the git columns (seed 003 FR-5.5)')
    .option('--preview', 'show the code of each result under the table')
    .action(async (query: string, opts: { project: string; limit: number; outputFormat: OutputFormat; format?: OutputFormat; intent?: string; includeTests?: boolean; languages?: string; type?: string; explain?: boolean; showScores?: boolean; legacy?: boolean; preview?: boolean }) => {
      const format = opts.format ?? opts.outputFormat;
      await withEngine(opts.project, async (engine) => {
        if (!engine.hasIndex) {
          const why = (await engine.status()).problems;
          process.stderr.write(`No index for ${engine.root} yet: indexing it first (later searches reuse the index).\n`);
          for (const p of why) process.stderr.write(`  (${p})\n`);
          const progress = progressReporter(false);
          try {
            const summary = await engine.index({ onProgress: progress.update });
            progress.stop();
            process.stderr.write(`Indexed ${summary.filesIndexed} files into ${summary.totalChunks} chunks in ${(summary.durationMs / 1000).toFixed(1)}s.\n\n`);
          } catch (e) {
            progress.stop();
            // Another process is building the index right now: answer from what it has committed (the answer says so).
            if (!(e instanceof IndexLockedError)) throw e;
            process.stderr.write(`Another process (pid ${e.holder.pid}) is building the index: answering from what it has committed so far.\n\n`);
          }
        }
        const res = await engine.search(query, {
          // --show-scores draws BM25, Semantic and Activation for every result (seed 003 FR-6.1)
          completeScores: !!opts.showScores,
          limit: opts.limit,
          includeTests: opts.includeTests !== false,
          intent: opts.intent ?? null,
          languages: opts.languages?.split(',').map((s) => s.trim()).filter(Boolean),
          types: opts.type?.split(',').map((s) => s.trim()).filter(Boolean),
          explain: opts.explain !== false,
        });
        const text = format === 'table'
          ? formatSearchTable(res, query, { legacy: opts.legacy, showScores: opts.showScores, preview: opts.preview }, terminalDisplay())
          : formatSearch(res, format, query);
        process.stdout.write(text + '\n');
      });
    });

  program
    .command('serve')
    .alias('server')
    .description('run Quarry as a service: index the project (then keep serving), GET /health/ on loopback')
    .addOption(projectOption())
    .option('-c, --config <file>', 'configuration file (default: <project>/.quarry/config.yml)')
    .option('--host <host>', 'loopback address to bind (127.0.0.1, localhost or ::1; any other is refused)', '127.0.0.1')
    .addOption(new Option('--port <port>', 'port (0 = any free port)').argParser(portNumber).default(9328))
    .addOption(new Option('--mcp-port <port>', 'port of the MCP endpoint (Streamable HTTP, bearer token; 0 = any free port)').argParser(portNumber).default(9329))
    .option('--no-mcp', 'do not serve MCP over HTTP')
    .option('--no-index', 'do not index on start (serve the existing index)')
    .option('--reindex', 'rebuild the index from scratch on start')
    .option('--debug', 'verbose logs on stderr')
    .action(async (opts: ServeOptions) => {
      await runServe(opts);
    });

  program
    .command('lsp')
    .description('run the language server over stdio (for any LSP editor: codeSearch/find, workspace/symbol, ...)')
    .option('--stdio', 'talk LSP over stdin/stdout (the only transport)')
    .action(async () => {
      // The server owns the process from here; the protocol's `exit` ends it. Nothing else may write to stdout.
      // require, not import(): the doors are CommonJS bundles of their own (scripts/build.mjs), and Node's import() of a
      // CommonJS file first scans its whole source for exports (~220 ms of a 2 MB bundle at every server start).
      (require('../lsp/main.js') as typeof import('../lsp/main.js')).runStdioServer();
      return new Promise(() => undefined);
    });

  program
    .command('mcp')
    .description('serve the MCP endpoint (find_code and friends) over stdio for an agent; indexes first if needed')
    .addOption(projectOption())
    .option('--no-index', 'do not index on start (serve the existing index)')
    .action(async (opts: { project: string; index: boolean }) => {
      enableFileLogs(opts.project);
      // require, not import(): see `lsp` above
      await (require('../mcp/stdio.js') as typeof import('../mcp/stdio.js')).runMcpStdio(opts.project, { noIndex: !opts.index });
    });

  registerPatternCommands(program, projectOption);

  program
    .command('status')
    .description('show what is indexed and whether indexing is running')
    .addOption(projectOption())
    .option('--json', 'machine-readable output')
    .action(async (opts: { project: string; json?: boolean }) => {
      await withEngine(opts.project, async (engine) => {
        const status = await engine.status();
        const health = healthWithProblems(await engine.health(), status.problems);
        // the files the last whole-workspace run skipped, with the reason (null: none recorded yet); the text names the
        // first few, --json all of them
        const skipped = readSkippedRecord(status.indexDir) ?? null;
        process.stdout.write((opts.json ? JSON.stringify({ ...status, health, skipped }, null, 2) : formatStatus(status, health, skipped)) + '\n');
      });
    });

  program
    .command('config')
    .description('show the effective configuration (defaults < user-level config.yml < .quarry/config.yml) and the files read')
    .addOption(projectOption())
    .option('--show', 'print the effective configuration')
    .option('-c, --config <file>', 'configuration file in place of <project>/.quarry/config.yml (as `quarry serve --config`)')
    .option('--json', 'print it as JSON instead of YAML')
    .action((opts: { project: string; show?: boolean; config?: string; json?: boolean }) => {
      if (!opts.show) throw new UsageError('Nothing to do: use `quarry config --show` to print the effective configuration.');
      const { config, source, layers } = loadConfig(opts.project, opts.config);
      if (opts.json) {
        process.stdout.write(JSON.stringify({ source: source ?? null, layers, config }, null, 2) + '\n');
        return;
      }
      const label = { user: 'user', workspace: 'workspace', explicit: '--config' } as const;
      const lines = ['# layers, lowest first (later files win key by key):', '#   defaults'];
      for (const l of layers) {
        const why = !l.origin ? '' : l.origin === 'home' ? ', under the home directory' : l.origin === 'APPDATA' ? ', from %APPDATA%' : `, from $${l.origin}`;
        lines.push(`#   ${(label[l.kind] + ':').padEnd(11)} ${l.file} (${l.read ? 'read' : 'not found'}${why})`);
      }
      if (!source) lines.push('# (no configuration file found: defaults only)');
      process.stdout.write(`${lines.join('\n')}\n${toYaml(config)}`);
    });

  return program;
}

/** The --project value of a command line (for messages), or the current directory. */
function projectOf(argv: string[]): string {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((a === '-p' || a === '--project') && argv[i + 1]) return argv[i + 1]!;
    if (a.startsWith('--project=')) return a.slice('--project='.length);
  }
  return process.cwd();
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    const err = e as Error & { code?: string; exitCode?: number };
    if (err.code?.startsWith('commander.')) {
      // Help and version exit 0; usage errors were already printed by commander.
      return err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help' ? 0 : 2;
    }
    if (err instanceof UsageError || err instanceof QueryError || err instanceof PatternError || err instanceof ServeRefusedError) {
      process.stderr.write(`Error: ${err.message}\n`);
      return 2;
    }
    if (err instanceof IndexLockedError || err instanceof ConfigError) {
      process.stderr.write(`Error: ${err.message}\n`);
      return 1;
    }
    const cause = err instanceof IndexUnavailableError ? undefined : environmentCause(err);
    if (cause) {
      // Disk full, no permission, read-only: say what it is and what to do; nothing was deleted.
      const command = argv.slice(2).find((a) => !a.startsWith('-')) ?? 'quarry';
      const env = new IndexUnavailableError(cause, `running \`quarry ${command}\``, projectOf(argv), err.message);
      process.stderr.write(`Error: ${env.message.replace(/the index was left as it was\.$/, 'what was already committed to the index is kept.')}\n`);
    } else {
      process.stderr.write(`Error: ${err.message}\n`);
    }
    if (process.env.QUARRY_DEBUG) process.stderr.write(`${err.stack}\n`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`Error: ${(e as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
