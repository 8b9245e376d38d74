import { isAbsolute, relative, resolve, sep } from 'node:path';

/** Workspace-relative forward-slash path of an absolute or relative path inside the root; undefined outside. */
export function toRelative(root: string, p: string): string | undefined {
  const abs = resolve(root, p);
  const rel = relative(root, abs).split(sep).join('/');
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : undefined;
}
