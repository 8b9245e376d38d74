/**
 * The shapes of Go's derived (implicit) interface conformances: the row kinds the pass writes, the per-file facts it
 * keeps (declared types, methods with their signatures), the stored chunk columns it reads, and how a file's type
 * names resolve.
 */
import type { ConformanceRow } from '../../../store/chunkStore';

/**
 * Conformance row kinds written by this pass (and only by it): 'implicit' (the value's method set has every method),
 * 'implicit-pointer' (only the pointer's does), 'implicit-interface' (another interface, a superset), and
 * 'implicit-embedded' (a type whose own methods provide none of them: every one is promoted from an embedded field, so
 * it satisfies the interface through that field — a wrapper, ranked after the types that implement it themselves).
 */
export const IMPLICIT_KINDS = ['implicit', 'implicit-pointer', 'implicit-interface', 'implicit-embedded'] as const;
export type ImplicitKind = (typeof IMPLICIT_KINDS)[number];

/** A type named in an embedding: `Foo`, `*Foo`, `pkg.Foo` (type arguments dropped). */
export interface GoTypeRef {
  pkg: string;
  name: string;
  pointer: boolean;
}

/**
 * A method's signature, normalised (see `signature.ts`). `params` and `results` hold one canonical type per
 * parameter/result; a named type is written `pkg.Name`. Positions that are not fully known carry markers (`ANY`: any
 * type; `ANY_PKG` before a name: any package) and make the signature `wild`.
 */
export interface GoSignature {
  params: string[];
  results: string[];
  /** `(params) (results)`, markers included: equal keys are equal signatures. */
  key: string;
  wild?: true;
}

/** One named type declared in a file (a `type (...)` group declares several). */
export interface GoTypeDecl {
  name: string;
  /** The declaration chunk (the first piece when an over-long declaration was split). */
  chunkId: string;
  path: string;
  interface: boolean;
  /** An interface's own method names. */
  methods: string[];
  /** The signatures of `methods`, index for index (null: not understood, matched by name only); interfaces only. */
  signatures?: Array<GoSignature | null>;
  /** Embedded interfaces (interface) or embedded fields (struct). */
  embeds: GoTypeRef[];
  /** An interface with type terms (`~int | ~string`, `comparable`): a constraint, never a target. */
  constraint: boolean;
  /** Conformances the chunker already recorded for the chunk (explicit embedding), bare names. */
  explicit: string[];
}

export interface GoMethodDecl {
  receiver: string;
  name: string;
  pointer: boolean;
  /** The method's signature when its header was parsed (absent: matched by name only). */
  sig?: GoSignature;
}

/** What one Go file contributes. */
export interface GoFileFacts {
  path: string;
  /** The `package` clause's name when a chunk of the file shows it. */
  packageName?: string;
  types: GoTypeDecl[];
  methods: GoMethodDecl[];
  /** Type aliases to named types (`type FileMode = fs.FileMode`): canonical alias name → canonical target. */
  aliases?: Array<[string, string]>;
}

/** The columns of a stored Go chunk the pass reads. */
export interface GoChunkRow {
  id: string;
  path: string;
  kind: string;
  symbol: string;
  name: string;
  startByte: number;
  content: string;
}

export interface ImplicitRow extends ConformanceRow {
  kind: ImplicitKind;
}

/** How the type names of a file resolve. */
export interface GoNameContext {
  /** The file's package name ('' when unknown: unqualified names stay bare). */
  pkg: string;
  /** Import aliases: alias → the imported package's name (the path's last element). */
  aliases?: ReadonlyMap<string, string>;
  /** The file dot-imports a package: its unqualified names may come from anywhere. */
  dotImport?: boolean;
  /** Type parameters in scope (a generic interface's or receiver's): they stand for any type. */
  typeParams?: ReadonlySet<string>;
}

/** A method header found in chunk text, before its signature is parsed. */
export interface MethodHeader {
  decl: GoMethodDecl;
  /** The header from the parameters on (`(p []byte) (n int, err error)`), when the whole header is in the text. */
  sigText?: string;
  /** A generic receiver's type parameters (`func (l *List[K, V])` → K, V). */
  typeParams: string[];
}

/** Parsed signatures by context and header text, shared by the files of one pass (null: not understood). */
export type GoSignatureMemo = Map<string, GoSignature | null>;

/** A named type as a declaration states it (the chunk and the explicit conformances are added by the file's facts). */
export type DeclaredType = Omit<GoTypeDecl, 'chunkId' | 'path' | 'explicit'>;
