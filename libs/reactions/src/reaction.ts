import { AggregateName, RecordedEvent } from '@shop/contracts';
import { LockCheck } from './lock-session';

/**
 * A process manager step: reacts to events of one aggregate type by issuing commands or
 * calling external systems. Delivery is at least once, so `handle` must be idempotent:
 * derive command ids from the event id and let deciders turn repeats into no-ops.
 */
export interface Reaction {
  readonly name: string;
  readonly aggregate: AggregateName;
  /** Event types it handles; the rest of the aggregate's events are acknowledged unseen. */
  readonly eventTypes: readonly string[];
  /**
   * `lock` is the runner's: an effect that must not run twice at once (a provider call) checks
   * it right before it starts, since the runner may have lost it mid-message.
   */
  handle(event: RecordedEvent, lock: LockCheck): Promise<void>;
}
