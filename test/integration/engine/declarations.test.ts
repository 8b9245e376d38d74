/**
 * Issue 18, end to end on a real tree: a copy of this repository's `server/src`. The declarations are derived with a
 * method independent of the chunker — a regular expression over `export (class|function|interface|type|const|enum|let)
 * NAME` lines — and every name declared exactly once in the tree must be found by its bare name, first, at its own
 * name (exact line and UTF-16 column):
 * - through the engine (`search`, the result's `name_range`; `symbols`, the symbol table's name range);
 * - through the real LSP server over stdio (`codeSearch/find` location and `workspace/symbol` location.range).
 * Nothing is listed by hand: change the tree and the expectations change with it.
 */
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Engine } from '../../../server/src/engine/engine';
import { removeDir, REPO_ROOT, tempDir, writeFiles } from '../../support/workspace';
import { LspTestClient } from '../lsp/lspClient';

interface Declaration {
  name: string;
  path: string;
  /** 1-based line and UTF-16 column of the name. */
  line: number;
  column: number;
}

const EXPORTED = /^export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:class|function\*?|interface|type|const|enum|let)\s+([A-Za-z_$][\w$]*)/;
/** Any line that may declare or define NAME some other way (a local, a member, a parameter property, an object key). */
const anyDefinition = (name: string, flags = '') =>
  new RegExp(`(?:\\b(?:class|function\\*?|interface|type|const|let|var|enum|namespace)\\s+${esc(name)}\\b)|(?:^\\s*(?:(?:public|private|protected|static|readonly|async|abstract|override|get|set|declare)\\s+)*${esc(name)}\\s*[?!]?\\s*[(<:=])`, flags);

