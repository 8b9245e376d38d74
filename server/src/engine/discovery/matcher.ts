/**
 * The rule set discovery applies to one workspace: built-in exclusions, hidden directories,
 * `config.exclude`, git's ignore sources, secrets, the language registry and minified names.
 * Shared by the full walk (`discover`) and by single-path questions (`classifyPath`, file watchers).
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { DiscoveryConfig } from '../config/schema';
import { extensionOf, languageForPath } from '../languages';
import type { SkippedFile } from '../types';
import {
  compilePatterns,
  defaultIgnoreCase,
  EMPTY_SET,
  findRepo,
  loadGlobalSet,
  matchStack,
  repoAt,
  repoLayers,
  type Layer,
  type LayerStack,
  type PatternSet,
} from './gitignore';

/** Directories never walked, whatever the configuration (reason `excluded`). */
export const ALWAYS_EXCLUDED_DIRS: ReadonlySet<string> = new Set(['.git', '.quarry', 'node_modules', '__pycache__']);

/** Bundles recognised by name alone (reason `minified`). */
export const MINIFIED_NAME = /\.(min|bundle)\.(js|mjs|cjs|css)$/i;

export interface IgnoreMatcherOptions {
  /**
   * Override git's global excludes file: a path, or `null` for none. Default: ask git
   * (`core.excludesFile`), else `$XDG_CONFIG_HOME/git/ignore` / `~/.config/git/ignore`.
   */
  globalExcludesFile?: string | null;
  /** Case-insensitive pattern matching; default as git's core.ignorecase default for the platform. */
  ignoreCase?: boolean;
}

export type FileVerdict = { skipped: SkippedFile } | { language: string };

function toPosix(p: string): string {
  return path.sep === '/' ? p : p.split(path.sep).join('/');
}

async function readOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(p, 'utf8');
  } catch {
    return undefined;
  }
}

export class IgnoreMatcher {
  private readonly excludeSet: PatternSet;
  private readonly secretSet: PatternSet;
  private readonly allowedHidden: ReadonlySet<string>;
  private stackCache = new Map<string, Promise<LayerStack>>();

