/** Git metadata for code chunks (seed 003 FR-5.3, FR-5.4, FR-10.3); see metadata.ts for the definitions. */
export { runGit, streamGit, gitEnv, GitError, type GitRunOptions, type GitFailureKind } from './run';
export { parseBlamePorcelain, chunkBlameStats, BlameParseError, type BlameResult, type BlameCommit, type ChunkBlameStats } from './blame';
export { replayHistory, historyBlame, verifyLineCounts, countLines, DiffReplayer, type LineHistory } from './history';
export { openGitWorkspace, trackedFiles, currentHead, changedFilesSince, type GitWorkspace } from './repo';
export {
  computeGitMetadata, prepareHistory, effectiveConcurrency, HISTORY_MIN_FILES, DEFAULT_BLAME_TIMEOUT_MS, DEFAULT_GIT_CONCURRENCY,
  type GitStatus, type ChunkLines, type GitFileChunks, type ChunkGitInfo, type GitMetadataOptions, type GitMetadataResult,
} from './metadata';
