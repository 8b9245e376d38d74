/**
 * The file format and evaluation of Quarry's learned reranker (`models/quarry-rerank/model.json`): a small
 * multi-layer perceptron over the features of ./features.ts, standardised with the training set's mean and spread.
 * Tiny (a few thousand numbers, JSON), evaluated in plain TypeScript in microseconds per candidate.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ProviderUnavailableError } from '../../types';
import { FEATURE_NAMES } from './features';

export const RERANK_MODEL_FORMAT = 'quarry-rerank/1';

const LayerSchema = z
  .object({
    /** [outputs][inputs] */
    weights: z.array(z.array(z.number())),
    bias: z.array(z.number()),
    activation: z.enum(['tanh', 'relu', 'linear']),
  })
  .strict();

export const RerankModelSchema = z
  .object({
    format: z.literal(RERANK_MODEL_FORMAT),
    name: z.string().min(1),
    version: z.string().min(1),
    features: z.array(z.string()),
    /** The code model whose vectors the similarity features use (its name, e.g. quarry-code). */
    embedding: z.string().min(1),
    mean: z.array(z.number()),
    std: z.array(z.number().positive()),
    layers: z.array(LayerSchema).min(1),
    /** How the model was trained and what it measured (informational). */
    training: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type RerankModel = z.infer<typeof RerankModelSchema>;

/** Reads and checks a model directory; the error names the file, the problem and the fix. */
export function readRerankModel(dir: string): RerankModel {
  const file = join(dir, 'model.json');
  const fix = 'Fix: restore models/quarry-rerank from the Quarry package (or point rerank.quarry.modelPath at a valid model), or set rerank.provider to none.';
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ProviderUnavailableError('quarry-rerank', `quarry-rerank: cannot read ${file} (${(e as Error).message}). ${fix}`, false);
  }
  const parsed = RerankModelSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ProviderUnavailableError('quarry-rerank', `quarry-rerank: ${file} is not a ${RERANK_MODEL_FORMAT} model (${issue.path.join('.') || 'root'}: ${issue.message}). ${fix}`, false);
  }
  const m = parsed.data;
  const mismatch = m.features.length !== FEATURE_NAMES.length || m.features.some((f, i) => f !== FEATURE_NAMES[i]);
  if (mismatch) {
    throw new ProviderUnavailableError('quarry-rerank', `quarry-rerank: ${file} was trained on other features than this version of Quarry computes (${m.features.length} vs ${FEATURE_NAMES.length}). ${fix}`, false);
  }
  let inputs: number = FEATURE_NAMES.length;
  const shapeError = (what: string) => new ProviderUnavailableError('quarry-rerank', `quarry-rerank: ${file} has inconsistent shapes (${what}). ${fix}`, false);
  if (m.mean.length !== inputs || m.std.length !== inputs) throw shapeError('mean/std length');
  m.layers.forEach((layer, l) => {
    if (!layer.weights.length || layer.weights.length !== layer.bias.length) throw shapeError(`layer ${l} outputs`);
    if (layer.weights.some((row) => row.length !== inputs)) throw shapeError(`layer ${l} inputs`);
    inputs = layer.weights.length;
  });
  if (inputs !== 1) throw shapeError('the last layer must have one output');
  return m;
}

/** The model's relevance logit for one feature row. */
export function scoreRow(model: RerankModel, features: Float32Array): number {
  let x: number[] = Array.from(features, (v, i) => (v - model.mean[i]!) / model.std[i]!);
  for (const layer of model.layers) {
    const y = layer.bias.slice();
    for (let o = 0; o < y.length; o++) {
      const w = layer.weights[o]!;
      let s = y[o]!;
      for (let i = 0; i < x.length; i++) s += w[i]! * x[i]!;
      y[o] = layer.activation === 'tanh' ? Math.tanh(s) : layer.activation === 'relu' ? Math.max(0, s) : s;
    }
    x = y;
  }
  return x[0]!;
}
