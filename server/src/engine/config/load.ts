/**
 * Loads the configuration: defaults, then the user-level file, then the workspace's `.quarry/config.yml` (or the
 * file given with `--config`), each layer deep-merged over the one below (key by key; arrays and scalars are
 * replaced). Every file is validated on its own against the schema, so an error names the file it comes from;
 * every invalid key is reported with its rule and the value seen.
 *
 * The user-level file is `$QUARRY_CONFIG_HOME/config.yml` when that variable is set, else
 * `$XDG_CONFIG_HOME/quarry/config.yml` (an absolute XDG_CONFIG_HOME), else `~/.config/quarry/config.yml`
 * (`%APPDATA%\quarry\config.yml` on Windows). `--config FILE` replaces only the workspace file: the user file
 * still applies beneath it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve, win32 } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { QuarryConfig, QuarryConfigSchema } from './schema';

export class ConfigError extends Error {
  constructor(readonly file: string, readonly problems: string[]) {
    super(`Invalid configuration in ${file}:\n${problems.map((p) => `  - ${p}`).join('\n')}\nFix or remove these keys (run \`quarry config --show\` to see the effective configuration).`);
    this.name = 'ConfigError';
  }
}

export function configPath(root: string): string {
  return join(root, '.quarry', 'config.yml');
}

function valueAt(obj: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (cur == null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/** Validates a raw object (from YAML or editor settings) into a full config. */
export function validateConfig(raw: unknown, source: string): QuarryConfig {
  const result = QuarryConfigSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue: z.core.$ZodIssue) => {
    const key = issue.path.map(String).join('.') || '(root)';
    if (issue.code === 'unrecognized_keys') {
      return `${key === '(root)' ? '' : key + ': '}unknown key(s) ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
    }
    const seen = valueAt(raw, issue.path);
    return `${key}: ${issue.message} (got ${JSON.stringify(seen)})`;
  });
  throw new ConfigError(source, problems);
}

/** Which environment setting chose the user-level file's location. */
export type UserConfigOrigin = 'QUARRY_CONFIG_HOME' | 'XDG_CONFIG_HOME' | 'APPDATA' | 'home';

/**
 * Where the user-level configuration file lives (it need not exist): `$QUARRY_CONFIG_HOME/config.yml`, else
 * `$XDG_CONFIG_HOME/quarry/config.yml` (only an absolute path counts, as the XDG spec says), else
 * `~/.config/quarry/config.yml`, on Windows `%APPDATA%\quarry\config.yml`.
 */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): { file: string; origin: UserConfigOrigin } {
  const own = env.QUARRY_CONFIG_HOME?.trim();
  if (own) return { file: join(resolve(own), 'config.yml'), origin: 'QUARRY_CONFIG_HOME' };
  const xdg = env.XDG_CONFIG_HOME?.trim();
  if (xdg && isAbsolute(xdg)) return { file: join(xdg, 'quarry', 'config.yml'), origin: 'XDG_CONFIG_HOME' };
  if (platform === 'win32') {
    const appData = env.APPDATA?.trim();
    return { file: win32.join(appData || win32.join(homedir(), 'AppData', 'Roaming'), 'quarry', 'config.yml'), origin: 'APPDATA' };
  }
  return { file: join(homedir(), '.config', 'quarry', 'config.yml'), origin: 'home' };
}

/** One configuration file that was looked for, in the order applied (lowest first). */
export interface ConfigLayer {
  /** `user`: the user-level file; `workspace`: `<project>/.quarry/config.yml`; `explicit`: `--config FILE`. */
  kind: 'user' | 'workspace' | 'explicit';
  file: string;
  /** Whether the file existed and was read (a missing user or workspace file is simply skipped). */
  read: boolean;
  /** For the user file: the environment setting that chose its location. */
  origin?: UserConfigOrigin;
}

export interface LoadedConfig {
  config: QuarryConfig;
  /** The highest-priority file read (workspace or `--config`, else the user file); undefined: defaults only. */
  source: string | undefined;
  /** Every file looked for, lowest first; later layers win key by key. */
  layers: ConfigLayer[];
}

/** Reads and validates one YAML layer; the raw object (for merging) or a ConfigError naming the file. */
function readLayer(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(file, [`cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`]);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new ConfigError(file, [`YAML syntax error: ${(e as Error).message}`]);
  }
  validateConfig(raw, file);
  return (raw ?? {}) as Record<string, unknown>;
}

/**
 * The effective configuration for a workspace: defaults < user-level file < `<root>/.quarry/config.yml`, or
 * `explicitFile` (`--config`) in place of the workspace file. Throws ConfigError naming the offending file.
 */
export function loadConfig(root: string, explicitFile?: string): LoadedConfig {
  if (explicitFile && !existsSync(explicitFile)) {
    throw new ConfigError(explicitFile, ['file not found; pass an existing YAML file with --config, or leave --config out to use .quarry/config.yml']);
  }
  const user = userConfigPath();
  const top: ConfigLayer = explicitFile
    ? { kind: 'explicit', file: resolve(explicitFile), read: true }
    : { kind: 'workspace', file: resolve(configPath(root)), read: existsSync(configPath(root)) };
  const layers: ConfigLayer[] = [];
  // The same file in both roles (QUARRY_CONFIG_HOME pointing at a project's .quarry) is read once, as the top layer.
  if (resolve(user.file) !== top.file) layers.push({ kind: 'user', file: user.file, read: existsSync(user.file), origin: user.origin });
  layers.push(top);

  const read = layers.filter((l) => l.read);
  const raws = read.map((l) => readLayer(l.file));
  const merged = raws.reduce<unknown>((acc, raw) => deepMerge(acc, raw), {});
  const label = read.length ? read.map((l) => l.file).join(' + ') : 'defaults';
  return { config: validateConfig(merged, label), source: read.at(-1)?.file, layers };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepMerge(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(base[k], v);
  return out;
}

/**
 * Layers settings from another source (VS Code's `quarry.*`, passed by the language client) over a loaded
 * configuration, in the same schema, and validates the result (ConfigError names every invalid key).
 */
export function mergeConfig(base: QuarryConfig, override: unknown, source: string): QuarryConfig {
  if (override === undefined || override === null) return base;
  if (!isPlainObject(override)) throw new ConfigError(source, [`expected an object of settings (got ${JSON.stringify(override)})`]);
  return validateConfig(deepMerge(base, override), source);
}
