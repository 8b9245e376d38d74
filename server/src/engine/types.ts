/**
 * The engine's shared data types. Every layer (discovery → chunking → store → retrieval → ranking)
 * speaks these; no transport (LSP, MCP, CLI, HTTP) types appear here.
 */

/** Finer syntactic kinds produced by the chunkers. */
export type ChunkKind =
  | 'function'
  | 'method'
  | 'constructor'
  | 'class'
  | 'struct'
  | 'enum'
  | 'interface'
  | 'protocol'
  | 'trait'
  | 'extension'
  | 'impl'
  | 'type_alias'
  | 'module'
  | 'namespace'
  | 'variable'
  /** Top-level code that is not a definition (imports, statements, merged small neighbours). */
  | 'code'
  /** A window of a file that has no grammar (line/paragraph-aware text chunker). */
  | 'text'
  /** A Markdown heading section. */
  | 'section'
  /** A reasoning pattern recorded by an agent (seed 003 FR-4; memory/patterns.ts). */
  | 'reasoning';

export const CHUNK_KINDS: readonly ChunkKind[] = [
  'function', 'method', 'constructor', 'class', 'struct', 'enum', 'interface', 'protocol', 'trait',
  'extension', 'impl', 'type_alias', 'module', 'namespace', 'variable', 'code', 'text', 'section', 'reasoning',
];

/**
 * Kinds the dense channel treats as prose: Markdown sections and the windows of files Quarry has no grammar for (plain
 * text and reStructuredText documents, but also JSON, YAML, HTML and SQL: text rather than code to the model; leaving
 * those out was measured and cost a reference query, BENCHMARKS.md).
 */
export const PROSE_KINDS: ReadonlySet<ChunkKind> = new Set<ChunkKind>(['section', 'text']);

/** Kinds that declare a type (seed 000: "type declaration"). */
export const TYPE_DECLARATION_KINDS: ReadonlySet<ChunkKind> = new Set<ChunkKind>([
  'class', 'struct', 'enum', 'interface', 'protocol', 'trait', 'extension', 'impl', 'type_alias',
]);

/** Seed 002's SemanticClass tiers (the ones a chunk-level classifier can assign). */
export type SemanticClass =
  | 'DEFINITION_CALLABLE'
  | 'DEFINITION_TYPE'
  | 'DEFINITION_DATA'
  | 'DEFINITION_TEST'
  | 'BOUNDARY_MODULE'
  | 'BOUNDARY_ERROR'
  | 'BOUNDARY_RESOURCE'
  | 'DOCUMENTATION_STRUCTURED'
  | 'FLOW_BRANCHING'
  | 'FLOW_ITERATION'
  | 'FLOW_CONTROL'
  | 'FLOW_ASYNC'
  | 'OPERATION_INVOCATION'
  | 'OPERATION_DATA'
  | 'OPERATION_OPERATOR'
  | 'EXPRESSION_ANONYMOUS';

/**
 * How a chunk was produced. `conversation`: a phase of a conversation log (seed 003 FR-3, recognised by its
 * `# Conversation: <topic>` title, see chunking/conversation.ts); `memory`: a reasoning pattern from the agents' pattern
 * log (memory/patterns.ts). Both carry `metadata`.
 */
export type ChunkSource = 'ast' | 'text' | 'markdown' | 'conversation' | 'memory';

/**
 * Free-form, source-specific facts about a chunk (stored as JSON). Conversation-log phases carry seed 003 FR-3.4's
 * fields: `source_file`, `topic`, `conversation_date` (YYYY-MM-DD), `query`, `phase_number`, `phase_name`.
 */
export type ChunkMetadata = Record<string, string | number>;

/** One searchable unit of a file. */
export interface Chunk {
  /** Stable id: derived from path, kind, qualified symbol and an ordinal (not from line numbers). */
  id: string;
  /** Workspace-relative path with forward slashes. */
  path: string;
  /** Language id from the language registry (e.g. `typescript`, `python`, `markdown`, `text`). */
  language: string;
  kind: ChunkKind;
  /** Qualified symbol name, e.g. `AuthMiddleware.validate`; '' when the chunk defines nothing. */
  symbol: string;
  /** Short name of the main symbol (`validate`); '' when none. */
  name: string;
  /** Qualified name of the enclosing container (`AuthMiddleware`); '' at top level. */
  container: string;
  /** Every name the chunk defines (main symbol first; members for declaration chunks). */
  symbols: string[];
  /** Identifiers the chunk references (deduplicated, in first-seen order, capped). */
  references: string[];
  /** Supertypes / protocols / traits / interfaces the chunk's type conforms to (bare names). */
  conformances: string[];
  /** Doc comment or docstring, cleaned of comment markers; '' when none. */
  doc: string;
  /** The declaration's signature line(s) without the body; '' when not applicable. */
  signature: string;
  /** 1-based inclusive line range. */
  startLine: number;
  endLine: number;
  /**
   * Where the unit is named: the declaration's identifier (tree-sitter name node), a Markdown section's heading
   * title, or, for a unit without a name, its first non-blank line of own code (not imports or comments). Set by
   * every chunker (chunking/common.ts `finalizeChunks`); absent only on chunks built by hand (tests) or read from
   * an index written before it existed — use `nameRangeOf`.
   */
  nameRange?: NameRange;
  /**
   * The other names the unit declares, each where it is named: the further names of one declaration (`const a = 1,
   * b = 2`, a Go `var ( ... )` block) and the members of a container kept whole (a small class's methods). The symbol
   * table lists them beside the main symbol. Absent when there are none.
   */
  symbolRanges?: SymbolRange[];
  /** Byte offsets into the UTF-8 file (end exclusive). */
  startByte: number;
  endByte: number;
  /** The chunk text (what is shown and searched). */
  content: string;
  semanticClass: SemanticClass;
  /** Tokens in `content` (cl100k-compatible count, see tokenize/tokenCount.ts). */
  tokenCount: number;
  /** sha256 of `content`, hex. */
  contentHash: string;
  source: ChunkSource;
  /** Source-specific facts (conversation-log phases, reasoning patterns); absent for code, ordinary Markdown and text. */
  metadata?: ChunkMetadata;
}

