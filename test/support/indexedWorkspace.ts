/** One indexed workspace per mocha suite: made and indexed in `before`, closed and removed in `after`. */
import { Engine, type EngineOpenOptions } from '../../server/src/engine/engine';
import { removeDir, tempDir, writeFiles } from './workspace';

export interface IndexedWorkspace {
  /** The engine (valid inside the suite's tests). */
  engine(): Engine;
  root(): string;
}

/** `makeRoot` makes the workspace folder (a copied fixture, or written files); `open` are the engine's options. */
export function indexedWorkspace(makeRoot: () => string, open: EngineOpenOptions): IndexedWorkspace {
  let root: string | undefined;
  let engine: Engine | undefined;
  before(async () => {
    root = makeRoot();
    engine = await Engine.open(root, open);
    await engine.index();
  });
  after(async () => {
    await engine?.close();
    if (root) removeDir(root);
  });
  return {
    engine: () => engine!,
    root: () => root!,
  };
}

/** A `makeRoot` for `indexedWorkspace`: a temp folder holding `files` (path → text). */
export function writtenWorkspace(prefix: string, files: Record<string, string>): () => string {
  return () => {
    const dir = tempDir(prefix);
    writeFiles(dir, files);
    return dir;
  };
}
