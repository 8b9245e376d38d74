/**
 * Editors' unsaved buffers (Engine.setBuffer, prepareEditing): a buffer's text replaces its file's chunks until it is
 * saved or closed, and the chunking of a language is loaded before its first buffer needs it.
 */
import { createHash } from 'node:crypto';
import type { QuarryConfig } from '../config/schema';
import { chunkFile } from '../chunking';
import { languageDefinition } from '../chunking/languages/registry';
import { languageForPath } from '../languages';
import { acquireIndexLock } from './lock';
import { lexicalDocForChunk } from './lexicalDoc';
import type { EngineContext } from '../facade/context';
import { toRelative } from '../facade/workspacePaths';
import { forgetLexicalAgreement, lexicalAgreementKnown, recordLexicalAgreement } from '../openIndex';

/**
 * Writes a buffer's chunks in place of its file's (the caller runs it in the engine's write queue). The file record is
 * marked stale so that the next run re-reads the disk version.
 */
export async function overlayBuffer(ctx: EngineContext, rel: string, language: string, text: string): Promise<void> {
  ctx.symbolTable = undefined;
  const release = acquireIndexLock(ctx.quarryDir);
  try {
    const chunks = await chunkFile({ path: rel, language, content: text }, ctx.config.chunking);
    // both stores are written below: their agreement (openIndex.ts) is unknown until both writes are done
    const dir = ctx.generation.dir;
    const agreed = lexicalAgreementKnown(dir, ctx.lexical);
    if (agreed) forgetLexicalAgreement(dir);
    // the chunk tables, the file record and the lexical index are independent writes: side by side, so that a
    // search waiting for this buffer (the language server's flush) waits for the slowest, not their sum
    ctx.lexical.removePaths([rel]);
    ctx.lexical.add(chunks.map(lexicalDocForChunk));
    await Promise.all([
      ctx.store.replacePaths([rel], chunks, [
        { path: rel, size: -1, mtimeMs: 0, hash: `buffer:${createHash('sha256').update(text).digest('hex')}`, language, chunkCount: chunks.length, indexedAt: Date.now() },
      ]),
      ctx.lexical.commit(),
    ]);
    if (agreed) recordLexicalAgreement(dir, ctx.lexical);
    // a buffer may change what its language derives (a Go buffer adds or drops methods): the rows follow (best effort)
    const derived = languageDefinition(language)?.derivedConformances;
    if (derived) await derived.refresh(ctx.store).catch(() => undefined);
  } finally {
    release();
  }
}

/** Languages whose chunking `prepareEditing` has already loaded in this process. */
const editingPrepared = new Set<string>();

/**
 * Loads what the first `setBuffer` of this file's language would otherwise pay for — its tree-sitter grammar and
 * the BPE tables that size chunks (about 0.7 s on 2 cores, most of a first edit's time) — by chunking the text as
 * opened, without writing anything. Once per language and process. Returns what it loaded, or undefined when there
 * was nothing to load (not a known language, or prepared before).
 */
export async function prepareEditing(root: string, config: QuarryConfig, path: string, text: string): Promise<{ language: string; ms: number } | undefined> {
  const rel = toRelative(root, path);
  const lang = rel === undefined ? undefined : languageForPath(rel, config.discovery.extraExtensions);
  if (!lang || editingPrepared.has(lang.id)) return undefined;
  editingPrepared.add(lang.id);
  const t0 = performance.now();
  await chunkFile({ path: rel!, language: lang.id, content: text }, config.chunking);
  return { language: lang.id, ms: Math.round(performance.now() - t0) };
}
