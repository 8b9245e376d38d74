/**
 * The one configuration schema (zod). `.quarry/config.yml`, the user-level file and VS Code's `quarry.*`
 * settings all map onto it; defaults come from the seeds.
 */
import { z } from 'zod';
import { EmbeddingConfigSchema, RerankConfigSchema } from '../embedding/config';

export const DiscoveryConfigSchema = z
  .object({
    /** Files larger than this are skipped (reason `too-large`). */
    maxFileSizeBytes: z.number().int().positive().default(1_048_576),
    /** Extra extensions to index, mapped to a language id (`{".tpl": "text"}`). */
    extraExtensions: z.record(z.string().regex(/^\.[^./\\]+$/, 'an extension starting with a dot, like ".tpl"'), z.string()).default({}),
    /** Hidden directories that are still walked (tooling folders). */
    allowedHiddenDirs: z.array(z.string()).default(['.github', '.gitlab', '.circleci', '.vscode', '.devcontainer', '.husky', '.storybook', '.config', '.ci']),
    /** Extra gitignore-style patterns to exclude, on top of .gitignore. */
    exclude: z.array(z.string()).default([]),
    /** Honour .gitignore, .git/info/exclude and git's global excludes file. */
    respectGitignore: z.boolean().default(true),
    /** Never index likely secrets (.env*, private keys, credential files). */
    excludeSecrets: z.boolean().default(true),
    /** gitignore-style patterns treated as secrets. */
    secretPatterns: z
      .array(z.string())
      .default([
        '.env', '.env.*', '*.env', '*.pem', '*.key', '*.p12', '*.pfx', '*.jks', '*.keystore', 'id_rsa*', 'id_dsa*', 'id_ecdsa*',
        'id_ed25519*', '.netrc', '.npmrc', '.pypirc', '.git-credentials', 'credentials', 'credentials.json', '*.credentials',
        'secrets.yml', 'secrets.yaml', 'secrets.json', '.htpasswd', '*.kdbx', 'service-account*.json',
      ]),
    /** A line longer than this in a file with few lines marks it as minified. */
    minifiedLineLength: z.number().int().positive().default(1000),
    /** Follow symbolic links that stay inside the workspace. */
    followSymlinks: z.boolean().default(true),
    /** Seed 002 FR-039: warn above this many files to index... */
    largeCodebaseFiles: z.number().int().positive().default(50_000),
    /** ...and refuse above this many (narrow the project with `exclude` instead). */
    maxFiles: z.number().int().positive().default(500_000),
  })
  .strict();

export const ChunkingConfigSchema = z
  .object({
    /** Chunks below this many tokens merge with small neighbours. */
    minTokens: z.number().int().positive().default(200),
    /** Target upper size; merging stops here. */
    targetTokens: z.number().int().positive().default(800),
    /** Hard maximum (FR-039): larger syntactic units are split at statement boundaries. */
    maxTokens: z.number().int().positive().default(4000),
  })
  .strict();

const FieldWeightsSchema = z
  .object({
    name: z.number().min(0),
    symbols: z.number().min(0),
    ident: z.number().min(0),
    body: z.number().min(0),
    path: z.number().min(0),
    stem: z.number().min(0),
  })
  .strict();

