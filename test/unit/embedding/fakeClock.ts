import type { Clock } from '../../../server/src/engine/embedding/resilience';

/** A manual clock: `sleep` advances time at once and records the delay. */
export class FakeClock implements Clock {
  t = 1_000_000;
  sleeps: number[] = [];
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.t += ms;
  }
}
