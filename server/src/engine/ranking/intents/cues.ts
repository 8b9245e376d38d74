/**
 * Shared cue scoring for both intent vocabularies: a cue is a data row (pattern, weight, label);
 * an intent's evidence is the sum of the weights of its distinct cues that match the query, and
 * confidence comes from the evidence of the best intent and its margin over the runner-up.
 */

/** One query cue: when `pattern` matches the lower-cased query, `intent` gains `weight`. */
export interface Cue {
  intent: string;
  pattern: RegExp;
  weight: number;
  /** What the cue looks for, quoted in `reasoning` and explanations (e.g. `"how does"`). */
  label: string;
}

export interface CueScore {
  intent: string;
  evidence: number;
  /** Labels of the cues that fired, in table order. */
  cues: string[];
}

export interface CueRanking {
  best: CueScore | null;
  second: CueScore | null;
  confidence: number;
  all: CueScore[];
}

/** Tuning of the confidence formula (kept as data so configuration can carry it). */
export interface ConfidenceParams {
  /** Evidence saturation rate: strength = 1 − e^(−rate·evidence). */
  rate: number;
  /** Share of confidence a tie keeps: confidence = strength · (floor + (1 − floor) · margin). */
  marginFloor: number;
}

export const DEFAULT_CONFIDENCE: ConfidenceParams = { rate: 1.2, marginFloor: 0.4 };

/**
 * confidence = strength · (floor + (1 − floor) · margin), where strength = 1 − e^(−rate·best)
 * saturates with the best intent's evidence and margin = (best − second) / best.
 * One strong cue (weight 1) alone ≈ 0.70; one weak cue (0.4) ≈ 0.38; an exact tie ≤ 0.4.
 */
export function confidenceOf(best: number, second: number, p: ConfidenceParams = DEFAULT_CONFIDENCE): number {
  if (best <= 0) return 0;
  const strength = 1 - Math.exp(-p.rate * best);
  const margin = Math.max(0, best - second) / best;
  return round3(strength * (p.marginFloor + (1 - p.marginFloor) * margin));
}

/** Scores every intent of `cues` against `query`; ties keep table order (deterministic). */
export function rankCues(query: string, cues: readonly Cue[], p: ConfidenceParams = DEFAULT_CONFIDENCE): CueRanking {
  const text = ` ${query.toLowerCase().replace(/\s+/g, ' ').trim()} `;
  const byIntent = new Map<string, CueScore>();
  for (const cue of cues) {
    cue.pattern.lastIndex = 0;
    if (!cue.pattern.test(text)) continue;
    let s = byIntent.get(cue.intent);
    if (!s) byIntent.set(cue.intent, (s = { intent: cue.intent, evidence: 0, cues: [] }));
    if (s.cues.includes(cue.label)) continue;
    s.evidence += cue.weight;
    s.cues.push(cue.label);
  }
  const all = [...byIntent.values()].sort((a, b) => b.evidence - a.evidence);
  const best = all[0] ?? null;
  const second = all[1] ?? null;
  return { best, second, all, confidence: best ? confidenceOf(best.evidence, second?.evidence ?? 0, p) : 0 };
}

export const round3 = (x: number): number => Math.round(x * 1000) / 1000;

export const quote = (labels: readonly string[]): string => labels.map((l) => `"${l}"`).join(', ');
