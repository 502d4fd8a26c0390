import { Inject, Injectable } from '@nestjs/common';
import { dataKeyIdFor, RecordedEvent, SessionEvent } from '@shop/contracts';
import { Aggregates } from '@shop/commands';
import { Reaction } from '@shop/reactions';
import { DataKeyVault } from '@shop/wallets';
import { DATA_KEYS } from '../infrastructure/tokens';

/**
 * Destroys a chat session's key whatever happened to the request around it, retried and parked
 * like any reaction (destroying is idempotent, so the request's own destroy, which only makes
 * the erasure visible sooner, and this one may both run):
 * - a deleted session, after a crash once the deletion was recorded or a destroy that failed;
 * - a session created for an account closed before it (a chat turn in flight while the account
 *   closed). Sessions created before the closure are the closure's to erase (completeErasure);
 *   for the ones after it, the owner's aggregate, read from the stream when this runs, is closed.
 * One reaction for both, so the session's events (every chat message) reach one consumer, not two.
 */
@Injectable()
export class SessionKeyErasureReaction implements Reaction {
  readonly name = 'session-key-erasure';
  readonly aggregate = 'session' as const;
  readonly eventTypes = ['SessionCreated', 'SessionDeleted'];

  constructor(
    private readonly aggregates: Aggregates,
    @Inject(DATA_KEYS) private readonly dataKeys: Pick<DataKeyVault, 'destroy'>,
  ) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    const event = recorded as RecordedEvent<SessionEvent>;
    const erased =
      event.type === 'SessionDeleted' ||
      (event.type === 'SessionCreated' && (await this.ownerClosed(event.data.userId)));
    if (erased) await this.dataKeys.destroy(dataKeyIdFor('session', event.aggregateId));
  }

  private async ownerClosed(userId: string): Promise<boolean> {
    const { state } = await this.aggregates.user.state(userId);
    return state.closed;
  }
}
