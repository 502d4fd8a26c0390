/**
 * Thrown by a reaction for an event it cannot make sense of: retrying at once would fail the
 * same way, so the runner parks it straight away, visible to an operator and retried with
 * the code of the day (a parser that learnt the shape handles it then).
 */
export class UnprocessableEvent extends Error {
  override readonly name = 'UnprocessableEvent';
}
