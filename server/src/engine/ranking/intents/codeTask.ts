/**
 * Seed 002 FR-022: heuristic detection of the code-task IntentType (UNDERSTAND, IMPLEMENT, DEBUG,
 * OPTIMIZE, TEST, CONFIGURE, DOCUMENT) from the query text. The cues are a data table: to teach
 * detection a new phrase or a new intent, add a row (and, for a new intent, list it in `intents`).
 */
import { INTENT_TYPES } from '../../api/intentTypes';
import { type ConfidenceParams, type Cue, DEFAULT_CONFIDENCE, quote, rankCues } from './cues';

export type QueryComplexity = 'SIMPLE' | 'MODERATE' | 'COMPLEX';

/** Seed 002 QueryIntent. `intentType` is a string so that future intents need no type change (FR-028). */
export interface QueryIntent {
  intentType: string;
  confidence: number;
  reasoning: string;
  focusAreas: string[];
  complexity: QueryComplexity;
  /** `explicit` when the caller named the intent (confidence 1), `detected` when the cues chose it. */
  source: 'explicit' | 'detected';
  /** Labels of the cues that fired (empty for an explicit intent). */
  cues: string[];
}

const c = (intent: string, pattern: RegExp, weight: number, label: string): Cue => ({ intent, pattern, weight, label });

