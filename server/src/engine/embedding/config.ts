/**
 * Configuration of the embedding and reranking providers (to be wired into the main schema as
 * `embedding:` and `rerank:`). Defaults follow seed 002 (FR-007 voyage-code-3, FR-018 rerank-2.5,
 * FR-033 30 s timeouts, FR-009c 1/2/4/8/16 s backoff, FR-008a breaker, FR-039 10 concurrent requests).
 */
import { z } from 'zod';

const delays = z.array(z.number().int().min(0).max(120_000)).max(10);

export const CircuitBreakerConfigSchema = z
  .object({
    /** Consecutive failures that open the circuit. */
    failureThreshold: z.number().int().positive().default(3),
    /** Open period after the circuit first opens, ms. */
    openMs: z.number().int().positive().default(30_000),
    /** Open period after a failed half-open probe, ms. */
    reopenMs: z.number().int().positive().default(60_000),
  })
  .strict();

const remoteCommon = {
  /** API key; when absent, `VOYAGE_API_KEY` from the environment. Prefer the environment over a file. */
  apiKey: z.string().min(1).optional(),
  baseUrl: z.string().url().default('https://api.voyageai.com/v1'),
  /** Per-request time limit while indexing (FR-033). */
  timeoutMs: z.number().int().positive().max(300_000).default(30_000),
  /** Per-request time limit at query time (never above 30 s; queries have a 3 s target, FR-037). */
  queryTimeoutMs: z.number().int().positive().max(30_000).default(1_500),
  /**
   * Total time one query-time call may take, retries included (issue 20: a hung provider costs a search at most
   * this; then the search goes on without it, with a warning, and the breaker spares the next searches the wait).
   */
  queryBudgetMs: z.number().int().positive().max(30_000).default(2_000),
  /** Backoff before each retry while indexing (FR-009c). */
  retryDelaysMs: delays.default([1000, 2000, 4000, 8000, 16000]),
  /** Backoff before each retry at query time (short budget; then the search goes sparse-only, FR-021a). */
  queryRetryDelaysMs: delays.default([250, 750]),
  /** Requests in flight at once to the API (FR-039: at most 10). */
  maxConcurrency: z.number().int().min(1).max(10).default(10),
  circuitBreaker: CircuitBreakerConfigSchema.default(CircuitBreakerConfigSchema.parse({})),
};

export const VoyageEmbeddingConfigSchema = z
  .object({
    ...remoteCommon,
    model: z.string().min(1).default('voyage-code-3'),
    /** voyage-code-3 supports 256, 512, 1024 (default) and 2048. */
    outputDimension: z.union([z.literal(256), z.literal(512), z.literal(1024), z.literal(2048)]).optional(),
    /** Texts per request (Voyage allows up to 1000; 128 keeps requests small). */
    batchSize: z.number().int().min(1).max(1000).default(128),
    /** Estimated tokens per request (Voyage's limit for voyage-code-3 is 120k). */
    maxTokensPerBatch: z.number().int().positive().max(120_000).default(120_000),
    /** Characters per token used to estimate tokens (code runs ~3; conservative). */
    charsPerToken: z.number().positive().default(3),
  })
  .strict();

export const OnnxEmbeddingConfigSchema = z
  .object({
    /** Directory of a sentence-embedding model (config.json, tokenizer.json, onnx/model*.onnx). */
    modelPath: z.string().min(1).optional(),
    /** Name looked up at the conventional locations when `modelPath` is not set. */
    modelName: z.string().min(1).default('all-MiniLM-L6-v2'),
    /** Which ONNX file: `auto` prefers onnx/model_quantized.onnx, then onnx/model.onnx. */
    file: z.string().min(1).default('auto'),
    pooling: z.enum(['mean', 'cls']).default('mean'),
    /** Longest input in model tokens (longer texts are truncated). */
    maxInputTokens: z.number().int().positive().max(8192).default(256),
    /** Texts per forward pass (1 was fastest on CPU for MiniLM/bge; larger batches are length-sorted). */
    batchSize: z.number().int().min(1).max(256).default(1),
    /** Prepended to queries / documents (e.g. bge: "Represent this sentence for searching relevant passages: "). */
    queryPrefix: z.string().default(''),
    documentPrefix: z.string().default(''),
    /** Let @huggingface/transformers download missing models from the hub (off: fully offline). */
    allowRemoteModels: z.boolean().default(false),
    /** Intra-op threads for onnxruntime (0: runtime default). */
    threads: z.number().int().min(0).max(64).default(0),
  })
  .strict();

export const UseEmbeddingConfigSchema = z
  .object({
    /** Texts per forward pass. */
    batchSize: z.number().int().min(1).max(256).default(16),
    /** Inputs are cut to this many characters (USE cost grows with length; its own tokens are word pieces). */
    maxInputChars: z.number().int().positive().default(2000),
  })
  .strict();

