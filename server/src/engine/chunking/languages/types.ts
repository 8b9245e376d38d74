/**
 * The data-driven description of one language for the AST chunker. Adding a language means adding one
 * file that exports a `LanguageDefinition` and listing it in `registry.ts`.
 */
import type { Node } from 'web-tree-sitter';
import type { ChunkKind } from '../../types';
import type { ChunkColumnFilter, ConformanceRow, FileRecord, ScalarChunkColumn } from '../../store/chunkStore';

/** What a rule's `name` returns for an anonymous default export (see `DefRule.name`). */
export const DEFAULT_EXPORT_NAME = 'default';

/** How one definition node type is read. */
export interface DefRule {
  /** The chunk kind, or a function deciding it (null: the node is not a definition after all). */
  kind: ChunkKind | ((node: Node) => ChunkKind | null);
  /**
   * The short name; default: the `name` field's text. `DEFAULT_EXPORT_NAME` for a declaration with no name of its own
   * that a module exports as its default (`export default class extends Base {}`): the chunker names it after its
   * file, as importers conventionally do, and puts its name range on the `default` keyword.
   */
  name?: (node: Node) => string | null;
  /**
   * Where to look for the identifier that names the declaration (its name range); default: the `name` field. The
   * first token inside it whose text is the name wins; failing that, the first such token of the header.
   */
  nameNode?: (node: Node) => Node | null;
  /**
   * An extra qualifier that replaces the lexical container (Go receiver type, C++ `Class::` scope,
   * Kotlin extension receiver, Ruby `A::B` class names). Dot-separated.
   */
  qualifier?: (node: Node) => string | null;
  /** The body node (what is elided from the signature); default: the `body` field. */
  body?: (node: Node) => Node | null;
  /** The body holds member definitions (class-like): big ones split into declaration + members. */
  container?: boolean | ((node: Node) => boolean);
  /**
   * A namespace-like container (TS namespace, C++/C# namespace, Rust `mod`): always split so every
   * definition inside stays a chunk of its own; functions inside stay functions (not methods).
   */
  transparent?: boolean;
  /** Supertypes, already bare names. */
  conformances?: (node: Node) => string[];
  /** Names a `variable` definition defines (default: [name]). */
  names?: (node: Node) => string[];
}

export interface LanguageDefinition {
  /** Language id from the registry (`typescript`, `csharp`, ...). */
  id: string;
  /** Definition node types. */
  definitions: Record<string, DefRule>;
  /** Wrapper node types (export, decorators, templates): return the wrapped definition node or null. */
  wrappers?: Record<string, (node: Node) => Node | null>;
  /** Comment node types (for doc comments). */
  commentTypes: string[];
  /** Sibling node types that precede a definition and belong to it (Rust `#[attr]`). */
  attachedPrefixTypes?: string[];
  /** Node types that are imports / module glue. */
  importTypes: string[];
  /** Node types inside a container body whose children are members too (Java `enum_body_declarations`). */
  memberGroups?: string[];
  /** Identifier-like node types collected as references (default: a shared set). */
  referenceTypes?: string[];
  /** Python-style docstrings (first string statement of the body). */
  docstrings?: boolean;
  /** Method names that mark a constructor (besides the class's own name where `constructorIsClassName`). */
  constructorNames?: string[];
  constructorIsClassName?: boolean;
  /** Statement list inside a callable body when the body wraps it (Swift/Kotlin `statements`). */
  statementContainers?: string[];
  /**
   * The text handed to the parser instead of the file's (the same length, so every offset is the file's): C and C++
   * blank a line that is nothing but a macro's name (`FMT_BEGIN_NAMESPACE`, `NLOHMANN_JSON_NAMESPACE_BEGIN`,
   * `Q_OBJECT`), which the grammar cannot read and which otherwise turns everything after it into one error node.
   */
  parseText?: (text: string) => string;
  /**
   * A second reading of a parsed file: the text with some constructs' own syntax blanked (same length, newlines kept)
   * so that the declarations they wrap parse as declarations, or null when there is nothing to unwrap. Rust: an
   * item-level macro call whose braces hold items (`cfg_rt! { pub struct JoinHandle … }`, `pin_project! { … }`) is read
   * as those items. Applied again (up to three times) for wrappers inside wrappers; the chunk text keeps the original.
   */
  unwrapText?: (root: Node, text: string) => string | null;
  /**
   * Statements whose blocks may hold declarations (Python's `if TYPE_CHECKING:`, `if has_crypto:`, `try: … except
   * ImportError:`): one that holds a function or class is read as the statements it holds, so each declaration inside
   * is a unit of its own instead of the whole block being one unnamed chunk.
   */
  definitionBlocks?: string[];
  /**
   * The identifiers a statement that is not itself a declaration introduces as names of their own: re-export aliases
   * (`export { Base as WidgetBase } from './base'`, `export * as util from './util'`). They are recorded where they are
   * spelled (`Chunk.symbolRanges`) so that the alias is found, first, at its name.
   */
  aliases?: (node: Node) => Node[];
  /** Conformances no declaration states, derived from the whole index after indexing (Go: implicit interfaces). */
  derivedConformances?: DerivedConformances;
}

/**
 * A language's pass that derives conformance rows from the stored chunks of all its files (Go: a type implements every
 * interface whose methods its method set holds). The indexer runs `refresh` at the end of a run that replaced or
 * removed files of the language, or when the index holds files of the language but no rows of `kinds` yet (built
 * before the pass existed); the engine runs it after an editor buffer of the language replaced the file's chunks.
 */