/** Cue table (seed 002 IntentType). Weights: 1.0 strong, ~0.7 medium, ≤ 0.5 weak/ambiguous. */
export const CODE_TASK_CUES: readonly Cue[] = [
  // UNDERSTAND
  c('UNDERSTAND', /\bhow (does|is|are|do the)\b/, 1.0, 'how does'),
  c('UNDERSTAND', /\bexplain\w*/, 1.0, 'explain'),
  c('UNDERSTAND', /\bwhat (is|are|does|do)\b/, 0.8, 'what is'),
  c('UNDERSTAND', /\bunderstand\w*/, 1.0, 'understand'),
  c('UNDERSTAND', /\bwhere (is|are|does|do)\b/, 0.7, 'where is'),
  c('UNDERSTAND', /\bwhat happens\b/, 0.8, 'what happens'),
  c('UNDERSTAND', /\b(overview|walk ?through)\b/, 0.8, 'overview'),
  c('UNDERSTAND', /\b(purpose|responsib\w+|meaning) of\b/, 0.8, 'purpose of'),
  c('UNDERSTAND', /\b(who|what) calls\b|\bcallers? of\b/, 0.8, 'who calls'),
  c('UNDERSTAND', /\bworks?\b/, 0.3, 'work'),
  // IMPLEMENT
  c('IMPLEMENT', /\bimplement\w*/, 1.0, 'implement'),
  c('IMPLEMENT', /\badd(ing|s)?\b/, 0.6, 'add'),
  c('IMPLEMENT', /\bcreat(e|es|ing)\b/, 0.8, 'create'),
  c('IMPLEMENT', /\bbuild(ing|s)?\b/, 0.6, 'build'),
  c('IMPLEMENT', /\bexamples? of\b/, 0.8, 'example of'),
  c('IMPLEMENT', /\bhow (do i|to|can i|should i|would i)\b/, 0.5, 'how to'),
  c('IMPLEMENT', /\bsupport (for|multiple)\b/, 0.6, 'support for'),
  c('IMPLEMENT', /\bintegrat\w*/, 0.6, 'integrate'),
  c('IMPLEMENT', /\b(extend|generate|write)\b/, 0.5, 'write'),
  c('IMPLEMENT', /\bnew\b/, 0.3, 'new'),
  // DEBUG
  c('DEBUG', /\b(bug|bugs|buggy)\b/, 1.0, 'bug'),
  c('DEBUG', /\berrors?\b/, 0.9, 'error'),
  c('DEBUG', /\bexceptions?\b/, 0.9, 'exception'),
  c('DEBUG', /\bfail(s|ed|ing|ure|ures)?\b/, 1.0, 'fails'),
  c('DEBUG', /\bcrash\w*/, 1.0, 'crash'),
  c('DEBUG', /\bwhy\b[^?]*(\bnot\b|n't\b|\bnever\b)/, 1.2, 'why does ... not'),
  c('DEBUG', /\bwhy\b/, 0.4, 'why'),
  c('DEBUG', /\bdebug\w*/, 1.0, 'debug'),
  c('DEBUG', /\bfix(es|ed|ing)?\b/, 0.8, 'fix'),
  c('DEBUG', /\b(broken|breaks)\b/, 0.8, 'broken'),
  c('DEBUG', /\b(stack ?trace|traceback|panic(s|ked)?|segfault)\b/, 1.0, 'stack trace'),
  c('DEBUG', /\b(not work\w*|doesn't work|does not work|won't work|stopped working)\b/, 1.0, 'not working'),
  c('DEBUG', /\b(undefined is not|cannot read propert\w*|null pointer|nullpointer\w*|nil pointer)\b/, 1.0, 'runtime error'),
  c('DEBUG', /\b(throws?|thrown|raises?)\b/, 0.6, 'throws'),
  c('DEBUG', /\b(wrong|unexpected\w*|incorrect\w*)\b/, 0.7, 'wrong'),
  c('DEBUG', /\b(leak\w*|deadlock\w*|race condition|hangs?|hanging|freez\w*)\b/, 1.0, 'leak/hang'),
  c('DEBUG', /\b(issue|problem)s?\b/, 0.5, 'issue'),
  // OPTIMIZE
  c('OPTIMIZE', /\bslow\w*/, 1.0, 'slow'),
  c('OPTIMIZE', /\bperforman(ce|t)\b/, 1.0, 'performance'),
  c('OPTIMIZE', /\boptimi[sz]\w*/, 1.0, 'optimize'),
  c('OPTIMIZE', /\bmemory\b/, 0.7, 'memory'),
  c('OPTIMIZE', /\b(faster|quicker|speed ?up|speed)\b/, 0.9, 'faster'),
  c('OPTIMIZE', /\b(latency|throughput)\b/, 0.9, 'latency'),
  c('OPTIMIZE', /\bbottlenecks?\b/, 1.0, 'bottleneck'),
  c('OPTIMIZE', /\befficien\w*/, 0.9, 'efficient'),
  c('OPTIMIZE', /\b(profiling|profiler|benchmark\w*|hot path|allocations?)\b/, 0.7, 'profiling'),
  c('OPTIMIZE', /\b(expensive|cpu usage|n\+1)\b/, 0.6, 'expensive'),
  // TEST
  c('TEST', /\b(tests?|testing|tested)\b/, 1.0, 'test'),
  // "how is X tested", "where are the tests for X": tests are what the sentence is about (outweighs "how is", "where are")
  c('TEST', /\b(is|are|was|were|being|gets?|got)\b[^.?!]*\btested\b/, 1.0, 'is tested'),
  c('TEST', /\b(tests?|test cases?|test suites?|specs?) (for|of|that|which|covering|cover|checking|exercising|exercise|verifying)\b/, 0.8, 'tests for'),
  c('TEST', /\bspecs?\b/, 0.8, 'spec'),
  c('TEST', /\bmock\w*/, 0.4, 'mock'),
  c('TEST', /\bstub\w*/, 0.4, 'stub'),
  c('TEST', /\bfixtures?\b/, 1.0, 'fixture'),
  c('TEST', /\bassert\w*/, 1.0, 'assert'),
  c('TEST', /\b(coverage|jest|mocha|pytest|vitest|junit)\b/, 0.8, 'test framework'),
  // CONFIGURE
  c('CONFIGURE', /\bconfig\w*/, 1.0, 'config'),
  c('CONFIGURE', /\bsettings?\b/, 1.0, 'settings'),
  c('CONFIGURE', /\b(environment variables?|env vars?|env variables?|\.env)\b/, 1.0, 'environment variable'),
  c('CONFIGURE', /\boptions?\b/, 0.7, 'option'),
  c('CONFIGURE', /\bflags?\b/, 0.7, 'flag'),
  c('CONFIGURE', /\b(enabl\w*|disabl\w*|turn (on|off)|toggle)\b/, 0.6, 'enable'),
  c('CONFIGURE', /\b(yaml|toml|ini file|dotenv)\b/, 0.5, 'config file'),
  c('CONFIGURE', /\b(set up|setup)\b/, 0.5, 'set up'),
  c('CONFIGURE', /\bdefault (value|port|timeout|path)s?\b/, 0.6, 'default value'),
  // DOCUMENT
  c('DOCUMENT', /\bdocument(s|ed|ing|ation)?\b/, 1.0, 'document'),
  c('DOCUMENT', /\bdocs?\b/, 1.0, 'docs'),
  c('DOCUMENT', /\breadme\b/, 1.0, 'readme'),
  c('DOCUMENT', /\b(docstrings?|jsdoc|javadoc|tsdoc)\b/, 1.0, 'docstring'),
  c('DOCUMENT', /\bcomments?\b/, 0.6, 'comment'),
  c('DOCUMENT', /\b(changelog|guide|tutorial|api reference)\b/, 0.8, 'guide'),
];

export interface CodeTaskConfig {
  /** Intents accepted as an explicit `--intent` (case-insensitive). Add a value here to accept a new one (FR-028). */
  intents: readonly string[];
  cues: readonly Cue[];
  /** Below this confidence detection returns null (no intent, no boost). */
  minConfidence: number;
  confidence: ConfidenceParams;
}

export const DEFAULT_CODE_TASK_CONFIG: CodeTaskConfig = {
  intents: INTENT_TYPES,
  cues: CODE_TASK_CUES,
  minConfidence: 0.4,
  confidence: DEFAULT_CONFIDENCE,
};

/** Words that carry no subject matter (focus areas are what is left). */
const STOPWORDS = new Set(
  ('a an the of to in on at for from by with without into onto and or but not no is are was were be been being do does did ' +
    'done doing have has had i me my we our you your it its this that these those there here what which who whom whose where when ' +
    'why how can could should would will shall may might must get gets got make makes made use used using there their them they ' +
    'all any some each every than then so if else about as up down out over under again via vs versus please just also only ' +
    'code function functions method methods class classes file files find show me where whats')
    .split(/\s+/),
);

/** Words of cues (first words of the labels) are not focus areas either: "how does X work" focuses on X. */
const CUE_WORDS = new Set(
  'explain explains understand implement implementation add adding new create build example examples bug bugs error errors exception exceptions fails fail failing failure crash crashes debug debugging fix fixing broken slow slower performance optimize optimise optimization faster memory test tests testing spec specs mock mocks mocking fixture fixtures assert assertion config configure configuration settings setting option options flag flags document documentation docs doc readme docstring docstrings work works working write'
    .split(' '),
);

/** Content words of the query (identifiers kept as written), deduplicated, in order. */
export function focusAreasOf(query: string): string[] {
  const out: string[] = [];
  for (const m of query.matchAll(/[A-Za-z_$][\w$]*(?:[.:#][A-Za-z_$][\w$]*)*/g)) {
    const w = m[0];
    const lw = w.toLowerCase();
    if (lw.length < 2 || STOPWORDS.has(lw) || CUE_WORDS.has(lw)) continue;
    if (!out.includes(w)) out.push(w);
  }
  return out;
}

/** SIMPLE: ≤ 3 content words, one clause; COMPLEX: ≥ 8 content words or ≥ 3 clauses; else MODERATE. */
export function complexityOf(query: string, focusAreas: readonly string[] = focusAreasOf(query)): QueryComplexity {
  const joins = query.toLowerCase().match(/\b(and|or|but|then|when|while|because|after|before|unless|if)\b|[,;]/g)?.length ?? 0;
  const clauses = 1 + joins;
  if (focusAreas.length >= 8 || clauses >= 3) return 'COMPLEX';
  if (focusAreas.length <= 3 && clauses === 1) return 'SIMPLE';
  return 'MODERATE';
}

/** The known intent named by `explicit` (upper-cased), or null when absent or unknown (FR-028: ignored). */
export function normalizeCodeTaskIntent(explicit: string | null | undefined, intents: readonly string[] = DEFAULT_CODE_TASK_CONFIG.intents): string | null {
  if (typeof explicit !== 'string') return null;
  const up = explicit.trim().toUpperCase();
  return up && intents.includes(up) ? up : null;
}

/**
 * Detects the code-task intent of `query`. A known `explicit` intent wins with confidence 1; an unknown
 * explicit string is accepted and ignored (seed 002 FR-028), as if none was given. Returns null when no
 * intent reaches `minConfidence`.
 */
export function detectCodeTaskIntent(query: string, explicit?: string | null, config: Partial<CodeTaskConfig> = {}): QueryIntent | null {
  const cfg = { ...DEFAULT_CODE_TASK_CONFIG, ...config };
  const focusAreas = focusAreasOf(query);
  const complexity = complexityOf(query, focusAreas);
  const named = normalizeCodeTaskIntent(explicit, cfg.intents);
  if (named) {
    return { intentType: named, confidence: 1, reasoning: `explicit intent "${explicit}"`, focusAreas, complexity, source: 'explicit', cues: [] };
  }
  const ranking = rankCues(query, cfg.cues, cfg.confidence);
  const best = ranking.best;
  if (!best || ranking.confidence < cfg.minConfidence) return null;
  const runnerUp = ranking.second ? `; runner-up ${ranking.second.intent} (${quote(ranking.second.cues)})` : '';
  const ignored = typeof explicit === 'string' && explicit.trim() ? `; unknown explicit intent "${explicit}" ignored` : '';
  return {
    intentType: best.intent,
    confidence: ranking.confidence,
    reasoning: `cues ${quote(best.cues)} → ${best.intent}${runnerUp}${ignored}`,
    focusAreas,
    complexity,
    source: 'detected',
    cues: best.cues,
  };
}
