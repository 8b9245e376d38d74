/**
 * Seed 004: information intents (RESULT, METHOD, API_USAGE, DEFINITION, COMPARISON) for document and
 * knowledge chunks. Two data tables: query cues (which words of the query select the intent) and
 * content rules (which features of a chunk earn the bonus, and how much). A rule's bonus is the sum of
 * its fired features clamped to [minBonus, maxBonus] = [+0.1, +0.3] (seed 004 §2); nothing fired → 0.
 * To add an intent, add its cue rows and one `InfoIntentRule` row; no code changes.
 */
import { type ConfidenceParams, type Cue, DEFAULT_CONFIDENCE, quote, rankCues, round3 } from './cues';

export const INFO_INTENTS = ['RESULT', 'METHOD', 'API_USAGE', 'DEFINITION', 'COMPARISON'] as const;
export type InfoIntentType = (typeof INFO_INTENTS)[number];

/** What a content rule sees of a chunk (seed 004's text + metadata.section + position). */
export interface InfoDoc {
  text: string;
  /** Section heading path, e.g. `Evaluation > Results` ('' when none). */
  section: string;
  /** 1-based first line of the chunk in its document. */
  startLine: number;
}

/** One content feature: returns the bonus it earns on `doc` (0 = did not fire). */
export interface InfoFeature {
  id: string;
  /** Human description, used in explanations (`section "Results"`). */
  label: string;
  earn(doc: InfoDoc): number;
}

export interface InfoIntentRule {
  intent: string;
  features: readonly InfoFeature[];
  /** Seed 004: bonus range +0.1 .. +0.3. */
  minBonus: number;
  maxBonus: number;
}

export interface InfoIntent {
  intent: string;
  confidence: number;
  reasoning: string;
  source: 'explicit' | 'detected';
  cues: string[];
  /** The rule applied to chunks (null only for an intent with no rule row; then no bonus). */
  rule: InfoIntentRule | null;
}

export interface InfoBonus {
  bonus: number;
  /** Ids and amounts of the features that fired, e.g. `section~Results +0.15`. */
  fired: string[];
}

const c = (intent: string, pattern: RegExp, weight: number, label: string): Cue => ({ intent, pattern, weight, label });

/**
 * Query cues per information intent. Nouns naming the information sought (results, method, usage,
 * compare, difference, versus) weigh 1.2 and outrank the generic question frame "what is" (0.8).
 */