export const Bm25ConfigSchema = z
  .object({
    k1: z.number().min(0).max(10).default(1.5),
    b: z.number().min(0).max(1).default(0.75),
    /**
     * Per-field weights, one profile per query form. `name` is the chunk's main symbol, `symbols` every name it
     * defines, `ident` whole identifiers in the text, `body` identifier parts and words, `path` the file path.
     */
    /** Weight of English function words ("how", "to", "the") in natural-language queries (they stay indexed). */
    functionWordWeight: z.number().min(0).max(1).default(0.2),
    /**
     * A description's query word counts its best field in full and its other fields by this factor (1 = every
     * field's BM25 summed; retrieval/termOverlap.ts). Identifier queries always sum.
     */
    wordOverlap: z.number().min(0).max(1).default(0.25),
    fieldWeights: z
      .object({
        identifier: FieldWeightsSchema.default({ name: 4.0, symbols: 2.0, ident: 1.5, body: 0.5, path: 1.0, stem: 0 }),
        natural: FieldWeightsSchema.default({ name: 1.5, symbols: 1.0, ident: 0.5, body: 1.0, path: 1.0, stem: 0.8 }),
      })
      .strict()
      .default({
        identifier: { name: 4.0, symbols: 2.0, ident: 1.5, body: 0.5, path: 1.0, stem: 0 },
        natural: { name: 1.5, symbols: 1.0, ident: 0.5, body: 1.0, path: 1.0, stem: 0.8 },
      }),
  })
  .strict();

const StagedWeightsSchema = z
  .object({ bm25: z.number().min(0).max(1), semantic: z.number().min(0).max(1), activation: z.number().min(0).max(1) })
  .strict()
  .refine((w) => Math.abs(w.bm25 + w.semantic + w.activation - 1) < 1e-6, { message: 'bm25 + semantic + activation must sum to 1.0' });

export const RetrievalConfigSchema = z
  .object({
    /**
     * How the BM25 and dense channels combine: reciprocal-rank fusion, seed 003's staged retrieval, a weighted
     * sum of min-max normalised scores, or BM25 only. The default is the best on the benchmark (BENCHMARKS.md).
     */
    fusion: z.enum(['rrf', 'staged', 'weighted', 'lexical']).default('weighted'),
    /** Stage 1 / lexical candidate count (seed 003 stage1_top_k). */
    stage1TopK: z.number().int().min(1).max(10_000).default(100),
    /** Dense neighbours fetched per query. */
    denseTopK: z.number().int().min(1).max(10_000).default(100),
    /**
     * Factor on the dense similarity of prose (Markdown sections, windows of files without a grammar) before fusion, for a query that asks no
     * information question (seed 004 intents) and not how to use the library (ranking/intents/usage.ts): the code
     * model puts prose nearer to any English sentence than code,
     * so documentation outranked the code a description asks for (1 = off). Weighted and reciprocal-rank fusion;
     * staged fusion keeps seed 003's similarity as it is.
     */
    denseProseFactor: z.number().min(0).max(1).default(0.9),
    rrfK: z.number().min(1).default(60),
    /** Stage-2 weights of the staged mode (seed 003 tri-hybrid). */
    stagedWeights: StagedWeightsSchema.default({ bm25: 0.3, semantic: 0.4, activation: 0.3 }),
    /**
     * Per-channel weights for rrf / weighted fusion; a weak dense channel gets less (0 = BM25 only). `auto` weighs the
     * dense channel by the provider's measured weight for the query's form (identifier-like or natural language).
     */
    channelWeights: z
      .object({ lexical: z.number().min(0), dense: z.union([z.number().min(0), z.literal('auto')]) })
      .strict()
      .default({ lexical: 1, dense: 'auto' }),
  })
  .strict();

/** Seed 000's boost parameters (defaults are the seed's values). */
export const BoostsConfigSchema = z
  .object({
    /** A query term seen in fewer chunks than this is rare (seed 000 rare_term_threshold). */
    rareTermThreshold: z.number().int().min(1).default(10),
    exactSymbol: z.number().min(1).default(2.0),
    typeDeclaration: z.number().min(1).default(1.5),
    protocolKind: z.number().min(1).default(1.3),
    conformanceMatch: z.number().min(1).default(1.5),
    conformanceImplementation: z.number().min(1).default(3.0),
    /** "who calls X": chunks that reference X. */
    callerReference: z.number().min(1).default(1.5),
    /**
     * A description that spells every word of a declaration's name (`packBatches` for "pack texts into batches"):
     * not a seed parameter (1 = off).
     */
    nameInWords: z.number().min(1).default(1.3),
  })
  .strict();

