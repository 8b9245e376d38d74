/**
 * Activation (seed 003 FR-2 stage 2, FR-6.4): chunks that are used and changed often and recently rank a little
 * higher. The engine fills each candidate's evidence (accesses, git history; memory/activation.ts computes the ACT-R
 * base level); this stage maps it onto 0..1 on a fixed scale (a candidate without evidence is 0) and multiplies the
 * score by 1 + boost × activation (ranking.activationBoost, per query form). A fixed scale rather than min-max within
 * the candidates: the one result opened yesterday among twenty never opened still stands out, and equal evidence
 * stays equal. In staged fusion the activation already took part in stage 2, so the stage only annotates.
 */
import type { Stage } from '../candidate';
import { normalizedActivation } from '../../memory/activation';

const round = (x: number) => Math.round(x * 1000) / 1000;

export const activationStage: Stage = {
  name: 'activation',
  apply(ctx, candidates) {
    const boost = ctx.stagedActivation ? 0 : ctx.ranking.activationBoost[ctx.query.form];
    for (const c of candidates) {
      if (!c.activation) continue;
      const norm = c.activation.raw === undefined ? 0 : round(normalizedActivation(c.activation.raw));
      c.activation.normalized = norm;
      if (boost > 0 && norm > 0) {
        const factor = 1 + boost * norm;
        c.score *= factor;
        c.explanation.push(`×${round(factor)} activation ${norm} (${describeActivation(c.activation)})`);
      }
    }
    return candidates;
  },
};

/** `accessed 3x, 23 commits, last used 2 days ago` (FR-6.4). */
export function describeActivation(a: { accesses: number; lastAccessMs?: number; git?: { status: string; commits: number } }, now = Date.now()): string {
  const parts = [`accessed ${a.accesses}x`];
  if (a.git?.status === 'tracked') parts.push(`${a.git.commits} commit${a.git.commits === 1 ? '' : 's'}`);
  parts.push(a.lastAccessMs ? `last used ${relativeTime(a.lastAccessMs, now)}` : 'never opened from results');
  return parts.join(', ');
}

/** "just now", "5 minutes ago", "2 days ago", "3 weeks ago", "4 months ago", "2 years ago". */
export function relativeTime(ms: number, now = Date.now()): string {
  const s = Math.max(0, (now - ms) / 1000);
  const units: Array<[number, string]> = [
    [365 * 86400, 'year'], [30 * 86400, 'month'], [7 * 86400, 'week'], [86400, 'day'], [3600, 'hour'], [60, 'minute'],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(s / size);
    if (n >= 1) return `${n} ${name}${n === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}
