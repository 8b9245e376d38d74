/** An engine operation that cannot go on, with the cause and what to do in its message. */
export class EngineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineError';
  }
}