export const INFO_CUES: readonly Cue[] = [
  // RESULT: asks for outcomes, numbers.
  c('RESULT', /\bresults?\b/, 1.2, 'results'),
  c('RESULT', /\baccura(cy|te)\b/, 0.8, 'accuracy'),
  c('RESULT', /\bhow (much|many)\b/, 0.8, 'how much'),
  c('RESULT', /\bpercent(age)?s?\b|%/, 0.9, 'percentage'),
  c('RESULT', /\b(findings?|outcomes?)\b/, 0.8, 'findings'),
  c('RESULT', /\b(metrics?|benchmarks?|measured|measurements?)\b/, 0.7, 'metrics'),
  c('RESULT', /\b(scores?|numbers|statistics|stats)\b/, 0.6, 'numbers'),
  // METHOD: asks how something is done.
  c('METHOD', /\bmethod(s|ology)?\b/, 1.2, 'method'),
  c('METHOD', /\bapproach(es)?\b/, 0.9, 'approach'),
  c('METHOD', /\balgorithms?\b/, 0.9, 'algorithm'),
  c('METHOD', /\bpipelines?\b/, 0.8, 'pipeline'),
  c('METHOD', /\bsteps?\b/, 0.7, 'step'),
  c('METHOD', /\b(procedure|process|technique)s?\b/, 0.7, 'procedure'),
  c('METHOD', /\bhow (does|do|is|are)\b.*\bwork/, 0.8, 'how ... work'),
  // API_USAGE: asks how to call something.
  c('API_USAGE', /(?<!(memory|cpu|disk|resource) )\busage\b/, 1.2, 'usage'),
  c('API_USAGE', /\bhow (do i|to|can i|should i)\b.*\b(use|call|invoke)\b/, 1.0, 'how to use'),
  c('API_USAGE', /\bapi\b/, 0.8, 'api'),
  c('API_USAGE', /\b(syntax|signature|snippet)\b/, 0.8, 'syntax'),
  c('API_USAGE', /\b(examples?)\b/, 0.7, 'example'),
  c('API_USAGE', /\b(call(ing)?|invoke|invoking)\b/, 0.7, 'call'),
  c('API_USAGE', /\b(parameters?|arguments?|params?|args)\b/, 0.7, 'parameter'),
  c('API_USAGE', /\w\(\)/, 0.8, 'call()'),
  c('API_USAGE', /\b(use|using)\b/, 0.4, 'use'),
  // DEFINITION: asks what something is.
  c('DEFINITION', /\bwhat (is|are)\b/, 0.8, 'what is'),
  c('DEFINITION', /\bdefin(e|es|ed|ition|itions)\b/, 1.0, 'define'),
  c('DEFINITION', /\b(meaning of|stands? for)\b/, 0.8, 'meaning of'),
  c('DEFINITION', /\b(overview|introduction|summary|abstract)\b/, 0.7, 'overview'),
  c('DEFINITION', /\bconcepts?\b/, 0.6, 'concept'),
  // COMPARISON: asks how things differ.
  c('COMPARISON', /\bcompar\w*/, 1.2, 'compare'),
  c('COMPARISON', /\b(differences?|differ|differs|different)\b/, 1.2, 'difference'),
  c('COMPARISON', /\b(versus|vs)\b/, 1.2, 'versus'),
  c('COMPARISON', /\b(better|worse|faster|slower) than\b|\bwhich is better\b/, 0.9, 'better than'),
  c('COMPARISON', /\b(pros and cons|trade-?offs?)\b/, 0.9, 'trade-offs'),
];

const fixed = (id: string, label: string, bonus: number, test: (d: InfoDoc) => boolean): InfoFeature => ({
  id,
  label,
  earn: (d) => (test(d) ? bonus : 0),
});
/** Counts how many of `patterns` occur and maps the count through `perCount` (index = count). */
const counted = (id: string, label: string, patterns: readonly RegExp[], field: (d: InfoDoc) => string, perCount: readonly number[]): InfoFeature => ({
  id,
  label,
  earn: (d) => {
    const s = field(d);
    let n = 0;
    for (const p of patterns) if (p.test(s)) n++;
    return perCount[Math.min(n, perCount.length - 1)];
  },
});

const sectionHas = (re: RegExp) => (d: InfoDoc) => re.test(d.section);
/** Heading titles of the section path, without numbering (`2.1 Introduction` → `introduction`). */
const titles = (d: InfoDoc) => d.section.split('>').map((t) => t.trim().replace(/^[\d.\s)]+/, '').toLowerCase());

/** Lines of a document that count as "early" for DEFINITION (seed 004 §2.4). */
export const EARLY_SECTION_LINES = 40;