/**
 * A span on the lines of a file: 1-based lines, 1-based columns in UTF-16 code units (as editors count them),
 * end column exclusive. For a name: `line`/`column` is where the identifier starts.
 */
export interface NameRange {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** A name a chunk declares besides its main symbol (see `Chunk.symbolRanges`). */
export interface SymbolRange {
  name: string;
  /** Qualified (`Catalog.findBySku`). */
  symbol: string;
  kind: ChunkKind;
  container: string;
  range: NameRange;
}

/** A chunk's name range, or (for a chunk without one) its first line, column 1, as an empty range. */
export function nameRangeOf(chunk: Pick<Chunk, 'nameRange' | 'startLine'>): NameRange {
  return chunk.nameRange ?? { line: chunk.startLine, column: 1, endLine: chunk.startLine, endColumn: 1 };
}

/** Compares names as identifier queries do: case and underscores aside (`parse_config` = `parseConfig`). */
const looseName = (s: string) => s.toLowerCase().replace(/_/g, '');
/** The last segment of a qualified name or query (`Catalog.findBySku`, `a::b`, `Class#method` → the member). */
export const lastNameSegment = (s: string) => s.split(/\.|::|#/).filter(Boolean).pop() ?? s;

/**
 * Where a member declared inside a chunk's own text is named (`Chunk.symbolRanges`: a class kept whole), by qualified
 * symbol or, failing that, by bare name; undefined when the chunk does not record it.
 */
export function memberRangeOf(chunk: Pick<Chunk, 'symbolRanges'>, member: string): NameRange | undefined {
  const want = looseName(lastNameSegment(member));
  return (chunk.symbolRanges?.find((x) => x.symbol === member) ?? chunk.symbolRanges?.find((x) => looseName(x.name) === want))?.range;
}

/**
 * The further name of `chunk` an identifier names when it is not the chunk's own symbol: only a name declared inside
 * the chunk's own text, whose range the chunk records (`symbolRanges`: a member of a class kept whole, a second
 * declarator, a re-export alias). A split class's unit lists its members' names too, but each member is a unit of its
 * own: labelling the class unit `Class.member` would name a result after a declaration it does not hold (issue 18).
 * Returns the recorded symbol (`Class.member`, `WidgetBase`).
 */
export function declaredMember(chunk: Pick<Chunk, 'symbol' | 'symbolRanges'>, identifier: string): string | undefined {
  const want = looseName(lastNameSegment(identifier));
  if (!want || (chunk.symbol && looseName(lastNameSegment(chunk.symbol)) === want)) return undefined;
  return chunk.symbolRanges?.length ? rangesByLooseName(chunk.symbolRanges).get(want) : undefined;
}

/**
 * A chunk's further names by loose name (the first range of each), built once per `symbolRanges` array: a generated
 * file's one unit may declare thousands of names (Go's zerrors_*.go: 9,460), and every identifier search asks each
 * candidate; long-running doors keep such chunks between searches (store/tableSnapshot.ts).
 */
const RANGES_BY_NAME = new WeakMap<readonly SymbolRange[], Map<string, string>>();
function rangesByLooseName(ranges: readonly SymbolRange[]): Map<string, string> {
  let byName = RANGES_BY_NAME.get(ranges);
  if (!byName) {
    byName = new Map();
    for (const x of ranges) {
      const k = looseName(x.name);
      if (!byName.has(k)) byName.set(k, x.symbol);
    }
    RANGES_BY_NAME.set(ranges, byName);
  }
  return byName;
}

/** The chunk declares `identifier`: as its own name (the last segment of its symbol) or as a member it holds. */
export function declaresName(chunk: Pick<Chunk, 'symbol' | 'symbolRanges'>, identifier: string): boolean {
  const want = looseName(lastNameSegment(identifier));
  if (!want) return false;
  if (chunk.symbol && looseName(lastNameSegment(chunk.symbol)) === want) return true;
  return declaredMember(chunk, identifier) !== undefined;
}

/** A file accepted by discovery. */
export interface DiscoveredFile {
  /** Workspace-relative path with forward slashes. */
  path: string;
  /** Absolute path on disk. */
  absPath: string;
  language: string;
  size: number;
  /** Modification time, ms since epoch. */
  mtimeMs: number;
}

/** Why discovery did not index a file. */
export type SkipReason =
  | 'gitignored'
  | 'hidden'
  | 'excluded'
  | 'secret'
  | 'binary'
  | 'too-large'
  | 'minified'
  | 'unknown-extension'
  | 'symlink-outside-workspace'
  | 'symlink-loop'
  | 'unreadable';

export interface SkippedFile {
  path: string;
  reason: SkipReason;
  detail?: string;
}