export interface DerivedConformances {
  /** The conformance row kinds the pass writes, and only it (declared rows have other kinds). */
  kinds: readonly string[];
  /** What the rows are, for a warning when the pass fails: "<label> were not updated: ...". */
  label: string;
  /**
   * Recomputes the language's rows for the whole index and writes the difference. `records`: the file records after
   * the run (read from the store when omitted). `offload`: where a large set of files' facts may be computed instead
   * of this thread (the indexer's chunking worker: the parser's memory grows with what it parsed and never shrinks,
   * and a long-running door should not keep that of a whole index's declarations); undefined (or a failed offload)
   * computes them here.
   */
  refresh(store: DerivedConformanceStore, records?: Map<string, FileRecord>, offload?: DerivedFactsOffload): Promise<DerivedConformanceSummary>;
  /** The per-file facts `refresh` derives the rows from, computed from the files' stored chunks (pure: any thread). */
  factsOf(files: DerivedFileChunks[]): Promise<unknown[]>;
}

/** One file's stored chunks, as a derived-conformance pass reads them (the columns it names). */
export interface DerivedFileChunks {
  path: string;
  chunks: unknown[];
}

/** Computes `factsOf(files)` elsewhere; undefined when it could not (the caller computes them itself). */
export type DerivedFactsOffload = (files: DerivedFileChunks[]) => Promise<unknown[] | undefined>;

/** The chunk store's methods a derived-conformance pass uses (`ChunkStore` has them). */
export interface DerivedConformanceStore {
  /** The store's folder, where a pass may keep what it derived for the next process (`ChunkStore` has it). */
  readonly dir?: string;
  fileRecords(): Promise<Map<string, FileRecord>>;
  chunkColumns<C extends ScalarChunkColumn>(filter: ChunkColumnFilter, columns: readonly C[]): Promise<Array<Record<C, string | number>>>;
  conformancesOfKinds(kinds: readonly string[]): Promise<ConformanceRow[]>;
  replaceConformancesOfKinds(kinds: readonly string[], chunkIds: readonly string[], rows: readonly ConformanceRow[]): Promise<void>;
}

/** What a derived-conformance pass did. */
export interface DerivedConformanceSummary {
  /** Files whose facts were (re)read from the store. */
  filesRead: number;
  /** Derived rows after the pass. */
  rows: number;
  /** Rows written: those that differ from the stored ones; with `joinReused`, the rows of the files read again. */
  added: number;
  /** Stored rows that differed and were removed (with `joinReused`: 0, the rows of the files read again are rewritten uncounted). */
  removed: number;
  durationMs: number;
  /**
   * The files read had the facts they had before (a body or comment edit): the last join's rows were reused, and only
   * those hanging on the chunks of the files read again were written.
   */
  joinReused?: true;
}

// ---------- helpers shared by the language files ----------

export function field(node: Node | null | undefined, name: string): Node | null {
  return node ? node.childForFieldName(name) : null;
}

export function named(node: Node | null | undefined): Node[] {
  if (!node) return [];
  const out: Node[] = [];
  for (const c of node.namedChildren) if (c) out.push(c);
  return out;
}

export function children(node: Node | null | undefined): Node[] {
  if (!node) return [];
  const out: Node[] = [];
  for (const c of node.children) if (c) out.push(c);
  return out;
}

export function childOfType(node: Node | null | undefined, ...types: string[]): Node | null {
  for (const c of named(node)) if (types.includes(c.type)) return c;
  return null;
}

export function childrenOfType(node: Node | null | undefined, ...types: string[]): Node[] {
  return named(node).filter((c) => types.includes(c.type));
}

export function hasKeyword(node: Node, keyword: string): boolean {
  for (const c of children(node)) if (!c.isNamed && c.type === keyword) return true;
  return false;
}

/**
 * The bare name of a type expression: type arguments, call arguments, pointers and qualifiers removed,
 * last segment of a qualified name (`pkg.Iface<T>` → `Iface`, `::std::fmt::Display` → `Display`).
 */
export function bareTypeName(text: string): string {
  let s = text.trim();
  // drop balanced <...>, [...] (Go generics) and (...) (Kotlin constructor calls)
  let prev = '';
  while (prev !== s) {
    prev = s;
    s = s.replace(/<[^<>]*>/g, '').replace(/\[[^[\]]*\]/g, '').replace(/\([^()]*\)/g, '');
  }
  // leading pointers, references and Rust lifetimes (`&'_ Client`, `&'a mut Buf`), then keywords
  let lead = '';
  while (lead !== s) {
    lead = s;
    s = s.replace(/^[\s*&]+/, '').replace(/^'\w+\s+/, '').replace(/^(public|private|protected|virtual|dyn|impl|mut|const)\s+/, '');
  }
  s = s.replace(/[\s?!*&]+$/, '');
  const parts = s.split(/::|\.|\\/).filter((p) => p.length > 0);
  const last = (parts[parts.length - 1] ?? '').trim();
  return /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(last) ? last : '';
}

/** Bare names of a list of type nodes, deduplicated, empties dropped. */
export function bareNames(nodes: Array<Node | null | undefined>, skip: string[] = []): string[] {
  const out: string[] = [];
  for (const n of nodes) {
    if (!n) continue;
    const b = bareTypeName(n.text);
    if (b && !skip.includes(b) && !out.includes(b)) out.push(b);
  }
  return out;
}

/** Text of the `name` field. */
export function nameField(node: Node): string | null {
  return field(node, 'name')?.text ?? null;
}
