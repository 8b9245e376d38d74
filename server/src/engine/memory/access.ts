/**
 * Access memory over the index: which chunks a reference names (a chunk id, or a path and line → the innermost chunk
 * there), and each chunk's activation evidence — accesses from the log (memory/activation.ts) and git history from
 * the index (seed 003 FR-5.3, FR-6.4) — for the ranking's activation stage.
 */
import type { ChunkStore } from '../store/chunkStore';
import type { ActivationFacts } from '../ranking/candidate';
import { type AccessLog, baseLevelActivation } from './activation';

/** A used result: its chunk id, or a path (workspace-relative) and a 1-based line. */
export interface ResolvedRef {
  chunkId?: string;
  /** Workspace-relative path, or undefined when the reference points outside the workspace. */
  rel?: string;
  line?: number;
  /** How the reference reads in an "unknown" list. */
  label: string;
}

/** The chunk ids the references name, and those that name nothing in the index. */
export async function resolveAccessRefs(store: ChunkStore, refs: readonly ResolvedRef[]): Promise<{ ids: string[]; unknown: string[] }> {
  const ids = new Set<string>();
  const unknown: string[] = [];
  const byId = refs.filter((r) => r.chunkId).map((r) => r.chunkId!);
  const found = new Set((await store.getChunks(byId)).map((c) => c.id));
  for (const id of byId) (found.has(id) ? ids.add(id) : unknown.push(id));
  for (const r of refs.filter((x) => !x.chunkId)) {
    const id = r.rel === undefined || r.line === undefined ? undefined : await chunkAt(store, r.rel, r.line);
    if (id) ids.add(id);
    else unknown.push(r.label);
  }
  return { ids: [...ids], unknown };
}

/** The innermost chunk of `rel` containing `line`. */
async function chunkAt(store: ChunkStore, rel: string, line: number): Promise<string | undefined> {
  const spans = (await store.chunkSpansOf([rel])).filter((c) => c.startLine <= line && line <= c.endLine);
  spans.sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine));
  return spans[0]?.id;
}

/** Activation evidence of chunks: accesses (memory log) and git history (index time). */
export async function activationFacts(store: ChunkStore, log: AccessLog, ids: readonly string[], now = Date.now()): Promise<Map<string, ActivationFacts>> {
  const history = log.history();
  const git = await store.gitRowsOf(ids).catch(() => []);
  const gitById = new Map(git.map((g) => [g.chunkId, g]));
  const out = new Map<string, ActivationFacts>();
  for (const id of ids) {
    const accesses = history.get(id) ?? [];
    const g = gitById.get(id);
    const facts: ActivationFacts = { accesses: accesses.length };
    if (accesses.length) facts.lastAccessMs = accesses[accesses.length - 1];
    if (g) facts.git = { status: g.status, commits: g.commits, lastModifiedMs: g.lastModifiedMs, computedAt: g.computedAt };
    facts.raw = baseLevelActivation({ accesses, commits: g?.status === 'tracked' ? g.commits : 0, lastModifiedMs: g?.lastModifiedMs }, now);
    out.set(id, facts);
  }
  return out;
}