  private constructor(
    /** Absolute workspace root as given (resolved). */
    readonly rootAbs: string,
    /** Real path of the workspace root (symlinks resolved). */
    readonly rootReal: string,
    readonly config: DiscoveryConfig,
    /** Layers from above the workspace root: ancestor .gitignore files, info/exclude, global excludes. */
    readonly baseStack: LayerStack,
    private readonly globalSet: PatternSet,
    private readonly ignoreCase: boolean,
  ) {
    this.excludeSet = compilePatterns(config.exclude, ignoreCase);
    this.secretSet = config.excludeSecrets ? compilePatterns(config.secretPatterns, ignoreCase) : EMPTY_SET;
    this.allowedHidden = new Set(config.allowedHiddenDirs.map((d) => d.replace(/^\.\//, '').replace(/\/+$/, '')));
  }

  static async create(root: string, config: DiscoveryConfig, opts: IgnoreMatcherOptions = {}): Promise<IgnoreMatcher> {
    const rootAbs = path.resolve(root);
    const rootReal = await fsp.realpath(rootAbs);
    const ignoreCase = opts.ignoreCase ?? defaultIgnoreCase();
    let base: Layer[] = [];
    let globalSet: PatternSet = EMPTY_SET;
    if (config.respectGitignore) {
      const repo = await findRepo(rootReal);
      globalSet = await loadGlobalSet(repo?.top, ignoreCase, opts.globalExcludesFile);
      const rootPrefix = repo && repo.top !== rootReal ? toPosix(path.relative(repo.top, rootReal)) + '/' : '';
      // .gitignore files of directories between the repository top and the workspace root (exclusive).
      if (repo && rootPrefix) {
        const dirs: string[] = [];
        for (let d = path.dirname(rootReal); ; d = path.dirname(d)) {
          dirs.push(d);
          if (d === repo.top || path.dirname(d) === d) break;
        }
        for (const d of dirs) {
          // deepest first
          const text = await readOrUndefined(path.join(d, '.gitignore'));
          if (text === undefined) continue;
          const set = compilePatterns(text, ignoreCase);
          if (set.empty) continue;
          const prepend = toPosix(path.relative(d, rootReal)) + '/';
          const src = toPosix(path.relative(rootReal, path.join(d, '.gitignore')));
          base.push({ set, strip: 0, prepend, source: src });
        }
      }
      base = base.concat(await repoLayers(repo, globalSet, 0, rootPrefix, ignoreCase));
    }
    return new IgnoreMatcher(rootAbs, rootReal, config, base, globalSet, ignoreCase);
  }

  /**
   * The stack that applies to the entries of directory `dirRel` ('' for the root), given its parent's.
   * `hasGitignore` / `hasGit` say whether the directory holds those entries (undefined: look).
   */
  async childStack(parent: LayerStack, dirRel: string, dirAbs: string, hasGitignore?: boolean, hasGit?: boolean): Promise<LayerStack> {
    if (!this.config.respectGitignore) return parent;
    let stack = parent;
    const strip = dirRel === '' ? 0 : dirRel.length + 1;
    if (dirRel !== '' && hasGit !== false) {
      // A nested repository: git evaluates its contents with its own ignore sources only.
      const repo = await repoAt(dirAbs);
      if (repo) stack = await repoLayers(repo, this.globalSet, strip, '', this.ignoreCase);
    }
    if (hasGitignore !== false) {
      const text = await readOrUndefined(path.join(dirAbs, '.gitignore'));
      if (text !== undefined) {
        const set = compilePatterns(text, this.ignoreCase);
        if (!set.empty) {
          const source = dirRel === '' ? '.gitignore' : `${dirRel}/.gitignore`;
          stack = [{ set, strip, prepend: '', source }, ...stack];
        }
      }
    }
    return stack;
  }

  /** The (cached) stack for the entries of `dirRel`, built by reading .gitignore files from the root down. */
  stackFor(dirRel: string): Promise<LayerStack> {
    const hit = this.stackCache.get(dirRel);
    if (hit) return hit;
    const parentRel = dirRel.includes('/') ? dirRel.slice(0, dirRel.lastIndexOf('/')) : '';
    const p =
      dirRel === ''
        ? this.childStack(this.baseStack, '', this.rootAbs)
        : this.stackFor(parentRel).then((parent) => this.childStack(parent, dirRel, path.join(this.rootAbs, dirRel)));
    this.stackCache.set(dirRel, p);
    return p;
  }

  /** Drop cached .gitignore layers (call when a .gitignore or info/exclude changes). */
  invalidate(): void {
    this.stackCache.clear();
  }

  /** Whether a change to this workspace-relative path can change ignore decisions. */
  isIgnoreSource(relPath: string): boolean {
    const p = relPath.replace(/\\/g, '/');
    return p === '.gitignore' || p.endsWith('/.gitignore') || p.endsWith('.git/info/exclude') || p === '.git' || p.endsWith('/.git');
  }

  private allowedHiddenDir(name: string, rel: string): boolean {
    return this.allowedHidden.has(name) || this.allowedHidden.has(rel);
  }

  /** Rules for a directory entry `rel` (no trailing slash) named `name`, in the directory whose stack is `stack`. */
  checkDir(rel: string, name: string, stack: LayerStack): SkippedFile | undefined {
    if (ALWAYS_EXCLUDED_DIRS.has(name)) return { path: rel, reason: 'excluded', detail: 'built-in exclusion' };
    const ex = this.excludeSet.test(rel + '/');
    if (ex.ignored) return { path: rel, reason: 'excluded', detail: `exclude: ${ex.pattern}` };
    if (this.config.respectGitignore) {
      const m = matchStack(stack, rel, true);
      if (m) return { path: rel, reason: 'gitignored', detail: `${m.source}: ${m.pattern}` };
    }
    if (name.startsWith('.') && !this.allowedHiddenDir(name, rel)) return { path: rel, reason: 'hidden' };
    return undefined;
  }

  /** Name-only rules for a file entry (no file-system access). */
  checkFile(rel: string, name: string, stack: LayerStack): FileVerdict {
    const ex = this.excludeSet.test(rel);
    if (ex.ignored) return { skipped: { path: rel, reason: 'excluded', detail: `exclude: ${ex.pattern}` } };
    if (this.config.respectGitignore) {
      const m = matchStack(stack, rel, false);
      if (m) return { skipped: { path: rel, reason: 'gitignored', detail: `${m.source}: ${m.pattern}` } };
    }
    const sec = this.secretSet.test(rel);
    if (sec.ignored) return { skipped: { path: rel, reason: 'secret', detail: sec.pattern } };
    const lang = languageForPath(name, this.config.extraExtensions);
    if (!lang) return { skipped: { path: rel, reason: 'unknown-extension', detail: extensionOf(name) } };
    if (MINIFIED_NAME.test(name)) return { skipped: { path: rel, reason: 'minified', detail: 'bundle file name' } };
    return { language: lang.id };
  }

  /**
   * The secret pattern that matches a workspace-relative path (a symlink's TARGET is checked too: a link named
   * `settings.ts` that points at `.env` is a secret), or undefined.
   */
  secretPattern(rel: string): string | undefined {
    const sec = this.secretSet.test(rel);
    return sec.ignored ? sec.pattern : undefined;
  }

  /** Walks the ancestors of `relPath`: the first skipped ancestor, or the stack for the last segment. */
  private async ancestors(relPath: string): Promise<{ rel: string; name: string; stack: LayerStack; skip?: SkippedFile } | undefined> {
    const segs = relPath.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
    if (segs.length === 0) return undefined;
    const rel = segs.join('/');
    const name = segs[segs.length - 1]!;
    let stack = await this.stackFor('');
    for (let i = 0; i < segs.length - 1; i++) {
      const dirRel = segs.slice(0, i + 1).join('/');
      const skip = this.checkDir(dirRel, segs[i]!, stack);
      if (skip) {
        const detail = `in ${dirRel}/` + (skip.detail ? ` (${skip.detail})` : '');
        return { rel, name, stack, skip: { path: rel, reason: skip.reason, detail } };
      }
      stack = await this.stackFor(dirRel);
    }
    return { rel, name, stack };
  }

  /**
   * Rule-only verdict for one workspace-relative file, ancestors included (an entry inside a skipped
   * directory is skipped with that directory's reason). Reads only .gitignore files and `.git` markers.
   */
  async verdict(relPath: string): Promise<FileVerdict> {
    const a = await this.ancestors(relPath);
    if (!a) return { skipped: { path: relPath, reason: 'excluded', detail: 'the workspace root itself' } };
    if (a.skip) return { skipped: a.skip };
    return this.checkFile(a.rel, a.name, a.stack);
  }

  /** The skip for one path (a directory when `isDir`), or undefined when the rules accept it. */
  async check(relPath: string, isDir = false): Promise<SkippedFile | undefined> {
    if (!isDir) {
      const v = await this.verdict(relPath);
      return 'skipped' in v ? v.skipped : undefined;
    }
    const a = await this.ancestors(relPath);
    if (!a) return undefined;
    return a.skip ?? this.checkDir(a.rel, a.name, a.stack);
  }

  /** "Is this single path kept out of the index by the rules?" (for file-watch events). */
  async isIgnored(relPath: string, isDir = false): Promise<boolean> {
    return (await this.check(relPath, isDir)) !== undefined;
  }
}

/** Build the matcher for a workspace (reads the ignore sources above the root, asks git for core.excludesFile). */
export function createIgnoreMatcher(root: string, config: DiscoveryConfig, opts?: IgnoreMatcherOptions): Promise<IgnoreMatcher> {
  return IgnoreMatcher.create(root, config, opts);
}
