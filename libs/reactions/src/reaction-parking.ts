export interface ParkedReaction {
  reaction: string;
  sequence: number;
  subject: string;
  error: string;
}

/**
 * Where a reaction puts an event it gave up on after its retries: the event stays in the
 * stream, the parked entry keeps it visible and is retried until it succeeds or an operator
 * drops it, so nothing is silently skipped while the consumer moves on.
 */
export interface ReactionParking {
  park(entry: ParkedReaction): Promise<void>;
  parked(reaction: string): Promise<ParkedReaction[]>;
  /** True while an event of `subject` is parked: its later events must wait behind it. */
  holds(reaction: string, subject: string): Promise<boolean>;
  release(reaction: string, sequence: number): Promise<void>;
}
