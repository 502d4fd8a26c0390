import { Inject, Injectable } from '@nestjs/common';
import { dataKeyIdFor, RecordedEvent, SessionEvent } from '@shop/contracts';
import { Aggregates } from '@shop/commands';
import { Reaction } from '@shop/reactions';
import { DataKeyVault } from '@shop/wallets';
import { DATA_KEYS } from '../infrastructure/tokens';

/**
 * A chat session created for an account that was closed before it (a chat turn in flight while
 * the account closed) has its key destroyed too. Sessions created before the closure are the
 * closure's to erase (completeErasure); this covers the ones after it, which the owner's
 * aggregate, read from the stream when this runs, already shows closed.
 */
@Injectable()
export class ClosedOwnerSessionReaction implements Reaction {
  readonly name = 'closed-owner-session';
  readonly aggregate = 'session' as const;
  readonly eventTypes = ['SessionCreated'];

  constructor(
    private readonly aggregates: Aggregates,
    @Inject(DATA_KEYS) private readonly dataKeys: DataKeyVault,
  ) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    const event = recorded as RecordedEvent<SessionEvent>;
    if (event.type !== 'SessionCreated') return;
    const { state: owner } = await this.aggregates.user.state(event.data.userId);
    if (owner.closed) await this.dataKeys.destroy(dataKeyIdFor('session', event.aggregateId));
  }
}
