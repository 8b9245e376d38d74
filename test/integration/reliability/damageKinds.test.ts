/**
 * Issue 20: every kind of damage to every part of the index — each LanceDB table's data files, its _versions
 * manifests, the chunk table's indices; the lexical segments and manifest; state.json and store.json; the pointer to
 * the current generation (current.json); the vector table (the embedding cache) — is either harmless (the answers are
 * the clean index's) or said: `search` warns (never a silent empty or partial answer) and `status` is not healthy.
 * Then one `quarry index` heals it to the clean index's answers, healthy. Real LanceDB, real lexical index, the real
 * CLI (storeFaults.test.ts has the whole-folder cases: lexical folder or manifest gone, garbled state and store files,
 * the LanceDB folder gone, the chunk table's _versions gone). The index here was rebuilt once with `--full`, so it
 * lives in a generation folder (store/generations.ts); storeFaults.test.ts damages generation 0 (the layout before
 * generations). A damaged vector table is quarantined and its vectors computed again by the next `quarry index`;
 * meanwhile search is keyword-only and says so.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, tempDir, removeDir } from '../../support/workspace';
import { copyTree, currentGenerationDir, fingerprint, Fingerprint, layoutProblems, writeConfig, writeVersionA } from '../../support/faultTrials';

function run(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, QUARRY_LOG_LEVEL: 'silent' } });
  return { status: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Files (not folders) directly under `dir`, sorted; [] when it does not exist. */
function filesIn(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile()).sort().map((f) => join(dir, f));
  } catch {
    return [];
  }
}
/** Every file under `dir`, recursively. */
function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...allFiles(p));
    else out.push(p);
  }
  return out.sort();
}
const garble = (path: string) => {
  const b = readFileSync(path);
  for (let i = 0; i < b.length; i += 7) b[i] = b[i]! ^ 0x5a;
  writeFileSync(path, b);
};
const halve = (path: string) => truncateSync(path, Math.floor(statSync(path).size / 2));
/** The vector table's folder, or '' when there is none. */
const vectorTableOrNone = (top: string) => {
  const name = existsSync(join(top, 'lancedb')) ? readdirSync(join(top, 'lancedb')).find((f) => f.startsWith('vectors_')) : undefined;
  return name ? join(top, 'lancedb', name) : '';
};
/** The newest manifest (Lance names them by u64::MAX − version: the newest sorts first). */
const latestManifest = (table: string) => filesIn(join(table, '_versions')).filter((f) => f.endsWith('.manifest'))[0]!;

const TABLES = ['chunks', 'files', 'chunk_git', 'conformances'];
/** `q`: the current generation's folder (where lancedb/, lexical/, state.json and store.json are); `top`: `.quarry/`. */
type Damage = { name: string; apply: (q: string, top: string) => void; vectors?: boolean };
const DAMAGES: Damage[] = [];
for (const t of TABLES) {
  const table = (q: string) => join(q, 'lancedb', `${t}.lance`);
  DAMAGES.push(
    { name: `${t} table: every data file deleted`, apply: (q) => filesIn(join(table(q), 'data')).forEach((f) => rmSync(f)) },
    { name: `${t} table: latest manifest garbled`, apply: (q) => garble(latestManifest(table(q))) },
  );
  // (every table's _versions gone takes the path of the chunk table's, which storeFaults.test.ts covers; files here)
  if (t === 'files') DAMAGES.push({ name: `${t} table: _versions manifests deleted`, apply: (q) => rmSync(join(table(q), '_versions'), { recursive: true, force: true }) });
  if (t === 'chunks') {
    DAMAGES.push(
      { name: 'chunks table: a data file truncated', apply: (q) => filesIn(join(table(q), 'data')).forEach(halve) },
      { name: 'chunks table: indices deleted', apply: (q) => rmSync(join(table(q), '_indices'), { recursive: true, force: true }) },
      { name: 'chunks table: index files garbled', apply: (q) => allFiles(join(table(q), '_indices')).forEach(garble) },
    );
  }
}
DAMAGES.push(
  { name: 'lexical: segment files deleted', apply: (q) => filesIn(join(q, 'lexical')).filter((f) => !f.endsWith('manifest.json')).forEach((f) => rmSync(f)) },
  { name: 'lexical: a segment truncated', apply: (q) => filesIn(join(q, 'lexical')).filter((f) => !f.endsWith('manifest.json')).forEach(halve) },
  { name: 'lexical: a segment garbled', apply: (q) => filesIn(join(q, 'lexical')).filter((f) => !f.endsWith('manifest.json')).forEach(garble) },
  { name: 'lexical: manifest garbled', apply: (q) => writeFileSync(join(q, 'lexical', 'manifest.json'), '{"generation": 3, "segm') },
  { name: 'state.json deleted', apply: (q) => rmSync(join(q, 'state.json')) },
  { name: 'store.json deleted', apply: (q) => rmSync(join(q, 'store.json')) },
  { name: 'current.json garbled', apply: (_q, top) => writeFileSync(join(top, 'current.json'), '{"generation": "00') },
  { name: 'current.json deleted', apply: (_q, top) => rmSync(join(top, 'current.json')) },
  { name: 'current.json names a generation that is gone', apply: (_q, top) => writeFileSync(join(top, 'current.json'), '{"generation": "999999-abcdef"}') },
);
/** The vector table of the default model (shared by every generation, in `.quarry/lancedb/`). */
const vectorTable = (top: string) => {
  const name = readdirSync(join(top, 'lancedb')).find((f) => f.startsWith('vectors_'));
  if (!name) throw new Error(`no vector table in ${join(top, 'lancedb')}`);
  return join(top, 'lancedb', name);
};
DAMAGES.push(
  { name: 'vector table: every data file deleted', vectors: true, apply: (_q, top) => filesIn(join(vectorTable(top), 'data')).forEach((f) => rmSync(f)) },
  { name: 'vector table: a data file truncated', vectors: true, apply: (_q, top) => filesIn(join(vectorTable(top), 'data')).forEach(halve) },
  { name: 'vector table: latest manifest garbled', vectors: true, apply: (_q, top) => garble(latestManifest(vectorTable(top))) },
  { name: 'vector table: _versions manifests deleted', vectors: true, apply: (_q, top) => rmSync(join(vectorTable(top), '_versions'), { recursive: true, force: true }) },
  { name: 'vector table: index files garbled', vectors: true, apply: (_q, top) => allFiles(join(vectorTable(top), '_indices')).forEach(garble) },
);

