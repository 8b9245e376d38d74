import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Engine } from '../../../server/src/engine/engine';
import type { CodeMatch } from '../../../server/src/engine/api/results';
import { copyFixture, removeDir, REPO_ROOT } from '../../support/workspace';
import { RANKING_CONFIGURATIONS } from '../../support/configurations';

/**
 * Every scenario of seed 000 (symbol-aware boosts, conformance lookup) on three fixture projects with the same
 * shapes (Swift, TypeScript, Java). Scenarios and expectations are data: test/fixtures/seed000/expectations.json.
 */
interface Ref {
  path: string;
  symbol: string;
  kind?: string;
}
type Lang = Record<string, unknown> & { codable: { query: string; conformer: Ref } };
interface Scenario {
  name: string;
  query: string;
  assert: Array<Record<string, unknown>>;
}

const spec = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'seed000', 'expectations.json'), 'utf8')) as Record<string, unknown> & { scenarios: Scenario[] };

/** Explanation line of each named boost (see ranking/stages/symbolBoosts.ts). */
const BOOST_LINE: Record<string, RegExp> = {
  exact_symbol: /^×([\d.]+) exact symbol/,
  type_declaration: /^×([\d.]+) type declaration/,
  protocol_kind: /^×([\d.]+) \w+ definition for a protocol query/,
  conformance_match: /^×([\d.]+) conformance match/,
  conformance_implementation: /^×([\d.]+) implementation:/,
};

function refs(lang: Lang, key: string): Ref[] {
  const v = key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], lang);
  if (!v) return [];
  return Array.isArray(v) ? (v as Ref[]) : [v as Ref];
}
const same = (m: CodeMatch, r: Ref) => m.file.path === r.path && m.content.symbol === r.symbol && (!r.kind || m.content.kind === r.kind);
const rankOf = (ms: CodeMatch[], r: Ref) => ms.findIndex((m) => same(m, r));
const label = (r: Ref) => `${r.path} ${r.symbol}`;

for (const cfg of RANKING_CONFIGURATIONS) for (const language of ['swift', 'typescript', 'java']) {
  describe(`seed 000 scenarios (${language} fixture; ${cfg.label})`, function () {
    this.timeout(120_000);
    const lang = spec[language] as Lang;
    let root: string;
    let engine: Engine;
    before(async () => {
      root = copyFixture(join('seed000', language));
      engine = await Engine.open(root, cfg.open);
      await engine.index();
    });
    after(async () => {
      await engine?.close();
      removeDir(root);
    });

    for (const sc of spec.scenarios) {
      const query = sc.query.replace('{codable.query}', lang.codable.query);
      it(`${sc.name}: "${query}"`, async () => {
        const res = await engine.search(query, { limit: 20, includeTests: true });
        const ms = res.matches;
        const top = ms.map((m, i) => `${i + 1}. ${m.file.path} ${m.content.symbol} (${m.content.kind})`).join('\n');
        for (const a of sc.assert) {
          const [kind, arg] = Object.entries(a)[0] as [string, unknown];
          if (kind === 'rank1') {
            for (const r of refs(lang, arg as string)) assert.equal(rankOf(ms, r), 0, `${label(r)} should rank first:\n${top}`);
          } else if (kind === 'inTop' || kind === 'allInTop') {
            const { key, k } = arg as { key: string; k: number };
            for (const r of refs(lang, key)) {
              const i = rankOf(ms, r);
              assert.ok(i >= 0 && i < k, `${label(r)} should be in the top ${k} (rank ${i + 1}):\n${top}`);
            }
          } else if (kind === 'returned') {
            for (const r of refs(lang, arg as string)) assert.ok(rankOf(ms, r) >= 0, `${label(r)} should be returned:\n${top}`);
          } else if (kind === 'allAbove') {
            const { higher, lower } = arg as { higher: string; lower: string };
            const lows = refs(lang, lower).map((r) => rankOf(ms, r)).filter((i) => i >= 0);
            for (const r of refs(lang, higher)) {
              const i = rankOf(ms, r);
              assert.ok(i >= 0, `${label(r)} missing:\n${top}`);
              for (const j of lows) assert.ok(i < j, `${label(r)} (rank ${i + 1}) should rank above rank ${j + 1}:\n${top}`);
            }
          } else if (kind === 'boost') {
            const given = arg as { key: string; names: string[]; total?: number };
            const { key, total } = given;
            // A language may name another boost for its codable conformer (a class rather than an extension).
            const override = key === 'codable.conformer' ? (lang.codable as { boost?: string }).boost : undefined;
            const names = override ? [override] : given.names;
            for (const r of refs(lang, key)) {
              const m = ms.find((x) => same(x, r));
              assert.ok(m, `${label(r)} missing:\n${top}`);
              let product = 1;
              for (const n of names) {
                const line = m!.explanation.find((l) => BOOST_LINE[n].test(l));
                assert.ok(line, `${label(r)} lacks the ${n} boost:\n${m!.explanation.join('\n')}`);
                product *= Number(line!.match(BOOST_LINE[n])![1]);
              }
              if (total !== undefined) assert.ok(Math.abs(product - total) < 1e-9, `${label(r)}: boosts multiply to ${product}, want ${total}`);
            }
          } else if (kind === 'noBoost') {
            for (const m of ms) assert.ok(!m.explanation.some((l) => BOOST_LINE[arg as string].test(l)), `${m.file.path} ${m.content.symbol} got ${arg}`);
          } else {
            assert.fail(`unknown assertion ${kind}`);
          }
        }
      });
    }
  });
}
