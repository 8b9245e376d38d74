/**
 * `quarry pattern record|use|list|forget`: the agents' reasoning patterns (seed 003 FR-4) from the shell — for
 * scripts, for people curating what agents learned, and for agents without MCP. Thin over the engine's memory API.
 * While another process owns the index (the language server, `quarry serve`), the pattern is saved and that process
 * indexes it; otherwise this command indexes the pattern log itself.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { Engine, type PatternChange } from '../engine/engine';
import { liveOwner, describeOwner } from '../engine/indexer/owner';
import { patternJson, type Pattern } from '../engine/memory/patterns';

function score(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number from 0 to 1.');
  return n;
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number >= 0.');
  return n;
}

function patternLine(p: Pattern): string {
  const state = p.searchable ? 'searchable' : 'not searchable (success < 0.5)';
  return `${p.id}  [${p.patternType}]  success ${p.successScore} · used ${p.usageCount}x · created ${p.createdAt.slice(0, 10)} · ${state}\n    ${p.description}`;
}

async function withMemory<T>(project: string, fn: (engine: Engine, mayIndex: boolean) => Promise<T>): Promise<T> {
  const engine = await Engine.open(project);
  try {
    const owner = liveOwner(engine.quarryDir);
    return await fn(engine, !owner || owner.pid === process.pid);
  } finally {
    await engine.close();
  }
}

function report(change: PatternChange, json: boolean | undefined, verb: string, quarryDir: string): string {
  if (json) return JSON.stringify({ pattern: patternJson(change.pattern), indexed: change.indexed, ...(change.note ? { note: change.note } : {}) }, null, 2);
  const p = change.pattern;
  const owner = liveOwner(quarryDir);
  const when = !p.searchable
    ? 'It is kept but not searchable: success_score is below 0.5.'
    : change.indexed
      ? 'It is searchable now (type: reasoning).'
      : owner
        ? `It becomes searchable when ${describeOwner(owner)} picks up the change.`
        : `Not indexed yet (${change.note ?? 'unknown reason'}).`;
  return `${verb} ${patternLine(p)}\n${when}`;
}

export function registerPatternCommands(program: Command, projectOption: () => Option): void {
  const pattern = program.command('pattern').description('reasoning patterns agents record and reuse (searchable as type "reasoning")');

  pattern
    .command('record')
    .description('record a reusable pattern, or revise the one with the same --id')
    .addOption(projectOption())
    .requiredOption('-t, --type <patternType>', 'kind of reasoning: decomposition, verification, debugging, ...')
    .requiredOption('-d, --description <text>', 'what the pattern is and when it applies')
    .option('-c, --context <text>', 'where it was learned or applied: files, symbols, steps')
    .addOption(new Option('-s, --success <score>', 'how well it worked, 0..1 (>= 0.5 to be searchable)').argParser(score).makeOptionMandatory())
    .addOption(new Option('-u, --usage <count>', 'times already applied successfully').argParser(count))
    .option('--id <id>', 'stable id (derived from the description when omitted)')
    .option('--json', 'machine-readable output')
    .action(async (opts: { project: string; type: string; description: string; context?: string; success: number; usage?: number; id?: string; json?: boolean }) => {
      await withMemory(opts.project, async (engine, mayIndex) => {
        const change = await engine.recordPattern(
          { id: opts.id, patternType: opts.type, description: opts.description, context: opts.context, successScore: opts.success, usageCount: opts.usage },
          { index: mayIndex },
        );
        process.stdout.write(report(change, opts.json, 'Recorded', engine.quarryDir) + '\n');
      });
    });

  pattern
    .command('use')
    .description('report that a pattern was applied again (and whether it worked)')
    .argument('<id>', 'pattern id')
    .addOption(projectOption())
    .option('--succeeded', 'it worked (moves the success score up)')
    .option('--failed', 'it did not work (moves the success score down)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { project: string; succeeded?: boolean; failed?: boolean; json?: boolean }) => {
      if (opts.succeeded && opts.failed) throw new InvalidArgumentError('--succeeded and --failed exclude each other.');
      const outcome = opts.succeeded ? true : opts.failed ? false : undefined;
      await withMemory(opts.project, async (engine, mayIndex) => {
        const change = await engine.reportPatternUse(id, outcome, { index: mayIndex });
        process.stdout.write(report(change, opts.json, 'Updated', engine.quarryDir) + '\n');
      });
    });

  pattern
    .command('list')
    .description('list recorded patterns (searchable and not)')
    .addOption(projectOption())
    .option('--json', 'machine-readable output')
    .action(async (opts: { project: string; json?: boolean }) => {
      await withMemory(opts.project, async (engine) => {
        const all = engine.patterns();
        if (opts.json) process.stdout.write(JSON.stringify(all.map(patternJson), null, 2) + '\n');
        else process.stdout.write((all.length ? all.map(patternLine).join('\n') : 'No patterns recorded yet (`quarry pattern record --help`).') + '\n');
      });
    });

  pattern
    .command('forget')
    .description('remove a pattern')
    .argument('<id>', 'pattern id')
    .addOption(projectOption())
    .action(async (id: string, opts: { project: string }) => {
      await withMemory(opts.project, async (engine, mayIndex) => {
        if (!(await engine.forgetPattern(id, { index: mayIndex }))) {
          process.stderr.write(`Error: no pattern with id "${id}" (see \`quarry pattern list\`).\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`Forgot pattern ${id}.\n`);
      });
    });
}
