/**
 * Loads `.quarry/config.yml` (when present) over the defaults and validates it against the schema.
 * Every invalid key is reported with its rule and the value seen.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

export function loadConfig(root: string, explicitFile?: string): { config: QuarryConfig; source: string | undefined } {
  const file = explicitFile ?? configPath(root);
  if (explicitFile && !existsSync(explicitFile)) {
    throw new ConfigError(explicitFile, ['file not found; pass an existing YAML file with --config, or leave --config out to use .quarry/config.yml']);
  }
  if (!existsSync(file)) return { config: validateConfig({}, 'defaults'), source: undefined };
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(file, [`YAML syntax error: ${(e as Error).message}`]);
  }
  return { config: validateConfig(raw, file), source: file };
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
