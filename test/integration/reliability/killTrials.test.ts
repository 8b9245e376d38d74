/**
 * Issue 20: `kill -9` at random points of first, incremental and full indexing. Real CLI processes, real LanceDB,
 * real lexical index. Kill points are drawn from a seeded PRNG (QUARRY_FAULT_SEED to vary it) inside the measured
 * wall time of an uninterrupted run of the same kind. After each kill:
 *   - the index as it is answers every query either as a clean index would (before or after the run: both are
 *     committed states) or with a warning — never a partial or empty answer in silence;
 *   - one `quarry index` restores exactly the clean index's answers to a fixed set of queries (and its chunk and
 *     file counts, with no problem left), or fails with an error that names the cause and the fix.
 * A full run (`index --full`) builds a new generation beside the current one and switches when complete
 * (store/generations.ts), so a kill leaves *exactly* a committed state — the old index (A) or the finished
 * rebuild (B) — with no problem or warning (at most a note that a rebuild was interrupted), without another
 * `quarry index`; the recovery run leaves one generation and nothing of the abandoned one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, tempDir, removeDir } from '../../support/workspace';
import { applyVersionB, copyTree, fingerprint, Fingerprint, layoutProblems, QUERIES, runAndKill, seededRandom, timeRun, TrialConfig, writeConfig, writeVersionA } from '../../support/faultTrials';

const SEED = Number(process.env.QUARRY_FAULT_SEED ?? 20_2026);
/** Trials per (configuration, kind of run): 3 kinds × (14 rules-only + 3 default) = 51. */
const TRIALS: Record<TrialConfig, number> = process.env.QUARRY_FAULT_TRIALS ? { rules: Number(process.env.QUARRY_FAULT_TRIALS), default: Number(process.env.QUARRY_FAULT_TRIALS) } : { rules: 14, default: 3 };
type Mode = 'first' | 'incremental' | 'full';
const MODES: Mode[] = ['first', 'incremental', 'full'];

function indexCli(root: string, full = false) {
  const r = spawnSync(process.execPath, [CLI, 'index', '-p', root, '-q', ...(full ? ['--full'] : [])], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, QUARRY_LOG_LEVEL: 'silent' },
  });
  return { status: r.status ?? -1, stderr: r.stderr ?? '' };
}

const core = (f: Fingerprint): Fingerprint => ({ chunks: f.chunks, files: f.files, answers: f.answers });

/** Outcome counts, printed at the end (the README's and BENCHMARKS.md's figures). */
const tally: Record<string, number> = {};
const count = (k: string) => (tally[k] = (tally[k] ?? 0) + 1);

