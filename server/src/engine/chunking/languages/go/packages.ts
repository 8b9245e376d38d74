/**
 * Which package a Go name belongs to: the `package` clause, import aliases and dot imports of a file, the default
 * name of an import path, and a folder's package when no clause was seen (a folder is a package).
 */
import { blankGoNoise, ID } from './source';

const PACKAGE_CLAUSE = new RegExp(String.raw`^package[ \t]+(${ID})`, 'mu');

/** The name in a piece of Go source's `package` clause, if it has one (comments and strings do not count). */
export function packageIn(text: string): string | undefined {
  if (!PACKAGE_CLAUSE.test(text)) return undefined;
  const m = PACKAGE_CLAUSE.exec(text.includes('/*') || text.includes('`') ? blankGoNoise(text) : text);
  return m ? m[1] : undefined;
}

const IMPORT_SPEC = new RegExp(String.raw`^(?:import)?[ \t]*(${ID}|\.)?[ \t]*"([^"\n]+)"`, 'gmu');
const IMPORT_BLOCK = /^import[ \t]*\(([\s\S]*?)^\)/gm;
const IMPORT_LINE = /^import[ \t]+[^(\n]*$/gm;

/** The package name an import path gives by default: its last element (`math/rand/v2` → rand, `yaml.v3` → yaml). */
export function goPackageNameOfPath(path: string): string {
  const parts = path.split('/');
  let last = parts[parts.length - 1] ?? '';
  if (/^v\d+$/.test(last) && parts.length > 1) last = parts[parts.length - 2];
  return last.replace(/\.v\d+$/, '').replace(/^go-/, '').replace(/[.-]/g, '_');
}

/** Import aliases (`alias "path"` → alias → the path's package name) and whether a dot import is among the imports. */
export function goImportsIn(text: string): { aliases: Map<string, string>; dotImport: boolean } {
  const aliases = new Map<string, string>();
  let dotImport = false;
  if (!/^import\b/m.test(text)) return { aliases, dotImport };
  const specs: string[] = [];
  for (const m of text.matchAll(IMPORT_BLOCK)) specs.push(m[1]);
  for (const m of text.matchAll(IMPORT_LINE)) specs.push(m[0]);
  for (const block of specs) {
    for (const m of block.matchAll(IMPORT_SPEC)) {
      const alias = m[1];
      if (alias === '.') dotImport = true;
      else if (alias && alias !== '_') aliases.set(alias, goPackageNameOfPath(m[2]));
    }
  }
  return { aliases, dotImport };
}

/** The package a folder's files belong to when no `package` clause was seen: its name (`math/rand/v2` → rand). */
export function folderPackage(dir: string): string {
  const parts = dir.split('/');
  let base = parts[parts.length - 1] ?? '';
  if (/^v\d+$/.test(base) && parts.length > 1) base = parts[parts.length - 2];
  return base;
}

/** The folder of a workspace-relative path ('' at the root). */
export const dirOf = (path: string) => {
  const i = path.lastIndexOf('/');
  return i === -1 ? '' : path.slice(0, i);
};
