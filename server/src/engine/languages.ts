/**
 * The language registry: which file names Quarry indexes and how each is chunked.
 * Discovery uses it to accept files; chunking uses `grammar` to pick a tree-sitter grammar
 * (a `tree-sitter-<grammar>.wasm` from the tree-sitter-wasms package) or a text chunker.
 */

export interface LanguageInfo {
  id: string;
  /** tree-sitter-wasms grammar name, or undefined for the text / Markdown chunkers. */
  grammar?: string;
  /** Which non-AST chunker handles it when there is no grammar. */
  textChunker?: 'markdown' | 'asciidoc' | 'rst' | 'text';
  extensions: string[];
  /** Exact file names (no extension) that belong to the language, e.g. `Dockerfile`. */
  fileNames?: string[];
}

export const LANGUAGES: readonly LanguageInfo[] = [
  { id: 'typescript', grammar: 'typescript', extensions: ['.ts', '.mts', '.cts'] },
  { id: 'tsx', grammar: 'tsx', extensions: ['.tsx'] },
  { id: 'javascript', grammar: 'javascript', extensions: ['.js', '.mjs', '.cjs', '.jsx'] },
  { id: 'python', grammar: 'python', extensions: ['.py', '.pyi'] },
  { id: 'go', grammar: 'go', extensions: ['.go'] },
  { id: 'rust', grammar: 'rust', extensions: ['.rs'] },
  { id: 'java', grammar: 'java', extensions: ['.java'] },
  { id: 'csharp', grammar: 'c_sharp', extensions: ['.cs'] },
  { id: 'kotlin', grammar: 'kotlin', extensions: ['.kt', '.kts'] },
  { id: 'swift', grammar: 'swift', extensions: ['.swift'] },
  { id: 'c', grammar: 'c', extensions: ['.c', '.h'] },
  { id: 'cpp', grammar: 'cpp', extensions: ['.cc', '.cpp', '.cxx', '.c++', '.hpp', '.hh', '.hxx', '.h++', '.ipp'] },
  { id: 'ruby', grammar: 'ruby', extensions: ['.rb', '.rake', '.gemspec'], fileNames: ['Rakefile', 'Gemfile'] },
  { id: 'php', grammar: 'php', extensions: ['.php'] },
  { id: 'scala', grammar: 'scala', extensions: ['.scala', '.sc'] },
  { id: 'dart', grammar: 'dart', extensions: ['.dart'] },
  { id: 'lua', grammar: 'lua', extensions: ['.lua'] },
  { id: 'bash', grammar: 'bash', extensions: ['.sh', '.bash', '.zsh'] },
  { id: 'markdown', textChunker: 'markdown', extensions: ['.md', '.markdown', '.mdx'] },
  { id: 'asciidoc', textChunker: 'asciidoc', extensions: ['.adoc', '.asciidoc'] },
  { id: 'restructuredtext', textChunker: 'rst', extensions: ['.rst'] },
  { id: 'text', textChunker: 'text', extensions: ['.txt'] },
  { id: 'json', textChunker: 'text', extensions: ['.json', '.jsonc'] },
  { id: 'yaml', textChunker: 'text', extensions: ['.yml', '.yaml'] },
  { id: 'toml', textChunker: 'text', extensions: ['.toml'] },
  { id: 'html', textChunker: 'text', extensions: ['.html', '.htm'] },
  { id: 'css', textChunker: 'text', extensions: ['.css', '.scss', '.less'] },
  { id: 'sql', textChunker: 'text', extensions: ['.sql'] },
  { id: 'vue', textChunker: 'text', extensions: ['.vue', '.svelte'] },
  { id: 'dockerfile', textChunker: 'text', extensions: ['.dockerfile'], fileNames: ['Dockerfile', 'Containerfile'] },
  { id: 'makefile', textChunker: 'text', extensions: ['.mk'], fileNames: ['Makefile', 'GNUmakefile'] },
];

const byExtension = new Map<string, LanguageInfo>();
const byFileName = new Map<string, LanguageInfo>();
const byId = new Map<string, LanguageInfo>();
for (const lang of LANGUAGES) {
  byId.set(lang.id, lang);
  for (const ext of lang.extensions) byExtension.set(ext, lang);
  for (const name of lang.fileNames ?? []) byFileName.set(name, lang);
}

/** Lower-cased extension including the dot (`.ts`), or '' when the name has none. */
export function extensionOf(fileName: string): string {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot).toLowerCase();
}

/**
 * The language of a path, or undefined when Quarry does not index it.
 * `extraExtensions` maps user-configured extensions (`.tpl`) to a language id (`text` by default).
 */
export function languageForPath(path: string, extraExtensions: Record<string, string> = {}): LanguageInfo | undefined {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const named = byFileName.get(base);
  if (named) return named;
  const ext = extensionOf(base);
  if (!ext) return undefined;
  const extra = extraExtensions[ext];
  if (extra !== undefined) return byId.get(extra) ?? byId.get('text');
  return byExtension.get(ext);
}

export function languageById(id: string): LanguageInfo | undefined {
  return byId.get(id);
}

export function knownLanguageIds(): string[] {
  return LANGUAGES.map((l) => l.id);
}

/** What people also call the languages (file extensions, common short names), for the language filters. */
const LANGUAGE_ALIASES: Readonly<Record<string, string>> = {
  ts: 'typescript', mts: 'typescript', cts: 'typescript', js: 'javascript', jsx: 'javascript', mjs: 'javascript', cjs: 'javascript', node: 'javascript',
  py: 'python', python3: 'python', golang: 'go', rs: 'rust', cs: 'csharp', 'c#': 'csharp', kt: 'kotlin', kts: 'kotlin',
  rb: 'ruby', sh: 'bash', shell: 'bash', md: 'markdown', yml: 'yaml', 'c++': 'cpp', cxx: 'cpp', cc: 'cpp', hpp: 'cpp', h: 'c',
  adoc: 'asciidoc', rst: 'restructuredtext', txt: 'text', docker: 'dockerfile', make: 'makefile',
};

/**
 * The language id a filter names (`lang:`, `--languages`, MCP's `focus_languages`, the language server's `languages`):
 * an id as listed by `knownLanguageIds` in any case, or a common alias (`ts`, `py`, `golang`, `c#`, ...); undefined
 * for a name Quarry does not know.
 */
export function languageIdFor(name: string): string | undefined {
  const n = name.trim().toLowerCase();
  if (byId.has(n)) return n;
  const alias = LANGUAGE_ALIASES[n];
  return alias && byId.has(alias) ? alias : undefined;
}