function esc(s: string): string {
  return s.replace(/[$]/g, '\\$');
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/**
 * Exported declarations whose name is defined exactly once in the whole tree (by any shape `anyDefinition` knows):
 * `unique` even ignoring case; `caseTwins` only when case counts (`languageDefinition` beside `LanguageDefinition`).
 */
function uniqueDeclarations(root: string): { unique: Declaration[]; caseTwins: Declaration[]; all: number } {
  const files = tsFiles(root).map((abs) => ({ path: relative(root, abs).split(sep).join('/'), lines: readFileSync(abs, 'utf8').split('\n') }));
  const found: Declaration[] = [];
  for (const f of files) {
    f.lines.forEach((text, i) => {
      const m = EXPORTED.exec(text);
      if (m) found.push({ name: m[1], path: f.path, line: i + 1, column: m.index + m[0].length - m[1].length + 1 });
    });
  }
  const count = (re: RegExp) => files.reduce((n, f) => n + f.lines.filter((l) => re.test(l)).length, 0);
  const once = found.filter((d) => d.name.length >= 3 && count(anyDefinition(d.name)) === 1);
  const unique = once.filter((d) => count(anyDefinition(d.name, 'i')) === 1);
  return { unique, caseTwins: once.filter((d) => !unique.includes(d)), all: found.length };
}

const at = (d: Declaration) => `${d.path}:${d.line}:${d.column}`;

describe('issue 18: every exported declaration of a real tree is found first, at its name (server/src copy)', function () {
  this.timeout(600_000);
  let root: string;
  let decls: Declaration[];
  let caseTwins: Declaration[];

  before(() => {
    root = tempDir('quarry-decls-');
    cpSync(join(REPO_ROOT, 'server', 'src'), join(root, 'src'), { recursive: true });
    writeFiles(root, { '.quarry/config.yml': 'embedding:\n  provider: none\nrerank:\n  provider: none\n' });
    const { unique, all, caseTwins: twins } = uniqueDeclarations(root);
    decls = unique;
    caseTwins = twins;
    // the derivation is meaningful: most exported names are unique in this tree
    assert.ok(all > 300, `exported declarations: ${all}`);
    assert.ok(decls.length > all / 2, `unique: ${decls.length} of ${all}`);
  });
  after(() => removeDir(root));

  describe('through the engine', () => {
    let engine: Engine;
    before(async () => {
      engine = await Engine.open(root);
      const s = await engine.index();
      assert.equal(s.errors.length, 0, JSON.stringify(s.errors));
    });
    after(async () => engine?.close());

    it('search(NAME): the declaration first, name_range on the identifier', async () => {
      const misses: string[] = [];
      for (const d of decls) {
        const res = await engine.search(d.name, { limit: 3 });
        const top = res.matches[0];
        const got = top ? `${top.file.path}:${top.name_range.line}:${top.name_range.column}` : '(nothing)';
        if (got !== at(d) || top.name_range.end_column !== d.column + d.name.length || top.name_range.end_line !== d.line) {
          misses.push(`${d.name}: want ${at(d)}, got ${got} ${top?.content.symbol ?? ''}`);
        }
      }
      assert.deepEqual(misses, [], `${misses.length} of ${decls.length} declarations missed:\n${misses.join('\n')}`);
    });

    it('search(NAME) for a name whose only twin differs in case (languageDefinition / LanguageDefinition): in the top 3, at its name', async () => {
      // Search is case-insensitive and the type boost lifts the type twin: ranking does not prefer the exact case yet.
      const misses: string[] = [];
      for (const d of caseTwins) {
        const res = await engine.search(d.name, { limit: 3 });
        const hit = res.matches.find((m) => `${m.file.path}:${m.name_range.line}:${m.name_range.column}` === at(d));
        if (!hit) misses.push(`${d.name}: want ${at(d)} in ${res.matches.map((m) => `${m.file.path}:${m.name_range.line}:${m.name_range.column}`).join(', ')}`);
      }
      assert.deepEqual(misses, [], misses.join('\n'));
    });

    it('symbols(NAME): an exact entry first, at the identifier (case twins included: the exact case wins)', async () => {
      const misses: string[] = [];
      for (const d of [...decls, ...caseTwins]) {
        const hits = await engine.symbols(d.name, 5);
        const h = hits.find((x) => x.name === d.name && x.match === 'exact');
        if (!h || hits[0] !== h || `${h.path}:${h.nameRange.line}:${h.nameRange.column}` !== at(d)) {
          misses.push(`${d.name}: want ${at(d)}, got ${hits.slice(0, 2).map((x) => `${x.name} ${x.path}:${x.nameRange.line}:${x.nameRange.column}`).join(', ')}`);
        }
      }
      assert.deepEqual(misses, [], `${misses.length} of ${decls.length}:\n${misses.join('\n')}`);
    });
  });

  describe('through the LSP server (stdio)', () => {
    let client: LspTestClient;
    type Range = { start: { line: number; character: number }; end: { line: number; character: number } };
    const lspAt = (uri: string, r: Range) => `${uri}#${r.start.line + 1}:${r.start.character + 1}-${r.end.line + 1}:${r.end.character + 1}`;
    const want = (d: Declaration) => lspAt(pathToFileURL(join(root, d.path)).href, { start: { line: d.line - 1, character: d.column - 1 }, end: { line: d.line - 1, character: d.column - 1 + d.name.length } });

    before(async () => {
      client = LspTestClient.spawn();
      await client.initialize([root]);
      await client.waitForIndexed(300_000);
    });
    after(async () => {
      await client?.shutdown().catch(() => client.child.kill('SIGKILL'));
    });

    it('codeSearch/find NAME: the first location is the identifier', async () => {
      const misses: string[] = [];
      for (const d of decls) {
        const res = await client.conn.sendRequest<{ locations: Array<{ uri: string; range: Range }> }>('codeSearch/find', { query: d.name, limit: 3 });
        const loc = res.locations[0];
        const got = loc ? lspAt(loc.uri, loc.range) : '(nothing)';
        if (got !== want(d)) misses.push(`${d.name}: want ${want(d)}, got ${got}`);
      }
      assert.deepEqual(misses, [], `${misses.length} of ${decls.length}:\n${misses.join('\n')}`);
    });

    it('workspace/symbol NAME: the first symbol is the declaration, its range the identifier (case twins included)', async () => {
      const misses: string[] = [];
      for (const d of [...decls, ...caseTwins]) {
        const res = await client.conn.sendRequest<Array<{ name: string; location: { uri: string; range: Range } }>>('workspace/symbol', { query: d.name });
        const s = res[0];
        const got = s ? `${s.name} ${lspAt(s.location.uri, s.location.range)}` : '(nothing)';
        if (got !== `${d.name} ${want(d)}`) misses.push(`${d.name}: want ${want(d)}, got ${got}`);
      }
      assert.deepEqual(misses, [], `${misses.length} of ${decls.length}:\n${misses.join('\n')}`);
    });
  });
});
