/** Small in-process metrics: a rolling window of latencies and percentiles (seed 002 FR-041). */
export class RollingLatency {
  private readonly samples: number[] = [];
  total = 0;

  constructor(private readonly size = 100) {}

  add(ms: number): void {
    this.total++;
    this.samples.push(ms);
    if (this.samples.length > this.size) this.samples.shift();
  }

  summary(): { p50: number; p95: number; p99: number; mean: number } {
    return latency(this.samples);
  }
}

export function latency(samples: readonly number[]): { p50: number; p95: number; p99: number; mean: number } {
  if (!samples.length) return { p50: 0, p95: 0, p99: 0, mean: 0 };
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  const round = (x: number) => Math.round(x * 100) / 100;
  return { p50: round(at(50)), p95: round(at(95)), p99: round(at(99)), mean: round(s.reduce((a, b) => a + b, 0) / s.length) };
}