export const RankingConfigSchema = z
  .object({
    boosts: BoostsConfigSchema.default(BoostsConfigSchema.parse({})),
    /** Score factor of test files for queries that are not about tests, per query form (1 = off). */
    testPenalty: z
      .object({ identifier: z.number().min(0).max(1), natural: z.number().min(0).max(1) })
      .strict()
      .default({ identifier: 0.8, natural: 0.6 }),
    /**
     * Activation (accesses and git history, memory/activation.ts): a candidate's score is multiplied by
     * 1 + boost × its activation min-max normalised within the search's candidates (0 = off). Small on purpose:
     * it breaks near-ties toward what is used and changed, it does not override relevance.
     */
    activationBoost: z
      .object({ identifier: z.number().min(0).max(1), natural: z.number().min(0).max(1) })
      .strict()
      .default({ identifier: 0.05, natural: 0.1 }),
  })
  .strict();

/** Knowledge (seed 003 FR-3): folders of Markdown notes and conversation logs indexed as knowledge chunks. */
export const KnowledgeConfigSchema = z
  .object({
    /**
     * Folders relative to the workspace whose Markdown files are indexed even when gitignored or hidden (e.g.
     * `.aurora/logs/conversations`). A missing or empty folder is a warning in the index summary, never a failure.
     * Conversation logs are recognised by their content anywhere in the workspace; these folders only add files
     * that discovery would otherwise skip.
     */
    folders: z.array(z.string().min(1)).default([]),
  })
  .strict();

/**
 * Git metadata per code chunk (seed 003 FR-5.3, FR-5.4): commit count and last change of each chunk's lines, from one
 * `git blame` per tracked file, computed while indexing (never while searching).
 */
export const GitConfigSchema = z
  .object({
    /** Compute git metadata (commits, last modified) for code chunks. Off: none is kept. */
    metadata: z.boolean().default(true),
    /** A file whose `git blame` takes longer is killed and gets status `unavailable`. */
    blameTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
    /** Files blamed at once (never more than the CPU count). */
    concurrency: z.number().int().min(1).max(64).default(8),
  })
  .strict();

export const QuarryConfigSchema = z
  .object({
    discovery: DiscoveryConfigSchema.default(DiscoveryConfigSchema.parse({})),
    chunking: ChunkingConfigSchema.default(ChunkingConfigSchema.parse({})),
    bm25: Bm25ConfigSchema.default(Bm25ConfigSchema.parse({})),
    retrieval: RetrievalConfigSchema.default(RetrievalConfigSchema.parse({})),
    embedding: EmbeddingConfigSchema.default(EmbeddingConfigSchema.parse({})),
    rerank: RerankConfigSchema.default(RerankConfigSchema.parse({})),
    ranking: RankingConfigSchema.default(RankingConfigSchema.parse({})),
    knowledge: KnowledgeConfigSchema.default(KnowledgeConfigSchema.parse({})),
    git: GitConfigSchema.default(GitConfigSchema.parse({})),
  })
  .strict();

export type QuarryConfig = z.infer<typeof QuarryConfigSchema>;
export type DiscoveryConfig = z.infer<typeof DiscoveryConfigSchema>;
export type ChunkingConfig = z.infer<typeof ChunkingConfigSchema>;
export type Bm25Config = z.infer<typeof Bm25ConfigSchema>;
export type RetrievalConfig = z.infer<typeof RetrievalConfigSchema>;
export type RankingConfig = z.infer<typeof RankingConfigSchema>;
export type FieldWeights = z.infer<typeof FieldWeightsSchema>;
export type KnowledgeConfig = z.infer<typeof KnowledgeConfigSchema>;
export type GitConfig = z.infer<typeof GitConfigSchema>;

export function defaultConfig(): QuarryConfig {
  return QuarryConfigSchema.parse({});
}
