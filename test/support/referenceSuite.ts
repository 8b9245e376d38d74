/**
 * Seed 002 FR-036 reference query suite (test/fixtures/reference-queries.yml), run on a copy of Quarry's own
 * repository (git-tracked files). Shared by the test that enforces its targets and by the benchmark.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { Engine } from '../../server/src/engine/engine';

export interface ReferenceQuery {
  query: string;
  intent: string;
  expected: Array<{ path: string; symbol: string }>;
}

export interface ReferenceResult {
  query: ReferenceQuery;
  /** 1-based rank of the first expected answer in the top 10, 0 when absent. */
  rank: number;
  top: string[];
}

export function loadReferenceSuite(repoRoot: string): { queries: ReferenceQuery[]; includeTests: boolean; limit: number } {
  const doc = parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'reference-queries.yml'), 'utf8')) as {
    options: { include_tests: boolean; limit: number };
    queries: ReferenceQuery[];
  };
  return { queries: doc.queries, includeTests: doc.options.include_tests, limit: doc.options.limit };
}

/**
 * Copies the repository's tracked files into `dest` (the workspace the suite runs on), leaving out files that quote
 * the suite itself (its YAML, and reports such as BENCHMARKS.md that list three or more of its queries verbatim):
 * they would answer every query with the question, not the code.
 */
export function copyRepository(repoRoot: string, dest: string): void {
  const files = execFileSync('git', ['ls-files'], { cwd: repoRoot, encoding: 'utf8' }).split('\n').filter(Boolean);
  const queries = loadReferenceSuite(repoRoot).queries.map((q) => q.query).filter((q) => q.includes(' '));
  const quotesSuite = (f: string): boolean => {
    if (!/\.(md|markdown|txt|rst|ya?ml)$/i.test(f)) return false;
    let text: string;
    try {
      text = readFileSync(join(repoRoot, f), 'utf8');
    } catch {
      return false;
    }
    return queries.filter((q) => text.includes(q)).length >= 3;
  };
  for (const f of files) {
    if (quotesSuite(f)) continue;
    mkdirSync(dirname(join(dest, f)), { recursive: true });
    try {
      cpSync(join(repoRoot, f), join(dest, f));
    } catch {
      /* deleted in the working tree */
    }
  }
}

export async function runReferenceSuite(engine: Engine, repoRoot: string): Promise<{ results: ReferenceResult[]; p3: number; p5: number }> {
  const suite = loadReferenceSuite(repoRoot);
  const results: ReferenceResult[] = [];
  for (const q of suite.queries) {
    const res = await engine.search(q.query, { limit: suite.limit, includeTests: suite.includeTests, intent: q.intent, explain: false });
    const rank = res.matches.findIndex((m) => q.expected.some((e) => e.path === m.file.path && e.symbol === m.content.symbol)) + 1;
    results.push({ query: q, rank, top: res.matches.slice(0, 3).map((m) => `${m.file.path}#${m.content.symbol}`) });
  }
  const at = (k: number) => results.filter((r) => r.rank > 0 && r.rank <= k).length / results.length;
  return { results, p3: at(3), p5: at(5) };
}
