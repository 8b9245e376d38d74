/** Runs async tasks one at a time, in order (the per-folder write queue of the language server). */
export class WriteQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;

  run<T>(task: () => Promise<T>): Promise<T> {
    this.pending++;
    const p = this.tail.then(task);
    this.tail = p.then(
      () => this.pending--,
      () => this.pending--,
    );
    return p;
  }

  /** Tasks queued or running. */
  get size(): number {
    return this.pending;
  }

  /** Resolves when everything queued so far has finished. */
  async idle(): Promise<void> {
    let t;
    do {
      t = this.tail;
      await t;
    } while (t !== this.tail);
  }
}
