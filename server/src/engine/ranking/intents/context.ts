/**
 * What the intent stages read from the stage context, and what they write on candidates.
 * The lead attaches `intent?: DetectedIntents` to StageContext and `intent?: IntentAnnotations` to Candidate;
 * until then the stages detect from `ctx.query` / `ctx.options.intent` and write through a cast.
 */
import type { Candidate, StageContext } from '../candidate';
import type { Chunk } from '../../types';
import { detectIntents } from './detect';
import { isMostlyComment } from '../../tokenize/comments';

export type { DetectedIntents, IntentContext, IntentAnnotations } from './types';
import type { DetectedIntents, IntentContext, IntentAnnotations } from './types';

export type IntentCandidate = Candidate & { intent?: IntentAnnotations };

export function annotations(c: Candidate): IntentAnnotations {
  const ic = c as IntentCandidate;
  return (ic.intent ??= {});
}

const cache = new WeakMap<object, DetectedIntents>();

/** `ctx.intent` when the pipeline attached it; otherwise detected once per context from the query. */
export function intentsOf(ctx: StageContext): DetectedIntents {
  const attached = (ctx as StageContext & IntentContext).intent;
  if (attached) return attached;
  let d = cache.get(ctx);
  if (!d) {
    d = detectIntents(ctx.query.text, ctx.options.intent ?? ctx.query.intent);
    cache.set(ctx, d);
  }
  return d;
}

/**
 * Document/knowledge chunks (seed 004's domain): Markdown sections, text windows, any Markdown file, and code chunks
 * that are prose (a package's doc comment in Go's doc.go, a module docstring: comments with almost no code).
 */
export function isDocumentChunk(chunk: Chunk): boolean {
  return chunk.kind === 'section' || chunk.kind === 'text' || chunk.language === 'markdown' || (chunk.kind === 'code' && isProse(chunk));
}

/** `isMostlyComment` of code chunks, remembered by content hash (bounded): several stages ask it of every candidate. */
const PROSE = new Map<string, boolean>();
const MAX_PROSE = 16_384;

function isProse(chunk: Chunk): boolean {
  const key = chunk.contentHash ? `${chunk.language}:${chunk.contentHash}` : undefined;
  let prose = key === undefined ? undefined : PROSE.get(key);
  if (prose === undefined) {
    prose = isMostlyComment(chunk.content, chunk.language);
    if (key !== undefined) {
      if (PROSE.size >= MAX_PROSE) PROSE.delete(PROSE.keys().next().value!);
      PROSE.set(key, prose);
    }
  }
  return prose;
}
