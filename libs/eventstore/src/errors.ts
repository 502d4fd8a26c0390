/** Another commit reached the subject first: reload and decide again. */
export class WrongExpectedSequenceError extends Error {
  constructor(
    readonly subject: string,
    readonly expectedSequence: number,
  ) {
    super(`subject ${subject} has moved past sequence ${expectedSequence}`);
    this.name = 'WrongExpectedSequenceError';
  }
}

/** JetStream could not be reached or did not answer in time. */
export class EventStoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`event store unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'EventStoreUnavailableError';
  }
}
