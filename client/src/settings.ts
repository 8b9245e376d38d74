/** `quarry.*` settings: what the server receives as initializationOptions, and per-search defaults. */
import * as vscode from 'vscode';
import type { QuarryInitializationOptions } from '../../server/src/lsp/protocol';

export interface ClientSettings {
  embeddingProvider: string;
  onnxModelPath: string;
  rerankProvider: string;
  indexOnStart: boolean;
  searchLimit: number;
  includeTests: boolean;
  /** Serve MCP over HTTP from the language server (and offer that endpoint to Copilot). */
  mcpHttp: boolean;
}

export function readSettings(): ClientSettings {
  const c = vscode.workspace.getConfiguration('quarry');
  return {
    embeddingProvider: c.get<string>('embedding.provider', 'auto'),
    onnxModelPath: c.get<string>('embedding.onnx.modelPath', ''),
    rerankProvider: c.get<string>('rerank.provider', 'auto'),
    indexOnStart: c.get<boolean>('indexOnStart', true),
    searchLimit: Math.max(1, Math.min(200, Math.floor(c.get<number>('search.limit', 20)))),
    includeTests: c.get<boolean>('search.includeTests', true),
    mcpHttp: c.get<boolean>('mcp.http', true),
  };
}

/**
 * The server reads `embedding`, `reranker`, `indexOnStart` and `mcp` today. `settings` carries the rest of the user's
 * choices (provider names, the ONNX model directory) in the shape of `.quarry/config.yml`, for the server to map.
 */
export function initializationOptions(lexicalOnly = false): QuarryInitializationOptions & { settings: Record<string, unknown> } {
  const s = readSettings();
  return {
    ...(s.embeddingProvider === 'none' || lexicalOnly ? { embedding: false } : {}),
    ...(s.rerankProvider === 'none' ? { reranker: false } : {}),
    indexOnStart: s.indexOnStart,
    mcp: { http: s.mcpHttp },
    settings: {
      embedding: {
        provider: s.embeddingProvider,
        ...(s.onnxModelPath ? { onnx: { modelPath: s.onnxModelPath } } : {}),
      },
      rerank: { provider: s.rerankProvider },
    },
  };
}

/** Settings whose change needs a server restart. */
export const RESTART_KEYS = ['quarry.embedding', 'quarry.rerank', 'quarry.indexOnStart', 'quarry.mcp.http'];
