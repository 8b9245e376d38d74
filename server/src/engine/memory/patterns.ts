/**
 * Reasoning chunks — agent memory (seed 003 FR-4). Agents record reusable patterns (how a kind of task was solved)
 * and report when they reuse them; the patterns are searchable next to code and knowledge.
 *
 * Storage: `.quarry/memory/patterns.jsonl`, an append-only event log kept with the index but outside the rebuildable
 * parts (`lancedb/`, `lexical/`), so a full re-index, a schema change or a repaired index keeps every pattern.
 * Events:
 *   {"op":"record","id",...fields,"at"}   a new pattern, or a revision of one (same id: replaces its fields)
 *   {"op":"use","id","succeeded"?,"at"}   a reuse; usage_count + 1, and with an outcome the success score moves
 *   {"op":"forget","id","at"}             removes it
 * The indexer reads the log like a source file (language `reasoning`, chunking/patterns.ts): one chunk per pattern
 * whose success_score >= 0.5 (FR-4.1/4.4); failed attempts are kept in the log but never indexed.
 *
 * Success score after a reported reuse: a running mean that counts the recorded score as two observations,
 *   score' = score + (outcome - score) / (uses + 2), outcome 1 (succeeded) or 0 (failed), uses = usage_count after.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { appendLog, parseLog, readLog, rewriteLog, type LogRead } from './jsonLog';

/** Workspace-relative path of the pattern log (also the reasoning chunks' `path`). */
export const PATTERNS_PATH = '.quarry/memory/patterns.jsonl';
/** Language id the indexer gives the pattern log (it picks the pattern chunker). */
export const REASONING_LANGUAGE = 'reasoning';
/** FR-4.1/FR-4.4: patterns below this success score are not searchable. */
export const MIN_SEARCHABLE_SUCCESS = 0.5;

export interface PatternInput {
  /** Stable id (letters, digits, '-', '_', '.'); derived from the description when absent. */
  id?: string;
  /** What kind of reasoning it is: decomposition, verification, debugging, refactoring, ... */
  patternType: string;
  /** What the pattern is and when it applies (searchable, embedded). */
  description: string;
  /** Where it was learned and how it was applied: files, symbols, steps (searchable, embedded). */
  context?: string;
  /** How well it worked, 0..1. */
  successScore: number;
  /** Times it has been applied successfully so far (default 0). */
  usageCount?: number;
}

export interface Pattern {
  id: string;
  patternType: string;
  description: string;
  context: string;
  successScore: number;
  usageCount: number;
  /** ISO time of the first record event. */
  createdAt: string;
  /** ISO time of the last event. */
  updatedAt: string;
  /** Character range and line of the record event that holds its current fields (for chunk positions). */
  start: number;
  end: number;
  line: number;
  searchable: boolean;
}

/** A pattern as the doors show it (MCP structured content, `quarry pattern --json`): snake_case, no log positions. */
export interface PatternJson {
  id: string;
  pattern_type: string;
  description: string;
  context: string;
  success_score: number;
  usage_count: number;
  created_at: string;
  updated_at: string;
  searchable: boolean;
}

export function patternJson(p: Pattern): PatternJson {
  return {
    id: p.id, pattern_type: p.patternType, description: p.description, context: p.context, success_score: p.successScore,
    usage_count: p.usageCount, created_at: p.createdAt, updated_at: p.updatedAt, searchable: p.searchable,
  };
}

export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatternError';
  }
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const LIMITS = { patternType: 64, description: 4000, context: 16000 };

interface RecordEvent { op: 'record'; id: string; pattern_type: string; description: string; context: string; success_score: number; usage_count: number; at: string }
interface UseEvent { op: 'use'; id: string; succeeded?: boolean; at: string }
interface ForgetEvent { op: 'forget'; id: string; at: string }
type PatternEvent = RecordEvent | UseEvent | ForgetEvent;

/** `"Split the query into sub-questions"` → `split-the-query-into-sub-questions-3fa2c1`. */
export function patternIdFor(description: string, patternType: string): string {
  const words = description.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const slug = words.slice(0, 6).join('-').slice(0, 60) || patternType.toLowerCase().replace(/[^a-z0-9]+/g, '-') || 'pattern';
  const hash = createHash('sha256').update(`${patternType}\u0000${description}`).digest('hex').slice(0, 6);
  return `${slug}-${hash}`;
}

function text(name: string, value: unknown, max: number, required: boolean): string {
  if (value === undefined || value === null) {
    if (required) throw new PatternError(`record_pattern: "${name}" is required; describe the pattern in a sentence or two.`);
    return '';
  }
  if (typeof value !== 'string') throw new PatternError(`record_pattern: "${name}" must be a string (got ${typeof value}).`);
  const v = value.trim();
  if (required && !v) throw new PatternError(`record_pattern: "${name}" is empty; give it some text.`);
  if (v.length > max) throw new PatternError(`record_pattern: "${name}" is ${v.length} characters long; the limit is ${max}. Shorten it or move details to "context".`);
  return v;
}

