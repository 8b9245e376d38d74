/**
 * Loading a Hugging Face-layout model directory (config.json, tokenizer.json, onnx/model*.onnx) with
 * @huggingface/transformers on onnxruntime-node, fully offline unless downloads are enabled.
 * The library is imported lazily: its native runtime is only loaded when a local model is used.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ProviderUnavailableError } from './types';

export type Transformers = typeof import('@huggingface/transformers', { with: { 'resolution-mode': 'import' } });

let transformersPromise: Promise<Transformers> | undefined;
/** The transformers.js module (loaded once). */
export function loadTransformers(): Promise<Transformers> {
  transformersPromise ??= import('@huggingface/transformers').catch((err) => {
    transformersPromise = undefined;
    throw new ProviderUnavailableError(
      'onnx',
      `onnx: cannot load @huggingface/transformers / onnxruntime-node (${(err as Error).message}). ` +
        `Fix: reinstall dependencies (npm ci; the onnxruntime-node postinstall needs ONNXRUNTIME_NODE_INSTALL_CUDA=skip offline).`,
      false,
    );
  });
  return transformersPromise;
}

/** dtype suffixes transformers.js understands (`onnx/model{suffix}.onnx`). */
const DTYPE_BY_SUFFIX: Record<string, string> = {
  '': 'fp32',
  _quantized: 'q8',
  _fp16: 'fp16',
  _int8: 'int8',
  _uint8: 'uint8',
  _q4: 'q4',
  _bnb4: 'bnb4',
  _q4f16: 'q4f16',
};

export interface ResolvedModelDir {
  dir: string;
  name: string;
  /** Path of the ONNX file that will be loaded. */
  onnxFile: string;
  /** Options for `from_pretrained` that select that file. */
  dtype: string;
  modelFileName: string;
}

/** Conventional places to look for a model called `name` (first existing wins). */
export function conventionalModelDirs(name: string, opts: { extensionDir?: string; home?: string; workspaceDir?: string } = {}): string[] {
  const dirs: string[] = [];
  if (opts.workspaceDir) dirs.push(join(opts.workspaceDir, '.quarry', 'models', name));
  if (opts.extensionDir) dirs.push(join(opts.extensionDir, 'models', name));
  const home = opts.home ?? process.env.HOME ?? process.env.USERPROFILE;
  if (home) dirs.push(join(home, '.cache', 'quarry', 'models', name));
  return dirs;
}

/** True when `dir` looks like a usable model directory (no error thrown). */
export function looksLikeModelDir(dir: string): boolean {
  try {
    return statSync(dir).isDirectory() && existsSync(join(dir, 'config.json')) && existsSync(join(dir, 'tokenizer.json')) && findOnnx(dir, 'auto') !== undefined;
  } catch {
    return false;
  }
}

function findOnnx(dir: string, file: string): string | undefined {
  const onnxDir = join(dir, 'onnx');
  if (file !== 'auto') {
    const p = file.includes('/') ? join(dir, file) : join(onnxDir, file);
    return existsSync(p) ? p : undefined;
  }
  for (const f of ['model_quantized.onnx', 'model.onnx']) if (existsSync(join(onnxDir, f))) return join(onnxDir, f);
  return undefined;
}

/** Checks the directory and picks the ONNX file; throws ProviderUnavailableError naming what is missing. */
export function resolveModelDir(dirPath: string, file: string, provider: string): ResolvedModelDir {
  const dir = resolve(dirPath);
  const fail = (why: string) => {
    throw new ProviderUnavailableError(
      provider,
      `${provider}: model directory ${dir} ${why}. Fix: point the modelPath setting at a Hugging Face ONNX export ` +
        `(config.json, tokenizer.json, onnx/model.onnx or onnx/model_quantized.onnx), e.g. Xenova/all-MiniLM-L6-v2 downloaded beforehand.`,
      false,
    );
  };
  if (!existsSync(dir)) fail('does not exist');
  if (!statSync(dir).isDirectory()) fail('is not a directory');
  for (const f of ['config.json', 'tokenizer.json']) if (!existsSync(join(dir, f))) fail(`has no ${f}`);
  const onnxFile = findOnnx(dir, file);
  if (!onnxFile) {
    const have = existsSync(join(dir, 'onnx')) ? readdirSync(join(dir, 'onnx')).join(', ') || 'nothing' : 'no onnx/ folder';
    fail(`has no ${file === 'auto' ? 'onnx/model.onnx or onnx/model_quantized.onnx' : file} (found: ${have})`);
  }
  const base = basename(onnxFile!, '.onnx');
  if (dirname(onnxFile!) !== join(dir, 'onnx')) fail(`: the ONNX file must be inside ${join(dir, 'onnx')}`);
  let dtype = 'fp32';
  let modelFileName = 'model';
  const m = /^model(_[a-z0-9]+)?$/.exec(base);
  if (m && DTYPE_BY_SUFFIX[m[1] ?? ''] !== undefined) dtype = DTYPE_BY_SUFFIX[m[1] ?? '']!;
  else modelFileName = base; // a custom name: loaded as fp32 under that name
  return { dir, name: basename(dir), onnxFile: onnxFile!, dtype, modelFileName };
}