describe('reliability: each kind of damage is said, then healed by one `quarry index` (issue 20)', function () {
  this.timeout(300_000);
  let base: string;
  const clean: Record<'rules' | 'vectors', Fingerprint> = {} as Record<'rules' | 'vectors', Fingerprint>;

  before(async () => {
    base = tempDir('quarry-damage-');
    // BM25 only, rebuilt once with --full: the index lives in a generation folder
    const template = join(base, 'template');
    writeVersionA(template);
    writeConfig(template, 'rules');
    assert.equal(run(['index', '-p', template, '-q']).status, 0);
    assert.equal(run(['index', '-p', template, '-q', '--full']).status, 0);
    assert.notEqual(currentGenerationDir(template), join(template, '.quarry'));
    // the default configuration (the bundled code model): a vector table
    const vectors = join(base, 'template-vectors');
    writeVersionA(vectors);
    writeConfig(vectors, 'default');
    assert.equal(run(['index', '-p', vectors, '-q']).status, 0);
    for (const [key, dir] of [['rules', template], ['vectors', vectors]] as const) {
      const f = await fingerprint(dir);
      clean[key] = { chunks: f.chunks, files: f.files, answers: f.answers };
    }
  });
  after(() => removeDir(base));

  DAMAGES.forEach((d, i) => {
    it(d.name, async () => {
      const root = join(base, `case-${i}`);
      copyTree(join(base, d.vectors ? 'template-vectors' : 'template'), root);
      const top = join(root, '.quarry');
      const q = currentGenerationDir(root);
      const cleanAnswers = clean[d.vectors ? 'vectors' : 'rules'];
      d.apply(q, top);

      // search: the clean answer, or a warning (or a clear error) — never a silent empty or partial answer
      const s = run(['search', 'loadSettings3', '-p', root, '-o', 'json']);
      // no raw native error: whatever is said names the damage or the fix, without Rust source locations or stacks
      assert.doesNotMatch(s.stderr, /\.rs:\d+|\bat .*\.js:\d+/, s.stderr);
      for (const line of s.stderr.split('\n').filter((l) => /^Error:/.test(l))) assert.match(line, /damaged|quarry index/, s.stderr);
      let sound = false;
      if (s.status === 0) {
        const res = JSON.parse(s.stdout) as { warnings: string[]; matches: Array<{ file: { path: string }; content: { line_range: number[] } }> };
        const answer = res.matches.map((m) => `${m.file.path}:${m.content.line_range.join('-')}`).slice(0, 8);
        sound = JSON.stringify(answer) === JSON.stringify(cleanAnswers.answers['loadSettings3']);
        assert.ok(sound || res.warnings.length > 0, `silent answer ${JSON.stringify(answer)} (stderr: ${s.stderr})`);
        // a damaged vector table is found on open, quarantined, and said: search is keyword-only until `quarry index`
        if (d.vectors) assert.ok(res.warnings.some((w) => /vector table .* is damaged .*keyword search only/.test(w)), JSON.stringify(res.warnings));
      } else {
        assert.match(s.stderr, /^Error: .*(quarry index|damaged)/m);
      }
      // status: not healthy unless the index answers as the clean one does
      const st = run(['status', '-p', root, '--json']);
      if (st.status === 0) {
        const status = JSON.parse(st.stdout) as { health: { status: string }; problems: string[] };
        if (status.health.status === 'healthy') {
          const now = await fingerprint(root);
          const answersClean = JSON.stringify({ chunks: now.chunks, files: now.files, answers: now.answers }) === JSON.stringify(cleanAnswers);
          assert.ok(answersClean, `status healthy while the answers differ: ${JSON.stringify(now.answers)}`);
        }
        if (d.vectors) {
          assert.notEqual(status.health.status, 'healthy');
          assert.ok(status.problems.some((p) => /vector table .* is damaged/.test(p)), JSON.stringify(status.problems));
          assert.ok(!existsSync(vectorTableOrNone(top)), 'the damaged vector table was moved to the quarantine');
        }
      } else {
        assert.match(st.stderr, /^Error: .*(quarry index|damaged)/m);
      }

      // one `quarry index` heals
      const ix = run(['index', '-p', root, '-q']);
      assert.equal(ix.status, 0, ix.stderr);
      const healed = await fingerprint(root);
      assert.deepEqual({ chunks: healed.chunks, files: healed.files, answers: healed.answers }, cleanAnswers);
      assert.deepEqual([...healed.problems, ...healed.warnings], []);
      assert.deepEqual(layoutProblems(root), []);
      if (d.vectors) assert.ok(existsSync(vectorTable(top)), 'the vectors were computed again');
      const after = JSON.parse(run(['status', '-p', root, '--json']).stdout) as { health: { status: string } };
      assert.equal(after.health.status, 'healthy');
      removeDir(root);
    });
  });
});