function score(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new PatternError(`record_pattern: "${name}" must be a number from 0 to 1 (got ${JSON.stringify(value)}); 1 = it worked fully, 0 = it failed.`);
  }
  return value;
}

/** Checks an input and returns the record event it becomes. */
export function recordEvent(input: PatternInput, now = new Date()): RecordEvent {
  const patternType = text('pattern_type', input.patternType, LIMITS.patternType, true);
  const description = text('description', input.description, LIMITS.description, true);
  const context = text('context', input.context, LIMITS.context, false);
  const successScore = score('success_score', input.successScore);
  const usageCount = input.usageCount ?? 0;
  if (!Number.isInteger(usageCount) || usageCount < 0) throw new PatternError(`record_pattern: "usage_count" must be a whole number >= 0 (got ${JSON.stringify(input.usageCount)}).`);
  const id = input.id?.trim() || patternIdFor(description, patternType);
  if (!ID.test(id)) throw new PatternError(`record_pattern: id "${id}" is not valid; use 1-100 letters, digits, '.', '-' or '_', starting with a letter or digit.`);
  return { op: 'record', id, pattern_type: patternType, description, context, success_score: successScore, usage_count: usageCount, at: now.toISOString() };
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** Folds a log's events into the current patterns (in order of creation). */
export function foldPatterns(log: LogRead<PatternEvent>): Map<string, Pattern> {
  const out = new Map<string, Pattern>();
  for (const { value: e, start, end, line } of log.lines) {
    if (typeof e.id !== 'string') continue;
    if (e.op === 'record') {
      if (typeof e.description !== 'string' || typeof e.success_score !== 'number') continue;
      const prev = out.get(e.id);
      out.set(e.id, {
        id: e.id,
        patternType: String(e.pattern_type ?? ''),
        description: e.description,
        context: typeof e.context === 'string' ? e.context : '',
        successScore: Math.min(1, Math.max(0, e.success_score)),
        usageCount: Number.isInteger(e.usage_count) && e.usage_count >= 0 ? e.usage_count : prev?.usageCount ?? 0,
        createdAt: prev?.createdAt ?? String(e.at ?? ''),
        updatedAt: String(e.at ?? ''),
        start, end, line, searchable: false,
      });
    } else if (e.op === 'use') {
      const p = out.get(e.id);
      if (!p) continue;
      p.usageCount += 1;
      if (typeof e.succeeded === 'boolean') p.successScore = round(p.successScore + ((e.succeeded ? 1 : 0) - p.successScore) / (p.usageCount + 2));
      p.updatedAt = String(e.at ?? p.updatedAt);
    } else if (e.op === 'forget') {
      out.delete(e.id);
    }
  }
  for (const p of out.values()) p.searchable = p.successScore >= MIN_SEARCHABLE_SUCCESS;
  return out;
}

export function parsePatternLog(textContent: string): Map<string, Pattern> {
  return foldPatterns(parseLog<PatternEvent>(textContent));
}

/** Logs above this size with at least half of their lines superseded are compacted on the next write. */
const COMPACT_BYTES = 256 * 1024;

/** The pattern log of one workspace. */
export class PatternLog {
  readonly path: string;

  constructor(root: string) {
    this.path = join(root, PATTERNS_PATH);
  }

  list(): Pattern[] {
    return [...foldPatterns(readLog<PatternEvent>(this.path)).values()];
  }

  get(id: string): Pattern | undefined {
    return foldPatterns(readLog<PatternEvent>(this.path)).get(id);
  }

  /** Records a new pattern or revises the one with the same id. */
  record(input: PatternInput): Pattern {
    const event = recordEvent(input);
    appendLog(this.path, [event]);
    this.compactIfLarge();
    return this.get(event.id)!;
  }

  /** A reuse of a pattern; `succeeded` (when known) moves its success score. */
  reportUse(id: string, succeeded?: boolean): Pattern {
    if (!this.get(id)) throw new PatternError(`report_pattern_use: no pattern with id "${id}"; list them with \`quarry pattern list\` or record it first.`);
    const event: UseEvent = { op: 'use', id, at: new Date().toISOString() };
    if (succeeded !== undefined) event.succeeded = succeeded;
    appendLog(this.path, [event]);
    this.compactIfLarge();
    return this.get(id)!;
  }

  forget(id: string): boolean {
    if (!this.get(id)) return false;
    appendLog(this.path, [{ op: 'forget', id, at: new Date().toISOString() } satisfies ForgetEvent]);
    return true;
  }

  private compactIfLarge(): void {
    const log = readLog<PatternEvent>(this.path);
    if (log.text.length < COMPACT_BYTES || foldPatterns(log).size * 2 > log.lines.length) return;
    rewriteLog<PatternEvent>(this.path, (current) =>
      [...foldPatterns(current).values()].map(
        (p): RecordEvent => ({ op: 'record', id: p.id, pattern_type: p.patternType, description: p.description, context: p.context, success_score: p.successScore, usage_count: p.usageCount, at: p.createdAt }),
      ),
    );
  }
}