export const StaticEmbeddingConfigSchema = z
  .object({
    /** Directory of a static model (model.json, table.i8, scales.f32); default: the bundled models/quarry-code. */
    modelPath: z.string().min(1).optional(),
    /** Name looked up at the conventional locations (and the bundled models/ folder) when `modelPath` is not set. */
    modelName: z.string().min(1).default('quarry-code'),
  })
  .strict();

export const EmbeddingProviderNameSchema = z.enum(['auto', 'voyage', 'onnx', 'static', 'local-use', 'none']);

export const EmbeddingConfigSchema = z
  .object({
    /**
     * `auto`: voyage when an API key is configured or in the environment, else onnx when a local model directory
     * is found, else `static` (Quarry's own code model, bundled). `local-use` (Universal Sentence Encoder lite)
     * only when chosen. `none`: lexical only.
     */
    provider: EmbeddingProviderNameSchema.default('auto'),
    voyage: VoyageEmbeddingConfigSchema.default(VoyageEmbeddingConfigSchema.parse({})),
    onnx: OnnxEmbeddingConfigSchema.default(OnnxEmbeddingConfigSchema.parse({})),
    static: StaticEmbeddingConfigSchema.default(StaticEmbeddingConfigSchema.parse({})),
    use: UseEmbeddingConfigSchema.default(UseEmbeddingConfigSchema.parse({})),
  })
  .strict();

export const VoyageRerankConfigSchema = z
  .object({
    ...remoteCommon,
    model: z.string().min(1).default('rerank-2.5'),
    /** Documents per rerank request (Voyage allows up to 1000). */
    maxDocuments: z.number().int().min(1).max(1000).default(1000),
  })
  .strict();

export const CrossEncoderRerankConfigSchema = z
  .object({
    /** Directory of a cross-encoder (sequence classification, one logit), e.g. ms-marco-MiniLM-L-6-v2. */
    modelPath: z.string().min(1).optional(),
    modelName: z.string().min(1).default('ms-marco-MiniLM-L-6-v2'),
    file: z.string().min(1).default('auto'),
    maxInputTokens: z.number().int().positive().max(8192).default(512),
    batchSize: z.number().int().min(1).max(256).default(1),
    allowRemoteModels: z.boolean().default(false),
    threads: z.number().int().min(0).max(64).default(0),
  })
  .strict();

export const QuarryRerankConfigSchema = z
  .object({
    /** Directory of a quarry-rerank model; default: found by name (bundled in models/). */
    modelPath: z.string().min(1).optional(),
    modelName: z.string().min(1).default('quarry-rerank'),
  })
  .strict();

export const RerankProviderNameSchema = z.enum(['auto', 'voyage', 'cross-encoder', 'quarry', 'none']);

export const RerankConfigSchema = z
  .object({
    /** `auto`: voyage when an API key is available, else a local cross-encoder when one is found, else Quarry's own learned reranker (bundled), else none. */
    provider: RerankProviderNameSchema.default('auto'),
    /** How many of the fused candidates are sent to the reranker. */
    candidates: z.number().int().min(1).max(1000).default(50),
    /**
     * The reranker's share of each scored candidate's base score (the rest is the fused channel score); the rule
     * stages and the seeds' partitions act on that base (ranking/pipeline.ts). 1 = the learned score alone.
     */
    weight: z.number().min(0).max(1).default(1),
    /**
     * The fused order's best scored candidate stays within the learned order's first N places (0 = no floor): the
     * scorer re-sorts, but never buries what the keyword and dense channels rank first.
     */
    keepFusedBest: z.number().int().min(0).max(1000).default(3),
    /**
     * The keyword channel's best scored candidate stays within the learned order's first N places (0 = no floor): a
     * match the field-weighted BM25 ranks first (a class named by the query's words, a config object) is evidence the
     * scorer, trained on documented functions, does not see.
     */
    keepKeywordBest: z.number().int().min(0).max(1000).default(5),
    voyage: VoyageRerankConfigSchema.default(VoyageRerankConfigSchema.parse({})),
    crossEncoder: CrossEncoderRerankConfigSchema.default(CrossEncoderRerankConfigSchema.parse({})),
    quarry: QuarryRerankConfigSchema.default(QuarryRerankConfigSchema.parse({})),
  })
  .strict();

export type EmbeddingConfig = z.infer<typeof EmbeddingConfigSchema>;
export type VoyageEmbeddingConfig = z.infer<typeof VoyageEmbeddingConfigSchema>;
export type OnnxEmbeddingConfig = z.infer<typeof OnnxEmbeddingConfigSchema>;
export type UseEmbeddingConfig = z.infer<typeof UseEmbeddingConfigSchema>;
export type StaticEmbeddingConfig = z.infer<typeof StaticEmbeddingConfigSchema>;
export type RerankConfig = z.infer<typeof RerankConfigSchema>;
export type VoyageRerankConfig = z.infer<typeof VoyageRerankConfigSchema>;
export type CrossEncoderRerankConfig = z.infer<typeof CrossEncoderRerankConfigSchema>;
export type QuarryRerankConfig = z.infer<typeof QuarryRerankConfigSchema>;
export type CircuitBreakerConfig = z.infer<typeof CircuitBreakerConfigSchema>;
