/**
 * Freshness from the editor: open buffers are pushed to the engine with `setBuffer` (debounced per document,
 * `bufferDebounceMs`, default 200 ms; null on close) and a save re-indexes the file. Only the index owner writes.
 */
import type { TextDocumentChangeEvent } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ServerContext } from './context';
import { locateUri, owns } from './folder';
import { writeToFolder } from './indexRuns';

type DocumentEvent = TextDocumentChangeEvent<TextDocument>;

/** The buffer changed: its text goes to the engine once the edits pause. */
export function bufferChanged(ctx: ServerContext, ev: DocumentEvent): void {
  const hit = locateUri(ctx.folders, ev.document.uri);
  if (!hit || !owns(hit.folder)) return;
  const { folder: f, rel } = hit;
  clearTimeout(f.bufferTimers.get(rel));
  f.bufferTimers.set(
    rel,
    setTimeout(() => {
      f.bufferTimers.delete(rel);
      const doc = ctx.documents.get(ev.document.uri);
      if (!doc) return;
      const text = doc.getText();
      void writeToFolder(ctx, f, `updating the buffer of ${rel}`, (engine) => engine.setBuffer(rel, text));
    }, bufferDelay(ctx)),
  );
}

/** The buffer closed: the file's saved content counts again. */
export function bufferClosed(ctx: ServerContext, ev: DocumentEvent): void {
  const hit = locateUri(ctx.folders, ev.document.uri);
  if (!hit || !owns(hit.folder)) return;
  const { folder: f, rel } = hit;
  clearTimeout(f.bufferTimers.get(rel));
  f.bufferTimers.delete(rel);
  void writeToFolder(ctx, f, `closing the buffer of ${rel}`, (engine) => engine.setBuffer(rel, null));
}

/** The buffer was saved: the file is re-indexed. */
export function bufferSaved(ctx: ServerContext, ev: DocumentEvent): void {
  const hit = locateUri(ctx.folders, ev.document.uri);
  if (!hit || !owns(hit.folder)) return;
  const { folder: f, rel } = hit;
  clearTimeout(f.bufferTimers.get(rel));
  f.bufferTimers.delete(rel);
  void writeToFolder(ctx, f, `re-indexing ${rel}`, (engine) => engine.updateFiles([rel]));
}

const bufferDelay = (ctx: ServerContext) => ctx.options.bufferDebounceMs ?? 200;