/** Seed 004 §2: one row per intent. */
export const INFO_RULES: readonly InfoIntentRule[] = [
  {
    // §2.1: section "Results", digits, "%".
    intent: 'RESULT',
    minBonus: 0.1,
    maxBonus: 0.3,
    features: [
      fixed('section~Results', 'section "Results"', 0.15, sectionHas(/results?/i)),
      fixed('digits', 'digits', 0.05, (d) => /\d/.test(d.text)),
      fixed('percent', '"%"', 0.1, (d) => d.text.includes('%')),
    ],
  },
  {
    // §2.2: section "Method", keywords algorithm / pipeline / step.
    intent: 'METHOD',
    minBonus: 0.1,
    maxBonus: 0.3,
    features: [
      fixed('section~Method', 'section "Method"', 0.15, sectionHas(/method/i)),
      counted('keywords', 'algorithm/pipeline/step', [/\balgorithm/i, /\bpipeline/i, /\bstep/i], (d) => d.text, [0, 0.05, 0.1, 0.15]),
    ],
  },
  {
    // §2.3: code-like symbols ( ) = : — more distinct symbols, higher bonus (1 → 0.1 … 4 → 0.3).
    intent: 'API_USAGE',
    minBonus: 0.1,
    maxBonus: 0.3,
    features: [counted('code-symbols', 'code symbols ( ) = :', [/\(/, /\)/, /=/, /:/], (d) => d.text, [0, 0.1, 0.167, 0.233, 0.3])],
  },
  {
    // §2.4: section "Abstract" or "Introduction"; early section of the document.
    intent: 'DEFINITION',
    minBonus: 0.1,
    maxBonus: 0.3,
    features: [
      fixed('section=Abstract|Introduction', 'section "Abstract"/"Introduction"', 0.2, (d) => titles(d).some((t) => t === 'abstract' || t === 'introduction')),
      fixed('early-section', `early section (line ≤ ${EARLY_SECTION_LINES})`, 0.1, (d) => d.startLine <= EARLY_SECTION_LINES),
    ],
  },
  {
    // §2.5: comparison keywords, case-insensitive; 1 → 0.1, 2 → 0.2, 3+ → 0.3.
    intent: 'COMPARISON',
    minBonus: 0.1,
    maxBonus: 0.3,
    features: [
      counted(
        'comparison-keywords',
        'compare/difference/versus/vs',
        [/\bcompar(e|es|ed|ing|ison|isons)\b/i, /\bdifferences?\b/i, /\bversus\b/i, /\bvs\b/i],
        (d) => d.text,
        [0, 0.1, 0.2, 0.3],
      ),
    ],
  },
];

export interface InfoConfig {
  cues: readonly Cue[];
  rules: readonly InfoIntentRule[];
  minConfidence: number;
  confidence: ConfidenceParams;
}

export const DEFAULT_INFO_CONFIG: InfoConfig = { cues: INFO_CUES, rules: INFO_RULES, minConfidence: 0.4, confidence: DEFAULT_CONFIDENCE };

/** Bonus of `rule` on `doc`: fired features summed, clamped to [minBonus, maxBonus]; 0 when none fired. */
export function infoBonus(rule: InfoIntentRule, doc: InfoDoc): InfoBonus {
  let sum = 0;
  const fired: string[] = [];
  for (const f of rule.features) {
    const b = f.earn(doc);
    if (b > 0) {
      sum += b;
      fired.push(`${f.label} +${round3(b)}`);
    }
  }
  if (!fired.length) return { bonus: 0, fired };
  return { bonus: round3(Math.min(rule.maxBonus, Math.max(rule.minBonus, sum))), fired };
}

/**
 * Detects the information intent of `query`. An explicit intent that names a rule's intent
 * (case-insensitive) wins with confidence 1; anything else explicit is ignored. Null below `minConfidence`.
 */
export function detectInformationIntent(query: string, explicit?: string | null, config: Partial<InfoConfig> = {}): InfoIntent | null {
  const cfg = { ...DEFAULT_INFO_CONFIG, ...config };
  const ruleFor = (intent: string) => cfg.rules.find((r) => r.intent === intent) ?? null;
  const up = typeof explicit === 'string' ? explicit.trim().toUpperCase() : '';
  const named = up ? ruleFor(up) : null;
  if (named) return { intent: named.intent, confidence: 1, reasoning: `explicit intent "${explicit}"`, source: 'explicit', cues: [], rule: named };
  const ranking = rankCues(query, cfg.cues, cfg.confidence);
  const best = ranking.best;
  if (!best || ranking.confidence < cfg.minConfidence) return null;
  const runnerUp = ranking.second ? `; runner-up ${ranking.second.intent} (${quote(ranking.second.cues)})` : '';
  return {
    intent: best.intent,
    confidence: ranking.confidence,
    reasoning: `cues ${quote(best.cues)} → ${best.intent}${runnerUp}`,
    source: 'detected',
    cues: best.cues,
    rule: ruleFor(best.intent),
  };
}