/** First 12 hex digits of the sha256 of a file. */
export async function shortFileHash(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex').slice(0, 12);
}

let loadQueue: Promise<unknown> = Promise.resolve();

export interface LoadedModel<M> {
  tokenizer: any;
  model: M;
  hash: string;
  resolved: ResolvedModelDir;
}

/**
 * Loads tokenizer and model from a directory. transformers.js resolves models through a global `env`
 * (localModelPath + model name), so loads are serialised and `env` is set for each.
 */
export async function loadLocalModel(
  resolved: ResolvedModelDir,
  kind: 'feature-extraction' | 'sequence-classification',
  opts: { allowRemoteModels: boolean; threads: number; provider: string },
): Promise<LoadedModel<any>> {
  const tf = await loadTransformers();
  const run = async () => {
    tf.env.allowRemoteModels = opts.allowRemoteModels;
    tf.env.allowLocalModels = true;
    tf.env.localModelPath = dirname(resolved.dir) + '/';
    const common: Record<string, unknown> = { local_files_only: !opts.allowRemoteModels };
    const sessionOptions = opts.threads > 0 ? { intraOpNumThreads: opts.threads, interOpNumThreads: 1 } : undefined;
    const tokenizer = await tf.AutoTokenizer.from_pretrained(resolved.name, common as any);
    const Model = kind === 'feature-extraction' ? tf.AutoModel : tf.AutoModelForSequenceClassification;
    const model = await Model.from_pretrained(resolved.name, {
      ...common,
      dtype: resolved.dtype,
      model_file_name: resolved.modelFileName,
      device: 'cpu',
      ...(sessionOptions ? { session_options: sessionOptions } : {}),
    } as any);
    return { tokenizer, model };
  };
  const p = loadQueue.then(run, run);
  loadQueue = p.catch(() => undefined);
  let loaded: { tokenizer: any; model: any };
  try {
    loaded = await p;
  } catch (err) {
    if (err instanceof ProviderUnavailableError) throw err;
    throw new ProviderUnavailableError(
      opts.provider,
      `${opts.provider}: cannot load the model in ${resolved.dir}: ${(err as Error).message}. ` +
        `Fix: check that it is a complete ONNX export for transformers.js (config.json, tokenizer.json, ${basename(resolved.onnxFile)}).`,
      false,
    );
  }
  return { ...loaded, hash: await shortFileHash(resolved.onnxFile), resolved };
}

/** What both in-process model providers need from their configuration. */
export interface LocalModelConfig {
  modelPath?: string;
  file: string;
  allowRemoteModels: boolean;
  threads: number;
  maxInputTokens: number;
}

/**
 * Resolves and loads a configured local model directory (ONNX embedder or cross-encoder), and caps the input
 * length by what the tokenizer declares. `fix` names the setting to change when no directory is configured.
 */
export async function loadConfiguredModel(
  cfg: LocalModelConfig,
  kind: 'feature-extraction' | 'sequence-classification',
  provider: string,
  fix: string,
): Promise<LoadedModel<any> & { resolved: ResolvedModelDir; maxInputTokens: number }> {
  if (!cfg.modelPath) throw new ProviderUnavailableError(provider, `${provider}: no model directory configured. Fix: set ${fix}.`, false);
  const resolved = resolveModelDir(cfg.modelPath, cfg.file, provider);
  const loaded = await loadLocalModel(resolved, kind, { allowRemoteModels: cfg.allowRemoteModels, threads: cfg.threads, provider });
  const tokMax = Number(loaded.tokenizer.model_max_length);
  const maxInputTokens = Math.min(cfg.maxInputTokens, Number.isFinite(tokMax) && tokMax > 0 ? tokMax : cfg.maxInputTokens);
  return { ...loaded, resolved, maxInputTokens };
}