describe('reliability: kill -9 during indexing, then one `quarry index` (issue 20)', function () {
  this.timeout(600_000);
  let base: string;

  before(() => {
    base = tempDir('quarry-kill-');
  });
  after(() => {
    removeDir(base);
    const lines = Object.entries(tally).sort().map(([k, v]) => `    ${k}: ${v}`);
    if (lines.length) process.stdout.write(`  kill -9 trials (seed ${SEED}):\n${lines.join('\n')}\n`);
  });

  for (const config of ['rules', 'default'] as TrialConfig[]) {
    describe(`${config === 'rules' ? 'rules-only (BM25)' : 'default'} configuration`, () => {
      const dir = (name: string) => join(base, config, name);
      let refA: Fingerprint;
      let refB: Fingerprint;
      const durations: Partial<Record<Mode, number>> = {};

      /** A workspace ready for a run of this kind: B's files, with A's clean index for incremental and full. */
      const prepare = (mode: Mode, target: string) => {
        if (mode === 'first') {
          copyTree(dir('B-clean'), target);
          rmSync(join(target, '.quarry'), { recursive: true, force: true });
          writeConfig(target, config);
        } else {
          copyTree(dir('A-indexed'), target);
          applyVersionB(target);
        }
      };
      const argsFor = (mode: Mode, target: string) => ['index', '-p', target, '-q', ...(mode === 'full' ? ['--full'] : [])];

      before(async () => {
        // clean references: A indexed, B indexed from scratch
        writeVersionA(dir('A-indexed'));
        writeConfig(dir('A-indexed'), config);
        assert.equal(indexCli(dir('A-indexed')).status, 0);
        refA = core(await fingerprint(dir('A-indexed')));
        writeVersionA(dir('B-clean'));
        applyVersionB(dir('B-clean'));
        writeConfig(dir('B-clean'), config);
        assert.equal(indexCli(dir('B-clean')).status, 0);
        refB = core(await fingerprint(dir('B-clean')));
        assert.notDeepEqual(refA.answers, refB.answers);
        for (const q of QUERIES.filter((q) => q !== 'settings7')) assert.ok(refB.answers[q]!.length > 0, `clean index answers ${q}`);
      });

      it('uninterrupted runs of each kind give the clean index (and their wall times place the kill points)', async () => {
        for (const mode of MODES) {
          const target = dir(`timed-${mode}`);
          prepare(mode, target);
          durations[mode] = await timeRun(argsFor(mode, target));
          assert.deepEqual(core(await fingerprint(target)), refB, `uninterrupted ${mode} run`);
          removeDir(target);
        }
      });

      for (const mode of MODES) {
        it(`${TRIALS[config]} kills at random points of a ${mode} index run: each ends with the clean index after one \`quarry index\``, async () => {
          const duration = durations[mode];
          assert.ok(duration, 'the uninterrupted run was timed');
          const random = seededRandom(SEED + MODES.indexOf(mode) * 101 + (config === 'default' ? 7 : 0));
          const failures: string[] = [];
          for (let t = 0; t < TRIALS[config]; t++) {
            // kill points inside the run's wall time (its first fifth is mostly process start-up)
            const at = Math.round(duration * (0.2 + 0.8 * random()));
            const target = dir(`trial-${mode}-${t}`);
            prepare(mode, target);
            const label = `${config}/${mode} trial ${t} (kill at ${at} ms of ${duration} ms)`;
            const run = await runAndKill(argsFor(mode, target), at);
            count(run.killed ? `${config}/${mode}: killed mid-run` : `${config}/${mode}: finished before the kill`);

            // the index as the kill left it: a committed state, or a warning — never an empty answer in silence
            const now = await fingerprint(target);
            const asIs = core(now);
            const committed = JSON.stringify(asIs) === JSON.stringify(refB) || (mode !== 'first' && JSON.stringify(asIs) === JSON.stringify(refA));
            if (mode === 'full') {
              // the old generation (A) answers in full until the switch, the new one (B) after it: nothing in between
              const state = JSON.stringify(asIs) === JSON.stringify(refA) ? 'the old index' : JSON.stringify(asIs) === JSON.stringify(refB) ? 'the rebuilt index' : 'neither';
              count(`${config}/full: answer after the kill: ${state}`);
              if (state === 'neither') failures.push(`${label}: a killed --full answers with neither the old nor the rebuilt index (${now.chunks} chunks, ${now.files} files): ${JSON.stringify(asIs.answers)}`);
              else if (now.problems.length || now.warnings.length) failures.push(`${label}: ${state} answers, but with problems or warnings: ${[...now.problems, ...now.warnings].join('; ')}`);
              if (now.notes.length) count(`${config}/full: a note says the rebuild was interrupted`);
            }
            if (!committed && now.warnings.length === 0) {
              const empty = QUERIES.filter((q) => asIs.answers[q]!.length === 0 && refB.answers[q]!.length > 0);
              failures.push(`${label}: answers of no committed state without a warning before recovery (${now.chunks} chunks, ${now.files} files; empty: ${empty.join(', ') || 'none'})`);
              count('answer after the kill: partial, without warning');
            } else count(committed ? 'answer after the kill: a committed state' : 'answer after the kill: partial, with a warning');

            // one `quarry index` (incremental: what a user runs)
            const rec = indexCli(target);
            if (rec.status !== 0) {
              if (!/^Error: .+(quarry index|free disk|permission|remove|delete|run )/m.test(rec.stderr)) failures.push(`${label}: recovery failed without a clear error: ${rec.stderr}`);
              count('recovery: clear error');
              continue;
            }
            const after = await fingerprint(target);
            if (JSON.stringify(core(after)) !== JSON.stringify(refB)) {
              failures.push(`${label}: after one \`quarry index\` the answers differ from the clean index:\n${JSON.stringify(core(after))}\nvs\n${JSON.stringify(refB)}`);
              count('recovery: different answers');
            } else if (after.problems.length || after.warnings.length || after.notes.length) {
              failures.push(`${label}: restored (recovery stderr: ${rec.stderr}) but still reports ${[...after.problems, ...after.warnings, ...after.notes].join('; ')}`);
              count('recovery: problems left');
            } else if (layoutProblems(target).length) {
              failures.push(`${label}: restored, but the generations on disk are not clean: ${layoutProblems(target).join('; ')}`);
              count('recovery: generations left behind');
            } else count('recovery: clean index restored');
            removeDir(target);
          }
          assert.deepEqual(failures, []);
        });
      }
    });
  }
});
