/**
 * The AST chunker (seed 002 FR-006 / FR-039): chunks follow syntax (functions, methods, types, impls,
 * extensions); big containers become a declaration chunk plus one chunk per member; every named declaration is a
 * chunk of its own (issue 18: a neighbour is never hidden under another's name — only overloads of one callable
 * share a chunk), while small unnamed code (imports, loose statements, comments) merges toward the token target,
 * with its neighbours or into the declaration next to it; anything over the hard maximum is split at statement
 * boundaries. Every chunk carries the string range of its declaration's identifier (the name node), which
 * `finalizeChunks` turns into `Chunk.nameRange`.
 * Language specifics live in `languages/*.ts` (one data-driven `LanguageDefinition` each).
 */
import type { Language, Node, Tree } from 'web-tree-sitter';
import type { ChunkingConfig } from '../config/schema';
import { TYPE_DECLARATION_KINDS, type ChunkKind, type SemanticClass } from '../types';
import { countTokens } from '../tokenize/tokenCount';
import { isMostlyComment } from '../tokenize/comments';
import { CALLABLE_KINDS, collapse, isTestName, isTestPath, splitByLines, type ChunkDraft, type DraftSymbol, type SourceText } from './common';
import { DEFAULT_EXPORT_NAME, field, named, type DefRule, type LanguageDefinition } from './languages/types';

const MAX_REFERENCES = 200;

/** Subtrees never searched for a declaration's name (a decorator or attribute may mention it). */
const NOT_NAME_TYPES = new Set([
  'decorator', 'attribute', 'attribute_item', 'inner_attribute_item', 'annotation', 'marker_annotation', 'modifiers',
  'attribute_list', 'comment', 'line_comment', 'block_comment', 'multiline_comment', 'modifier',
]);

const DEFAULT_REFERENCE_TYPES = new Set([
  'identifier', 'type_identifier', 'field_identifier', 'property_identifier', 'simple_identifier', 'constant', 'name',
  'shorthand_property_identifier', 'shorthand_property_identifier_pattern', 'namespace_identifier', 'package_identifier',
  'private_property_identifier',
]);
const REFERENCE_STOPLIST = new Set(['this', 'self', 'super', 'Self', 'cls', 'nil', 'null', 'true', 'false', 'undefined', '_', 'it']);

