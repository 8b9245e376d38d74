/**
 * Configured knowledge folders (`knowledge.folders`, seed 003 FR-3.2/FR-3.6/FR-10.1): folders inside the workspace
 * whose Markdown files are indexed even when discovery would skip them (gitignored, hidden such as
 * `.aurora/logs/conversations`). Walked recursively (`YYYY/MM/*.md`); symbolic links are not followed; `.git`,
 * `.quarry`, `node_modules` and `__pycache__` are never entered; files over `discovery.maxFileSizeBytes` are skipped
 * as `too-large`. A folder that is missing or empty is a warning, never a failure. Folders outside the workspace
 * (`~/.aurora/logs/conversations`) are indexed under their absolute paths (forward slashes); the doors resolve result
 * paths against the workspace, so an absolute one stays itself. Their files are refreshed by index runs (editor file
 * events only cover the workspace).
 * Conversation logs are recognised by their content (chunking/conversation.ts), so these folders only widen what is
 * read; they do not change how a file is chunked.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { QuarryConfig } from '../config/schema';
import type { DiscoveredFile, SkippedFile } from '../types';
import { ALWAYS_EXCLUDED_DIRS } from '../discovery';
import { languageForPath } from '../languages';

export interface KnowledgeDiscovery {
  /** Markdown files in the folders, sorted by workspace-relative path. */
  files: DiscoveredFile[];
  skipped: SkippedFile[];
  /** Workspace-relative folder paths that exist and were walked. */
  folders: string[];
  warnings: string[];
}

/**
 * A configured folder as the path its files are indexed under: workspace-relative (forward slashes) inside the
 * workspace, absolute (forward slashes, `~` expanded) outside it — e.g. `~/.aurora/logs/conversations` (seed 003
 * FR-3.2). Undefined for a folder that contains the workspace (it would index the workspace twice).
 */
export function knowledgeFolderPath(root: string, folder: string): string | undefined {
  const expanded = folder === '~' || folder.startsWith('~/') || folder.startsWith('~\\') ? path.join(os.homedir(), folder.slice(1)) : folder;
  const abs = path.resolve(root, expanded);
  const rel = path.relative(root, abs).split(path.sep).join('/');
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  const toRoot = path.relative(abs, root);
  if (!toRoot.startsWith('..') && !path.isAbsolute(toRoot)) return undefined;
  return abs.split(path.sep).join('/');
}

/** The configured folder that contains the workspace-relative `rel`, if any ('' = the workspace itself). */
export function knowledgeFolderOf(root: string, config: QuarryConfig, rel: string): string | undefined {
  for (const f of config.knowledge.folders) {
    const folder = knowledgeFolderPath(root, f);
    if (folder === undefined) continue;
    if (folder === '' || rel === folder || rel.startsWith(folder + '/')) return folder;
  }
  return undefined;
}

function isMarkdown(rel: string, config: QuarryConfig): boolean {
  return languageForPath(rel, config.discovery.extraExtensions)?.id === 'markdown';
}

/** Lists the Markdown files of every configured knowledge folder, with a warning for each unusable folder. */
export async function discoverKnowledge(root: string, config: QuarryConfig): Promise<KnowledgeDiscovery> {
  const out: KnowledgeDiscovery = { files: [], skipped: [], folders: [], warnings: [] };
  const seen = new Set<string>();
  for (const configured of config.knowledge.folders) {
    const folder = knowledgeFolderPath(root, configured);
    if (folder === undefined) {
      out.warnings.push(`Knowledge folder ${configured} contains the workspace and was not indexed; name a folder of notes or logs instead.`);
      continue;
    }
    const shown = `${folder || '.'}/`;
    let stat;
    try {
      stat = await fs.stat(path.resolve(root, folder));
    } catch {
      out.warnings.push(`No conversation logs found in ${shown} (the knowledge folder does not exist).`);
      continue;
    }
    if (!stat.isDirectory()) {
      out.warnings.push(`Knowledge folder ${configured} is not a folder; it was not indexed.`);
      continue;
    }
    out.folders.push(folder);
    const before = out.files.length + out.skipped.length;
    await walk(root, folder, config, out, seen);
    if (out.files.length + out.skipped.length === before) {
      out.warnings.push(`No conversation logs found in ${shown} (no Markdown files).`);
    }
  }
  out.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

async function walk(root: string, dir: string, config: QuarryConfig, out: KnowledgeDiscovery, seen: Set<string>): Promise<void> {
  let entries;
  try {
    entries = await fs.readdir(path.resolve(root, dir), { withFileTypes: true });
  } catch (e) {
    out.skipped.push({ path: dir, reason: 'unreadable', detail: (e as NodeJS.ErrnoException).code ?? String(e) });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!ALWAYS_EXCLUDED_DIRS.has(e.name)) await walk(root, rel, config, out, seen);
    } else if (e.isFile() && isMarkdown(rel, config) && !seen.has(rel)) {
      seen.add(rel);
      const file = await knowledgeFile(root, rel, config);
      if ('absPath' in file) out.files.push(file);
      else out.skipped.push(file);
    }
  }
}

/** One file of a knowledge folder, classified: accepted, too large, or unreadable (gone). */
export async function knowledgeFile(root: string, rel: string, config: QuarryConfig): Promise<DiscoveredFile | SkippedFile> {
  const absPath = path.resolve(root, rel);
  try {
    const st = await fs.lstat(absPath);
    if (!st.isFile()) return { path: rel, reason: 'unreadable', detail: 'not a regular file' };
    if (st.size > config.discovery.maxFileSizeBytes) return { path: rel, reason: 'too-large', detail: `${st.size} bytes` };
    return { path: rel, absPath, language: 'markdown', size: st.size, mtimeMs: st.mtimeMs };
  } catch (e) {
    return { path: rel, reason: 'unreadable', detail: (e as NodeJS.ErrnoException).code ?? String(e) };
  }
}

/** Whether a workspace-relative path is a Markdown file under a configured knowledge folder. */
export function isKnowledgePath(root: string, config: QuarryConfig, rel: string): boolean {
  return knowledgeFolderOf(root, config, rel) !== undefined && isMarkdown(rel, config);
}
