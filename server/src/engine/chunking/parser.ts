/**
 * web-tree-sitter runtime: one-time init, lazily loaded and cached grammars.
 * web-tree-sitter and tree-sitter-wasms stay external in the esbuild bundle, so both are resolved from
 * node_modules at runtime (under tsx and under the CJS bundle alike).
 */
import { Language, Parser } from 'web-tree-sitter';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';

/**
 * Compile grammars with V8's baseline wasm compiler only. With optimizing tier-up, the first use of each
 * grammar (1.5-5 MB of wasm) kept the main thread busy for 0.3-4 s (measured: indexing this repository's
 * 14-language fixture took 9 s instead of 1.8 s), while parse speed with baseline code was the same within
 * noise on a Python-only corpus (4.5 s vs 4.2 s for 192 files). Must run before the first wasm compile.
 */
setFlagsFromString('--liftoff-only');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const req: NodeRequire = typeof require === 'function' ? require : createRequire(process.cwd() + '/');

let initPromise: Promise<void> | undefined;
const languages = new Map<string, Promise<Language | null>>();
const failures = new Map<string, string>();

function wasmDir(): string {
  return path.join(path.dirname(req.resolve('tree-sitter-wasms/package.json')), 'out');
}

/**
 * web-tree-sitter's own runtime wasm (`tree-sitter.wasm`), next to its main file. The package's `exports`
 * hide `package.json`, so resolve the main entry (CJS build under require) and take its directory.
 */
function runtimeWasmPath(): string {
  return path.join(path.dirname(req.resolve('web-tree-sitter')), 'tree-sitter.wasm');
}

export function initParser(): Promise<void> {
  if (!initPromise) {
    const runtimeWasm = runtimeWasmPath();
    initPromise = Parser.init({
      locateFile: (name: string) => (name.endsWith('.wasm') ? runtimeWasm : name),
    } as unknown as Parameters<typeof Parser.init>[0]);
    initPromise.catch(() => {
      initPromise = undefined;
    });
  }
  return initPromise;
}

/** The last grammar load begun: loads run one after another. */
let loading: Promise<unknown> = Promise.resolve();

/**
 * The grammar for a tree-sitter-wasms name, or null when it cannot be loaded (logged once per grammar). Grammars
 * load one at a time: web-tree-sitter links each grammar's wasm into one shared module, and loads that overlapped
 * (files of several languages chunked concurrently, as a chunking worker thread does) failed.
 */
export function loadGrammar(grammar: string): Promise<Language | null> {
  let p = languages.get(grammar);
  if (!p) {
    p = loading.then(async () => {
      try {
        await initParser();
        return await Language.load(path.join(wasmDir(), `tree-sitter-${grammar}.wasm`));
      } catch (err) {
        failures.set(grammar, err instanceof Error ? err.message || String(err) : String(err));
        return null;
      }
    });
    loading = p;
    languages.set(grammar, p);
  }
  return p;
}

/** Why a grammar failed to load (for diagnostics), if it did. */
export function grammarFailure(grammar: string): string | undefined {
  return failures.get(grammar);
}

const parsers = new Map<string, Parser>();

/** A parser bound to the language (one per grammar, reused; parsing is synchronous so this is safe). */
export function parserFor(grammar: string, language: Language): Parser {
  let p = parsers.get(grammar);
  if (!p) {
    p = new Parser();
    p.setLanguage(language);
    parsers.set(grammar, p);
  }
  return p;
}