/** A glue comment or docstring of at least this many lines that is nearly all prose may be a module's documentation. */
const PROSE_MIN_LINES = 12;
const TEST_CALL = /^\s*(describe|it|test|suite|context|specify|beforeEach|afterEach|beforeAll|afterAll)(\.\w+)?\s*\(/;

interface DefInfo {
  node: Node;
  rule: DefRule;
  kind: ChunkKind;
  name: string;
  /** String range of the identifier that names the declaration. */
  nameStart: number;
  nameEnd: number;
  symbol: string;
  container: string;
  body: Node | null;
  doc: string;
  signature: string;
  conformances: string[];
  /** Names a variable definition defines. */
  names: string[];
  /** Member names for a container that stays one chunk. */
  memberNames: string[];
  /** Where the further names are: secondary declarators, members (with theirs) of a container kept whole. */
  extras: DraftSymbol[];
}

/** Tags that make a documentation block the file's own (its header), not the next declaration's. */
const FILE_DOC_TAG = /@(license|module|file|fileoverview|overview|copyright|preserve|packageDocumentation)\b/;

/** A line that only closes a block: blank, `#endif` / `#else` (with a comment), closing brackets. */
const CLOSER_LINE = /^\s*(#\s*(endif|else)\b.*)?[\s})\];]*$/;

interface Piece {
  start: number;
  end: number;
  tokens: number;
  /** Nodes whose identifiers count as the piece's references. */
  nodes: Node[];
  def?: DefInfo;
  /** Where the piece's body starts (header end) — for member summaries in declaration chunks. */
  headerEnd: number;
  /** Already-built chunks (split containers, over-long definitions). */
  frozen?: ChunkDraft[];
  isComment: boolean;
  isImport: boolean;
  isTestCall: boolean;
  /** Long prose (a module docstring, a package comment, a long block comment): see `pack`'s module documentation. */
  isProse?: boolean;
  /** Names the statement introduces without declaring anything (re-export aliases; `LanguageDefinition.aliases`). */
  aliases?: DraftSymbol[];
}

interface Ctx {
  /** Qualified container symbol ('' at top level). */
  container: string;
  /** Short name of the enclosing type, for constructor detection. */
  containerName: string;
  /** Inside a type (functions are methods; variables are fields). */
  inType: boolean;
}

export class AstChunker {
  private readonly src: SourceText;
  private readonly text: string;
  private readonly comments: Node[];
  /** Last comment (alone on its lines) ending on a given 1-based line. */
  private readonly commentByEndLine = new Map<number, Node>();
  private readonly refTypes: Set<string>;
  private readonly testFile: boolean;
  /**
   * The identifier leaves of the reference types (named, without children, not empty), in source order: where each
   * starts and ends and its text. A unit's references are the ones under its nodes.
   */
  private readonly refStarts: number[];
  private readonly refEnds: number[];
  private readonly refTexts: string[];

  constructor(
    private readonly lang: LanguageDefinition,
    private readonly path: string,
    src: SourceText,
    private readonly tree: Tree,
    private readonly config: ChunkingConfig,
  ) {
    this.src = src;
    this.text = src.text;
    this.refTypes = new Set(lang.referenceTypes ?? DEFAULT_REFERENCE_TYPES);
    this.testFile = isTestPath(path);
    // One walk of the tree (in tree-sitter) finds the comments and the identifier leaves that references are read
    // from; walking each unit's nodes from JavaScript cost several calls into tree-sitter per node.
    const classes = nodeClasses(tree.language, lang.commentTypes, this.refTypes);
    const comments: Node[] = [];
    const refStarts: number[] = [];
    const refEnds: number[] = [];
    const refTexts: string[] = [];
    const types = [...lang.commentTypes, ...this.refTypes];
    const lines = tree.rootNode.endPosition.row + 1;
    const window = AST_WALK.windowLines;
    // A large file is walked a window of lines at a time (issue 19): tree-sitter hands over every matching node of a
    // walk at once, in its WebAssembly memory and as JavaScript objects — for a 1 MB generated file, hundreds of
    // thousands of them. A leaf lies within one window; a comment that spans two is met twice and kept once.
    const found =
      lines <= window
        ? tree.rootNode.descendantsOfType(types)
        : (function* () {
            let lastComment = -1;
            for (let row = 0; row < lines; row += window) {
              for (const n of tree.rootNode.descendantsOfType(types, { row, column: 0 }, { row: row + window, column: 0 })) {
                if (n && classes[n.typeId] === COMMENT_NODE) {
                  if (n.startIndex <= lastComment) continue;
                  lastComment = n.startIndex;
                }
                yield n;
              }
            }
          })();
    for (const n of found) {
      if (!n) continue;
      const cls = classes[n.typeId];
      if (cls === COMMENT_NODE) comments.push(n);
      else if (cls === REFERENCE_NODE && n.childCount === 0) {
        const end = n.endIndex;
        if (end <= n.startIndex) continue; // a zero-width (missing) identifier names nothing
        refStarts.push(n.startIndex);
        refEnds.push(end);
        refTexts.push(this.text.slice(n.startIndex, end));
      }
    }
    this.comments = comments;
    this.refStarts = refStarts;
    this.refEnds = refEnds;
    this.refTexts = refTexts;
    for (const c of this.comments) {
      const before = this.text.slice(this.src.lineStartOf(c.startIndex), c.startIndex);
      if (before.trim() !== '') continue; // a trailing comment after code is nobody's doc
      this.commentByEndLine.set(this.src.lineOf(Math.max(c.startIndex, c.endIndex - 1)), c);
    }
  }

  chunk(): ChunkDraft[] {
    const pieces = this.sequence(named(this.tree.rootNode), { container: '', containerName: '', inType: false });
    return this.pack(pieces, true);
  }

  // ---------------------------------------------------------------- definitions

  /** The definition a node is (through wrappers), or null. */
  private resolveDef(node: Node): { node: Node; rule: DefRule; kind: ChunkKind } | null {
    let n: Node | null = node;
    for (let i = 0; n && i < 4; i++) {
      const rule = this.lang.definitions[n.type];
      if (rule) {
        const kind = typeof rule.kind === 'function' ? rule.kind(n) : rule.kind;
        if (kind) return { node: n, rule, kind };
      }
      const unwrap: ((x: Node) => Node | null) | undefined = this.lang.wrappers?.[n.type];
      if (!unwrap) return null;
      const inner: Node | null = unwrap(n);
      if (!inner || inner.id === n.id) return null;
      n = inner;
    }
    return null;
  }

  private sequence(nodes: Node[], ctx: Ctx): Piece[] {
    const pieces: Piece[] = [];
    const flat: Array<Node | { start: number; end: number }> = [];
    // a node read through: its own text before and after what it holds (`#ifndef FOO_H`, `if has_crypto:`, an IIFE's
    // `(function () {`) is glue around the statements it holds
    const readThrough = (n: Node, kids: Node[]) => {
      const from = kids.length ? kids[0]!.startIndex : n.endIndex;
      if (from > n.startIndex) flat.push({ start: n.startIndex, end: from });
      flatten(kids);
      const to = kids.length ? kids[kids.length - 1]!.endIndex : n.endIndex;
      if (!this.closersOnly(to, n.endIndex)) flat.push({ start: to, end: n.endIndex });
    };
    const flatten = (list: Node[]) => {
      for (const n of list) {
        if (n.type === 'ERROR' || (this.lang.memberGroups ?? []).includes(n.type)) flatten(named(n));
        else if (this.blockOfDefinitions(n)) readThrough(n, named(n));
        else {
          // a large statement that wraps declarations (an IIFE or UMD module: `(function () { function a() {} … })()`)
          // is read as the statements of the function body it wraps
          const kids = this.wrappedStatements(n);
          if (kids) readThrough(n, kids);
          else flat.push(n);
        }
      }
    };
    flatten(nodes);
    for (const node of flat) {
      if (!('type' in node)) {
        pieces.push(this.gapPiece(node.start, node.end));
        continue;
      }
      const found = this.resolveDef(node);
      let piece: Piece | null = null;
      if (found && !(ctx.inType && found.kind === 'variable')) piece = this.defPiece(node, found.node, found.rule, found.kind, ctx);
      if (!piece) piece = this.gluePiece(node);
      // a statement over the hard maximum that wraps no declaration (a 10,000-line object literal, a bundle's module
      // table) is cut at statement boundaries like an oversize definition, never kept whole
      if (!piece.def && !piece.frozen && piece.tokens > this.config.maxTokens) piece.frozen = this.oversizeGlue(piece, node);
      // a definition absorbs the comments / attributes it starts with
      if (piece.def || piece.frozen) {
        while (pieces.length > 0) {
          const prev = pieces[pieces.length - 1];
          if (!prev.def && !prev.frozen && prev.start >= piece.start) pieces.pop();
          else break;
        }
      }
      pieces.push(piece);
    }
    return pieces;
  }

  /**
   * The statements a large non-declaration wraps, when they include a function or class: the block reached by following
   * the child that holds most of the text (the call's function, the UMD factory argument, its body), at most 8 levels
   * down. Null for a statement under the target size (a small IIFE stays one unit), a definition, or one that wraps no
   * declaration.
   */
  private wrappedStatements(node: Node): Node[] | null {
    if (this.resolveDef(node) || this.src.tokensIn(node.startIndex, node.endIndex) <= this.config.targetTokens) return null;
    return this.innerStatements(node);
  }

  /** The statements of the block that holds most of `node` (see `wrappedStatements`), when they include a declaration. */
  private innerStatements(node: Node): Node[] | null {
    const span = node.endIndex - node.startIndex;
    let cur = node;
    for (let depth = 0; depth < 8; depth++) {
      const kids = named(cur);
      if (cur !== node && kids.length >= 2 && kids.some((k) => this.resolveDef(k) && this.resolveDef(k)!.kind !== 'variable')) return kids;
      let widest: Node | undefined;
      for (const k of kids) if (!widest || k.endIndex - k.startIndex > widest.endIndex - widest.startIndex) widest = k;
      if (!widest || (widest.endIndex - widest.startIndex) * 2 < span) return null;
      cur = widest;
    }
    return null;
  }

  /** Whether [from, to) is empty or only closes blocks (a closing `#endif` or brace alone is not worth a unit of its own). */
  private closersOnly(from: number, to: number): boolean {
    return to <= from || this.text.slice(from, to).split('\n').every((l) => CLOSER_LINE.test(l));
  }

  /** A statement of `definitionBlocks` that holds a function or class (through nested blocks of those kinds). */
  private blockOfDefinitions(node: Node): boolean {
    const blocks = this.lang.definitionBlocks;
    if (!blocks?.includes(node.type)) return false;
    const holds = (n: Node, depth: number): boolean =>
      depth < 6 &&
      named(n).some((c) => {
        const def = this.resolveDef(c);
        if (def) return def.kind !== 'variable';
        return blocks.includes(c.type) && holds(c, depth + 1);
      });
    return holds(node, 0);
  }

  /** Glue that is a block's own text around what it holds (no node of its own: no references). */
  private gapPiece(start: number, end: number): Piece {
    return { start, end, tokens: this.src.tokensIn(start, end), nodes: [], headerEnd: end, isComment: false, isImport: false, isTestCall: false };
  }

  private gluePiece(node: Node): Piece {
    const text = this.text.slice(node.startIndex, node.endIndex);
    const aliases = this.lang.aliases?.(node).map((a): DraftSymbol => ({ name: a.text, symbol: a.text, kind: 'variable', container: '', start: a.startIndex, end: a.endIndex }));
    return {
      ...(aliases?.length ? { aliases } : {}),
      start: node.startIndex,
      end: node.endIndex,
      tokens: this.src.tokensIn(node.startIndex, node.endIndex),
      nodes: [node],
      headerEnd: node.endIndex,
      isComment: this.lang.commentTypes.includes(node.type),
      isImport: this.lang.importTypes.includes(node.type),
      isTestCall: TEST_CALL.test(text),
      isProse: this.src.lineOf(node.endIndex) - this.src.lineOf(node.startIndex) + 1 >= PROSE_MIN_LINES && isMostlyComment(text, this.lang.id),
    };
  }

  private defPiece(outer: Node, node: Node, rule: DefRule, rawKind: ChunkKind, ctx: Ctx): Piece | null {
    const given = (rule.name ? rule.name(node) : field(node, 'name')?.text) ?? '';
    // an anonymous default export is named after its module (`Widget.ts`, `widget/index.ts` → Widget), at `default`
    const defaultKeyword = given === DEFAULT_EXPORT_NAME && outer !== node ? outer.children.find((c) => c?.type === 'default') ?? null : null;
    const name = defaultKeyword ? moduleName(this.path) ?? given : given;
    if (!name) return null;
    const qualifier = rule.qualifier?.(node) ?? '';
    const container = [ctx.container, qualifier].filter(Boolean).join('.');
    let kind = rawKind;
    if (kind === 'function' && ctx.inType) kind = 'method';
    if (CALLABLE_KINDS.has(kind)) {
      const owner = container.split('.').pop() ?? '';
      if ((this.lang.constructorNames ?? []).includes(name) && (ctx.inType || qualifier)) kind = 'constructor';
      else if (this.lang.constructorIsClassName && owner && name === owner) kind = 'constructor';
    }
    const symbol = container ? `${container}.${name}` : name;
    const body = rule.body ? rule.body(node) : field(node, 'body');

    // leading attributes (Rust #[...]) and doc comments that are siblings belong to the definition
    let start = outer.startIndex;
    const nodes: Node[] = [outer];
    for (let p = outer.previousNamedSibling; p && (this.lang.attachedPrefixTypes ?? []).includes(p.type); p = p.previousNamedSibling) {
      start = p.startIndex;
      nodes.unshift(p);
    }
    const { doc: commentDoc, docStart } = this.commentDoc(start, outer.parent);
    start = Math.min(start, docStart);
    const doc = (this.lang.docstrings && body ? this.docstring(body) : '') || commentDoc;
    const end = outer.endIndex;
    const headerEnd = body && body.startIndex > outer.startIndex ? body.startIndex : end;
    // the signature stops at the body, or at a comment inside the header (Ruby `module A  # doc`)
    let sigEnd = headerEnd;
    for (const c of named(node)) {
      if (c.startIndex >= sigEnd) break;
      if (this.lang.commentTypes.includes(c.type) && c.startIndex > outer.startIndex) sigEnd = c.startIndex;
    }
    const signature = collapse(this.text.slice(outer.startIndex, sigEnd).replace(/[\s{:=]+$/, '').replace(/\s*(->|=>)\s*$/, ''));
    const nameNode = defaultKeyword && name !== given ? defaultKeyword : this.nameNode(node, rule, name, headerEnd);
    const [nameStart, nameEnd] = nameNode
      ? [nameNode.startIndex, nameNode.endIndex]
      : this.src.firstNonBlankLine(node.startIndex, node.endIndex) ?? [node.startIndex, node.startIndex];
    const def: DefInfo = {
      node,
      rule,
      kind,
      name,
      nameStart,
      nameEnd,
      symbol,
      container,
      body,
      doc,
      signature,
      conformances: rule.conformances?.(node) ?? [],
      names: unique([name, ...(rule.names?.(node) ?? [])]),
      memberNames: [],
      extras: [],
    };
    // every other name a declaration defines (`const a = 1, b = 2`, a Go `const (...)` block of thousands): one walk
    const others = this.nameNodes(node, def.names.slice(1), end);
    for (const other of def.names.slice(1)) {
      const n = others.get(other);
      if (n) def.extras.push({ name: other, symbol: container ? `${container}.${other}` : other, kind, container, start: n.startIndex, end: n.endIndex });
    }
    const tokens = this.src.tokensIn(start, end);
    const piece: Piece = { start, end, tokens, nodes, def, headerEnd, isComment: false, isImport: false, isTestCall: false };

    if ((typeof rule.container === 'function' ? rule.container(node) : rule.container) && body) {
      const memberCtx: Ctx = { container: symbol, containerName: name, inType: !rule.transparent };
      const members = this.sequence(named(body), memberCtx);
      const memberDefs = members.filter((m) => m.def || m.frozen);
      const nestedTypes = memberDefs.some((m) => m.frozen || (m.def && isTypeLike(m.def.kind)));
      const split = tokens > this.config.targetTokens || nestedTypes || (rule.transparent && memberDefs.length > 0);
      if (split) {
        piece.frozen = [...this.declarationDrafts(piece, body, members), ...this.pack(members, false)];
        return piece;
      }
      def.memberNames = memberDefs.flatMap((m) => (m.def ? [m.def.name, ...m.def.memberNames] : []));
      def.extras.push(
        ...memberDefs.flatMap((m) => {
          const d = m.def;
          if (!d || d.nameEnd <= d.nameStart) return [];
          return [{ name: d.name, symbol: d.symbol, kind: d.kind, container: d.container, start: d.nameStart, end: d.nameEnd }, ...d.extras];
        }),
      );
    }
    if (tokens > this.config.maxTokens) {
      piece.frozen = this.wrapperDrafts(piece) ?? this.oversizeDrafts(piece);
    }
    return piece;
  }

  /**
   * A definition over the hard maximum whose body is mostly declarations of its own (lodash's 13,000-line
   * `runInContext`, a revealing-module `var Lib = (function () { function a() {} … return { a }; })()`): its header is
   * a unit (its name, doc and signature), and the statements it wraps are read as members — each function or class
   * inside a unit of its own (`runInContext.chunk`), the other statements (its local variables included) glue — instead
   * of parts cut every 4,000 tokens that all carry the outer name. Null when it wraps no declaration.
   */
  private wrapperDrafts(piece: Piece): ChunkDraft[] | null {
    const def = piece.def!;
    const inner = this.innerStatements(def.node);
    if (!inner) return null;
    const memberCtx: Ctx = { container: def.symbol, containerName: def.name, inType: false };
    // its variables are the function's local state, not declarations of their own: glue between the members
    const members = this.sequence(inner, memberCtx).map((m) => (m.def?.kind === 'variable' && !m.frozen ? { ...m, def: undefined } : m));
    const last = inner[inner.length - 1]!.endIndex;
    if (!this.closersOnly(last, piece.end)) members.push(this.gapPiece(last, piece.end));
    // the header keeps the statements before the first member (its setup), while it stays under the target size
    let head = inner[0]!.startIndex;
    while (members.length > 1 && !members[0]!.def && !members[0]!.frozen && this.src.tokensIn(piece.start, members[0]!.end) <= this.config.targetTokens) head = members.shift()!.end;
    const headDraft: ChunkDraft = { ...this.baseDraft(def, piece.start, head), references: this.references(piece.nodes, new Set(def.names), [], [piece.start, head]) };
    return [headDraft, ...this.pack(members, true)];
  }

  /**
   * The node that names a declaration: the rule's name node (default: the `name` field) or, when the name is
   * derived (Rust `impl` type, Swift `init`, a declarator's identifier), the first token of the header, outside
   * decorators and attributes, whose text is the name. Null when the name is not in the source (`export default class`).
   */
  private nameNode(node: Node, rule: DefRule, name: string, headerEnd: number): Node | null {
    const find = (root: Node | null, limit: number): Node | null => {
      if (!root) return null;
      const stack: Node[] = [root];
      while (stack.length > 0) {
        const n = stack.pop()!;
        if (n.startIndex >= limit || (n.id !== root.id && NOT_NAME_TYPES.has(n.type))) continue;
        if (n.endIndex - n.startIndex === name.length && this.text.slice(n.startIndex, n.endIndex) === name) return n;
        if (n.endIndex - n.startIndex < name.length) continue;
        for (let i = n.childCount - 1; i >= 0; i--) {
          const c = n.child(i);
          if (c && c.startIndex < limit) stack.push(c);
        }
      }
      return null;
    };
    const hint = rule.nameNode ? rule.nameNode(node) : field(node, 'name');
    return find(hint, hint ? hint.endIndex : 0) ?? find(node, Math.max(headerEnd, node.startIndex + 1));
  }

  /** The first node (in source order, before `limit`, outside decorators and attributes) spelling each of `names`. */
  private nameNodes(root: Node, names: readonly string[], limit: number): Map<string, Node> {
    const found = new Map<string, Node>();
    const wanted = new Set(names);
    if (!wanted.size) return found;
    const longest = Math.max(...names.map((n) => n.length));
    const stack: Node[] = [root];
    while (stack.length > 0 && found.size < wanted.size) {
      const n = stack.pop()!;
      if (n.startIndex >= limit || (n.id !== root.id && NOT_NAME_TYPES.has(n.type))) continue;
      const len = n.endIndex - n.startIndex;
      if (n.childCount === 0 || len <= longest) {
        const text = this.text.slice(n.startIndex, n.endIndex);
        if (wanted.has(text) && !found.has(text)) {
          found.set(text, n);
          continue;
        }
      }
      for (let i = n.childCount - 1; i >= 0; i--) {
        const c = n.child(i);
        if (c && c.startIndex < limit) stack.push(c);
      }
    }
    return found;
  }

  /** Cleaned text of the comments immediately above `index` (no blank line between), and where they start. */
  private commentDoc(index: number, parent: Node | null): { doc: string; docStart: number } {
    const parts: string[] = [];
    let docStart = index;
    let line = this.src.lineOf(index);
    // a documentation block (`/** … */`) one or two blank lines above still documents the declaration, as JSDoc,
    // Javadoc and TypeScript read it (express writes every one that way); a `//` comment there does not, nor a file's
    // own header (`/*!`, @license, @module, @file)
    const above = /\*\/[ \t]*\n((?:[ \t]*\n){1,2})$/.exec(this.text.slice(Math.max(0, this.src.lineStartOf(index) - 40), this.src.lineStartOf(index)));
    if (above && !this.commentByEndLine.has(line - 1)) {
      const blanks = above[1]!.split('\n').length - 1;
      const c = this.commentByEndLine.get(line - 1 - blanks);
      if (c && c.endIndex <= index && /^\/\*\*[^*/]/.test(c.text) && !FILE_DOC_TAG.test(c.text)) line -= blanks;
    }
    for (;;) {
      const c = this.commentByEndLine.get(line - 1);
      if (!c || c.endIndex > index) break;
      parts.unshift(cleanComment(c.text));
      // only sibling comments become part of the chunk's range
      if (parent && c.parent && c.parent.id === parent.id) docStart = Math.min(docStart, c.startIndex);
      line = this.src.lineOf(c.startIndex);
    }
    return { doc: parts.join('\n').trim(), docStart };
  }

  /** A Python-style docstring: the first statement of the body, when it is a string. */
  private docstring(body: Node): string {
    const first = named(body)[0];
    if (!first || first.type !== 'expression_statement') return '';
    const s = named(first)[0];
    if (!s || s.type !== 'string' || named(first).length !== 1) return '';
    const raw = s.text.replace(/^[rRbBuUfF]*("""|'''|"|')/, '').replace(/("""|'''|"|')$/, '');
    return dedent(raw).trim();
  }

  // ---------------------------------------------------------------- big containers

  /** Declaration chunk: header, doc, fields and member signatures (bodies elided). */
  private declarationDrafts(piece: Piece, body: Node, members: Piece[]): ChunkDraft[] {
    const def = piece.def!;
    const t = this.text;
    const parts: string[] = [];
    const firstStart = members.length > 0 ? Math.max(body.startIndex, this.src.lineStartOf(members[0].start)) : body.endIndex;
    // where the header ends: before the first member's line (a `{` body whose members start on later lines), else
    // after the body's opening delimiter (`{`), or — a body that starts at its first statement (Python's block, Ruby's
    // body_statement) — at the start of that statement's line: cutting one character into the body there had split
    // the first member's text ("class PyJWS:\n    h\neader_typ = …")
    const startsAtStatement = /[\p{L}\p{N}_$@#"'`]/u.test(t[body.startIndex] ?? '');
    const statementLine = this.src.lineStartOf(body.startIndex);
    const headEnd =
      members.length > 0 && firstStart > body.startIndex
        ? firstStart
        : startsAtStatement
          ? statementLine > piece.start ? statementLine : body.startIndex
          : Math.min(body.startIndex + 1, body.endIndex);
    parts.push(t.slice(piece.start, headEnd).replace(/\s+$/, ''));
    let prevEnd = headEnd;
    for (const m of members) {
      const from = Math.max(prevEnd, this.src.lineStartOf(m.start));
      if (m.def || m.frozen) {
        // a member's signature only: its doc comment belongs to its own unit (a class unit that carried every member's
        // docs would match every question about the class's members and crowd them out)
        const declStart = m.def ? Math.min(m.headerEnd, Math.max(from, this.src.lineStartOf(m.def.node.startIndex))) : from;
        const header = t.slice(declStart, m.headerEnd).replace(/\s+$/, '');
        parts.push(m.headerEnd < m.end ? `${header} …` : header);
      } else {
        // keep a trailing `;` / `,` that is not part of the member node
        const rest = /^[ \t]*[;,]/.exec(t.slice(m.end, m.end + 8));
        parts.push(t.slice(from, m.end + (rest ? rest[0].length : 0)).replace(/\s+$/, ''));
      }
      prevEnd = m.end;
    }
    const lastEnd = members.length > 0 ? members[members.length - 1].end : headEnd;
    const closing = t.slice(Math.max(lastEnd, headEnd), piece.end).trim();
    if (closing) parts.push(closing);
    const content = parts.join('\n');

    const memberDefs = members.filter((m) => m.def);
    // a class lists its members; a namespace-like container does not claim the definitions inside it
    const symbols = def.rule.transparent ? [def.name] : unique([def.name, ...memberDefs.map((m) => m.def!.name)]);
    // references: the header and non-definition members, plus member headers (not member bodies)
    const skip: Array<[number, number]> = [];
    for (const m of memberDefs) if (m.def!.body) skip.push([m.def!.body.startIndex, m.def!.body.endIndex]);
    for (const m of members) if (m.frozen && !m.def) for (const n of m.nodes) skip.push([n.startIndex, n.endIndex]);
    const refRoots = [...named(def.node).filter((n) => n.id !== body.id), ...members.flatMap((m) => m.nodes)];
    const references = this.references(refRoots, new Set([...symbols, ...memberDefs.map((m) => m.def!.name)]), skip);
    const base: ChunkDraft = {
      kind: def.kind,
      symbol: def.symbol,
      name: def.name,
      container: def.container,
      symbols,
      references,
      conformances: def.conformances,
      doc: def.doc,
      signature: def.signature,
      start: piece.start,
      end: piece.end,
      content,
      nameStart: def.nameStart,
      nameEnd: def.nameEnd,
      ...(def.extras.length ? { extraSymbols: def.extras } : {}),
      semanticClass: this.semanticClass(def.kind, def.name, false, false),
      source: 'ast',
    };
    if (countTokens(content) <= this.config.maxTokens) return [base];
    return splitByLines(content, 0, content.length, this.config.maxTokens).map(([s, e], i) => ({
      ...base,
      content: content.slice(s, e),
      ...(i > 0 ? { extraSymbols: undefined } : {}),
    }));
  }

  /** A definition over the hard maximum: parts cut at statement boundaries, all keeping the symbol. */
  private oversizeDrafts(piece: Piece): ChunkDraft[] {
    const def = piece.def!;
    let kids: Node[] = named(def.body);
    const containers = this.lang.statementContainers ?? [];
    while (kids.length === 1 && containers.includes(kids[0].type)) kids = named(kids[0]);
    if (kids.length === 0) kids = named(def.node);
    const ranges = this.splitRange(piece.start, piece.end, kids);
    return ranges.map(([s, e], i) => ({
      ...this.baseDraft(def, s, e),
      references: this.references(piece.nodes, new Set(def.names), [], [s, e]),
      // the further names are listed once, with the first part
      ...(i > 0 ? { extraSymbols: undefined } : {}),
    }));
  }

  /** Parts (unnamed code, each under the hard maximum) of a statement over it: see `sequence`. */
  private oversizeGlue(piece: Piece, node: Node): ChunkDraft[] {
    return this.splitRange(piece.start, piece.end, named(node)).map(([s, e]): ChunkDraft => {
      const line = this.src.firstNonBlankLine(s, e);
      return {
        kind: 'code', symbol: '', name: '', container: '', symbols: [], references: this.references([node], new Set(), [], [s, e]), conformances: [], doc: '', signature: '',
        start: s, end: e, semanticClass: this.semanticClass('code', '', piece.isTestCall, piece.isImport), source: 'ast',
        ...(line ? { nameStart: line[0], nameEnd: line[1] } : {}),
      };
    });
  }

  private splitRange(start: number, end: number, kids: Node[]): Array<[number, number]> {
    const max = this.config.maxTokens;
    const cuts = kids.map((k) => k.startIndex).filter((x) => x > start && x < end);
    const bounds = [start, ...unique(cuts.map(String)).map(Number).sort((a, b) => a - b), end];
    const segs: Array<[number, number, number]> = [];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const s = bounds[i];
      const e = bounds[i + 1];
      const tokens = this.src.tokensIn(s, e);
      if (tokens <= max) {
        segs.push([s, e, tokens]);
        continue;
      }
      const kid = kids.find((k) => k.startIndex >= s && k.startIndex < e && k.endIndex <= e + 1) ?? kids.find((k) => k.startIndex <= s && k.endIndex >= e);
      let inner = kid ? named(kid) : [];
      if (inner.length === 1) inner = named(inner[0]);
      const sub = inner.length >= 2 ? this.splitRange(s, e, inner) : splitByLines(this.text, s, e, max);
      for (const [a, b] of sub) segs.push([a, b, this.src.tokensIn(a, b)]);
    }
    const out: Array<[number, number]> = [];
    let cur: [number, number, number] | null = null;
    for (const seg of segs) {
      if (cur && cur[2] + seg[2] <= max) cur = [cur[0], seg[1], cur[2] + seg[2]];
      else {
        if (cur) out.push([cur[0], cur[1]]);
        cur = seg;
      }
    }
    if (cur) out.push([cur[0], cur[1]]);
    return out;
  }

  // ---------------------------------------------------------------- merging

  /**
   * Packs pieces into chunks. Each named declaration is a chunk of its own (overloads of one callable, adjacent and
   * of the same name, stay together); unnamed glue (imports, statements, comments) merges toward the target with
   * other glue and with at most one declaration before or after it.
   */
  private pack(pieces: Piece[], topLevel: boolean): ChunkDraft[] {
    const { minTokens, targetTokens } = this.config;
    const out: ChunkDraft[] = [];
    let group: Piece[] = [];
    let groupTokens = 0;
    let groupDef: DefInfo | undefined;
    const flush = () => {
      if (group.length > 0) out.push(this.groupDraft(group));
      group = [];
      groupTokens = 0;
      groupDef = undefined;
    };
    // a module's documentation: prose before any code (a module docstring, a package comment), not a comment that
    // documents the declaration after it
    const moduleDocs = new Set<Piece>();
    let seenCode = false;
    for (const p of pieces) {
      if (topLevel && p.isProse && !seenCode) moduleDocs.add(p);
      if (!p.isComment) seenCode = true;
    }
    for (const p of pieces) {
      if (p.frozen) {
        flush();
        out.push(...p.frozen);
        continue;
      }
      if (!topLevel && !p.def) continue; // members that are not definitions live in the declaration chunk
      const fits =
        groupTokens + p.tokens <= targetTokens &&
        (groupTokens < minTokens || p.tokens < minTokens) &&
        !(p.def && groupDef && !overloads(groupDef, p.def)) &&
        // a module's documentation is not the first declaration's: neither joins the other
        !(moduleDocs.has(p) && groupDef) &&
        !(p.def && group.some((g) => moduleDocs.has(g)));
      if (group.length > 0 && !fits) flush();
      group.push(p);
      groupTokens += p.tokens;
      groupDef ??= p.def;
    }
    flush();
    return out;
  }

  private groupDraft(group: Piece[]): ChunkDraft {
    const defs = group.filter((p) => p.def).map((p) => p.def!);
    const main = defs[0];
    const start = group[0].start;
    const end = group[group.length - 1].end;
    const aliases = group.flatMap((p) => p.aliases ?? []);
    const symbols = unique([
      ...(main ? [main.name, ...main.memberNames, ...defs.filter((d) => d !== main).flatMap((d) => [...d.names, ...d.memberNames]), ...main.names] : []),
      ...aliases.map((a) => a.name),
    ]);
    const references = this.references(group.flatMap((p) => p.nodes), new Set(symbols), []);
    const testCall = group.some((p) => p.isTestCall);
    const importOnly = group.every((p) => p.isImport || p.isComment);
    if (!main) {
      // the name range of unnamed code: its first line that is not an import or a comment
      const own = group.find((p) => !p.isImport && !p.isComment) ?? group[0];
      const line = this.src.firstNonBlankLine(own.start, own.end);
      return {
        kind: 'code',
        symbol: '',
        name: '',
        container: '',
        symbols,
        references,
        conformances: [],
        doc: '',
        signature: '',
        start,
        end,
        semanticClass: this.semanticClass('code', '', testCall, importOnly),
        source: 'ast',
        ...(line ? { nameStart: line[0], nameEnd: line[1] } : {}),
        ...(aliases.length ? { extraSymbols: aliases } : {}),
      };
    }
    const draft = { ...this.baseDraft(main, start, end, testCall), symbols, references };
    if (aliases.length) draft.extraSymbols = [...(draft.extraSymbols ?? []), ...aliases];
    return draft;
  }

  private baseDraft(def: DefInfo, start: number, end: number, testCall = false): ChunkDraft {
    return {
      kind: def.kind,
      symbol: def.symbol,
      name: def.name,
      container: def.container,
      symbols: unique([def.name, ...def.memberNames, ...def.names]),
      references: [],
      conformances: def.conformances,
      doc: def.doc,
      signature: def.signature,
      start,
      end,
      nameStart: def.nameStart,
      nameEnd: def.nameEnd,
      ...(def.extras.length ? { extraSymbols: def.extras } : {}),
      semanticClass: this.semanticClass(def.kind, def.name, testCall, false),
      source: 'ast',
    };
  }

  private semanticClass(kind: ChunkKind, name: string, testCall: boolean, importOnly: boolean): SemanticClass {
    if (kind === 'code') {
      if (importOnly) return 'BOUNDARY_MODULE';
      return testCall || this.testFile ? 'DEFINITION_TEST' : 'BOUNDARY_MODULE';
    }
    if (kind === 'namespace') return 'BOUNDARY_MODULE';
    const test = this.testFile || isTestName(name) || testCall;
    if (CALLABLE_KINDS.has(kind)) return test ? 'DEFINITION_TEST' : 'DEFINITION_CALLABLE';
    if (kind === 'variable') return this.testFile ? 'DEFINITION_TEST' : 'DEFINITION_DATA';
    return test ? 'DEFINITION_TEST' : 'DEFINITION_TYPE';
  }

  // ---------------------------------------------------------------- references

  /**
   * Identifiers under `roots` (optionally within a range), minus the chunk's own names and what lies in the `skip`
   * ranges (subtrees left out: member bodies); first-seen order, roots in turn. The identifier leaves under a node are
   * the ones within its range (a tree's ranges nest), so this reads the leaves found once per file.
   */
  private references(roots: Node[], exclude: Set<string>, skip: Array<[number, number]>, range?: [number, number]): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    const starts = this.refStarts;
    const ends = this.refEnds;
    const skips = disjoint(skip);
    for (const root of roots) {
      if (out.length >= MAX_REFERENCES) break;
      let from = root.startIndex;
      let to = root.endIndex;
      if (range) {
        if (to <= range[0] || from >= range[1]) continue;
        from = Math.max(from, range[0]);
        to = Math.min(to, range[1]);
      }
      let i = lowerBound(starts, from);
      // a leaf that starts before the range and ends inside it (leaves do not overlap: at most one)
      if (range && i > 0 && starts[i - 1] >= root.startIndex && ends[i - 1] > range[0]) i--;
      for (; i < starts.length && starts[i] < to && out.length < MAX_REFERENCES; i++) {
        const s = starts[i];
        if (skips.length) {
          const k = upperBound(skips, s) - 1;
          if (k >= 0 && s < skips[k][1]) {
            i = lowerBound(starts, skips[k][1]) - 1;
            continue;
          }
        }
        const id = this.refTexts[i];
        if (!seen.has(id) && !exclude.has(id) && !REFERENCE_STOPLIST.has(id) && /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(id)) {
          seen.add(id);
          out.push(id);
        }
      }
    }
    return out;
  }
}

/** Adjacent overloads of one callable (TS signatures before the implementation): one chunk under their shared name. */
function overloads(a: DefInfo, b: DefInfo): boolean {
  return a.name === b.name && a.container === b.container && CALLABLE_KINDS.has(a.kind) && CALLABLE_KINDS.has(b.kind);
}

export function isTypeLike(kind: ChunkKind): boolean {
  return TYPE_DECLARATION_KINDS.has(kind) || kind === 'module' || kind === 'namespace';
}

/**
 * The name importers conventionally give a module's default export: the file's name without its extensions, or the
 * folder's for an index file, as an identifier (`make-parser.ts` → makeParser); undefined when there is none.
 */
export function moduleName(path: string): string | undefined {
  const parts = path.split('/');
  let base = (parts.pop() ?? '').replace(/\..*$/, '');
  if (base === 'index' || base === 'mod' || base === '__init__') base = parts.pop() ?? '';
  const id = base.replace(/[-_.\s]+([A-Za-z0-9])/g, (_, c: string) => c.toUpperCase()).replace(/[-_.\s]+$/, '');
  return /^[A-Za-z_$][\w$]*$/.test(id) ? id : undefined;
}

/** The items in order without repeats or empty strings (a Set: a generated table's chunk names thousands). */
function unique<T>(items: T[]): T[] {
  const seen = new Set<T>();
  const out: T[] = [];
  for (const i of items) {
    if (i === '' || seen.has(i)) continue;
    seen.add(i);
    out.push(i);
  }
  return out;
}

function dedent(text: string): string {
  const lines = text.split('\n');
  const indents = lines.slice(1).filter((l) => l.trim()).map((l) => l.match(/^\s*/)![0].length);
  const min = indents.length ? Math.min(...indents) : 0;
  return [lines[0].trim(), ...lines.slice(1).map((l) => l.slice(min))].join('\n');
}

/** A comment without its markers (`/** * *\/`, `///`, `//!`, `//`, `#`) and XML doc tags. */
export function cleanComment(text: string): string {
  let lines: string[];
  const t = text.trim();
  if (t.startsWith('/*')) {
    lines = t
      .replace(/^\/\*+!?/, '')
      .replace(/\*+\/$/, '')
      .split('\n')
      .map((l) => l.replace(/^\s*\*+(?!\/) ?/, ''));
  } else if (t.startsWith('=begin')) {
    lines = t.replace(/^=begin/, '').replace(/=end$/, '').split('\n');
  } else {
    lines = t.split('\n').map((l) => l.replace(/^\s*(\/\/[/!]?|#+|--) ?/, ''));
  }
  return lines
    .map((l) => l.replace(/<\/?(summary|remarks|returns|param|typeparam|value|example|para|see|seealso|exception|inheritdoc|c|code|list|item|description)\b[^>]*>/g, '').trimEnd())
    .join('\n')
    .replace(/^\n+|\n+$/g, '')
    .trim();
}

const COMMENT_NODE = 1;
const REFERENCE_NODE = 2;
const CLASSES = new WeakMap<Language, Map<string, Uint8Array>>();

/**
 * How a chunker walks a large file's tree for comments and identifier leaves: `windowLines` lines at a time (the
 * results are the same for any window; tests set a small one).
 */
export const AST_WALK = { windowLines: 4_000 };

/**
 * By node type id: COMMENT_NODE for the comment types (as `descendantsOfType` matches them, by name), REFERENCE_NODE
 * for the named node types of the reference types (a JavaScript walk over named children never meets anonymous
 * ones), else 0. Per grammar and set of types, computed once.
 */
function nodeClasses(language: Language, commentTypes: readonly string[], refTypes: ReadonlySet<string>): Uint8Array {
  let byKey = CLASSES.get(language);
  if (!byKey) CLASSES.set(language, (byKey = new Map()));
  const key = `${commentTypes.join(' ')}\u0000${[...refTypes].join(' ')}`;
  let classes = byKey.get(key);
  if (!classes) {
    classes = new Uint8Array(65536);
    language.types.forEach((name, id) => {
      if (commentTypes.includes(name)) classes![id] = COMMENT_NODE;
      else if (refTypes.has(name) && language.nodeTypeIsNamed(id)) classes![id] = REFERENCE_NODE;
    });
    byKey.set(key, classes);
  }
  return classes;
}

/** The union of ranges as disjoint ranges by ascending start. */
function disjoint(ranges: Array<[number, number]>): Array<[number, number]> {
  if (ranges.length < 2) return ranges;
  const out: Array<[number, number]> = [];
  for (const [s, e] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && s < last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** The first index whose value is >= x (values ascending). */
function lowerBound(values: readonly number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first range whose start is > x (ranges by ascending start). */
function upperBound(ranges: ReadonlyArray<readonly [number, number]>, x: number): number {
  let lo = 0;
  let hi = ranges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid][0] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
