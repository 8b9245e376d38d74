/**
 * Freshness from the editor: open buffers are pushed to the engine with `setBuffer` (debounced per document,
 * `bufferDebounceMs`, default 200 ms; null on close) and a save re-indexes the file. Only the index owner writes.
 * A search sees the edits made before it: `flushBuffers` pushes a folder's pending buffers at once (when nothing else
 * is writing to the folder), so a search right after typing does not wait for the debounce nor miss the edit. Opening
 * a document as it is on disk writes nothing (it prepares its language's chunking in the background, so the first
 * edit is as quick as the next ones); closing a buffer that never reached the index writes nothing either.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { TextDocumentChangeEvent } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServerContext } from './context';
import { locateUri, owns, type Folder } from './folder';
import { writeToFolder } from './indexRuns';

type DocumentEvent = TextDocumentChangeEvent<TextDocument>;

/**
 * A document opened in a folder this server writes. Opened as it is on disk (the usual case: a file opened, a result
 * previewed), it changes nothing in the index — the change event that comes with every open is not an edit — and,
 * once the folder is searchable and warmed up, the engine loads what chunking its language needs
 * (`Engine.prepareEditing`: once per language), so that the first keystroke's update is as quick as the next ones.
 * Opened with other text (a buffer restored unsaved), it is pushed like an edit.
 */
export function bufferOpened(ctx: ServerContext, ev: DocumentEvent): void {
  const hit = locateUri(ctx.folders, ev.document.uri);
  if (!hit || !owns(hit.folder)) return;
  const { folder: f, rel } = hit;
  const uri = ev.document.uri;
  if (sameAsDisk(join(f.root, rel), ev.document.getText())) f.openedAsOnDisk.add(rel);
  void (async () => {
    await f.ready;
    await f.warming;
    const doc = ctx.documents.get(uri);
    if (!doc || f.closed || !f.engine) return;
    const prepared = await f.engine.prepareEditing(rel, doc.getText());
    if (prepared) ctx.log(`Quarry: prepared ${prepared.language} chunking for edits in ${prepared.ms} ms (${f.name}: ${rel} opened)`);
  })().catch(() => undefined);
}

/** Whether a file's content on disk is `text` (false when it cannot be read). */
function sameAsDisk(abs: string, text: string): boolean {
  try {
    const size = statSync(abs).size;
    // UTF-8 takes 1 to 3 bytes per UTF-16 unit: a file outside that range is not this text (and is not read)
    if (size < text.length || size > text.length * 3) return false;
    return readFileSync(abs, 'utf8') === text;
  } catch {
    return false;
  }
}

/** The buffer changed: its text goes to the engine once the edits pause. */
export function bufferChanged(ctx: ServerContext, ev: DocumentEvent): void {
  const hit = locateUri(ctx.folders, ev.document.uri);
  if (!hit || !owns(hit.folder)) return;
  const { folder: f, rel } = hit;
  if (f.openedAsOnDisk.delete(rel)) return;
  clearTimeout(f.bufferTimers.get(rel)?.timer);
  const uri = ev.document.uri;
  f.bufferTimers.set(rel, { uri, timer: setTimeout(() => void pushBuffer(ctx, f, rel, uri), bufferDelay(ctx)) });
}

/** Sends a pending buffer's current text to the engine (its timer is dropped); the write is tracked until it ends. */
function pushBuffer(ctx: ServerContext, f: Folder, rel: string, uri: string): Promise<unknown> {
  clearTimeout(f.bufferTimers.get(rel)?.timer);
  f.bufferTimers.delete(rel);
  const doc = ctx.documents.get(uri);
  if (!doc) return Promise.resolve();
  const text = doc.getText();
  f.pushedBuffers.add(rel);
  const write = writeToFolder(ctx, f, `updating the buffer of ${rel}`, (engine) => engine.setBuffer(rel, text)).finally(() => f.bufferWrites.delete(write));
  f.bufferWrites.add(write);
  return write;
}

/**
 * Before a search: the folder's buffers still waiting for their debounce go to the engine now, and the search waits
 * for them and for buffer writes already under way — unless an index run is in its keyword phase (it holds the
 * folder's write queue for a while): then the buffers keep their timers and the search does not wait behind the run.
 */
export async function flushBuffers(ctx: ServerContext, f: Folder): Promise<void> {
  if (!owns(f) || (f.running && !f.running.dense)) return;
  for (const [rel, { uri }] of [...f.bufferTimers]) void pushBuffer(ctx, f, rel, uri);
  if (f.bufferWrites.size) await Promise.all([...f.bufferWrites]);
}

/** The buffer closed: the file's saved content counts again (nothing to do when its text never reached the index). */
export function bufferClosed(ctx: ServerContext, ev: DocumentEvent): void {
  const hit = locateUri(ctx.folders, ev.document.uri);
  if (!hit || !owns(hit.folder)) return;
  const { folder: f, rel } = hit;
  f.openedAsOnDisk.delete(rel);
  clearTimeout(f.bufferTimers.get(rel)?.timer);
  const pending = f.bufferTimers.delete(rel);
  if (!f.pushedBuffers.delete(rel) && !pending) return;
  void writeToFolder(ctx, f, `closing the buffer of ${rel}`, (engine) => engine.setBuffer(rel, null));
}

/** The buffer was saved: the file is re-indexed. */
export function bufferSaved(ctx: ServerContext, ev: DocumentEvent): void {
  const hit = locateUri(ctx.folders, ev.document.uri);
  if (!hit || !owns(hit.folder)) return;
  const { folder: f, rel } = hit;
  clearTimeout(f.bufferTimers.get(rel)?.timer);
  f.bufferTimers.delete(rel);
  f.pushedBuffers.delete(rel);
  void writeToFolder(ctx, f, `re-indexing ${rel}`, (engine) => engine.updateFiles([rel]));
}

const bufferDelay = (ctx: ServerContext) => ctx.options.bufferDebounceMs ?? 200;
