/** A command kept losing the race after every allowed retry. */
export class ConcurrencyExhaustedError extends Error {
  constructor(
    readonly subject: string,
    readonly attempts: number,
  ) {
    super(`gave up on ${subject} after ${attempts} concurrent-write conflicts`);
    this.name = 'ConcurrencyExhaustedError';
  }
}
