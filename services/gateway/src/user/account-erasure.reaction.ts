import { Inject, Injectable } from '@nestjs/common';
import { RecordedEvent } from '@shop/contracts';
import type { EventStore } from '@shop/eventstore';
import { Reaction } from '@shop/reactions';
import { completeErasure, DataKeyVault } from '@shop/wallets';
import { DATA_KEYS, EVENT_STORE } from '../infrastructure/tokens';

/**
 * A closed account's keys are destroyed whatever happened to the request that closed it: the
 * closure names its sessions, so a crash after it was recorded, or a failed destroy, is finished
 * here (and retried like any reaction) even though the account's rows and cookies are gone.
 * The request's own destroy only makes the erasure visible sooner.
 */
@Injectable()
export class AccountErasureReaction implements Reaction {
  readonly name = 'account-erasure';
  readonly aggregate = 'user' as const;
  readonly eventTypes = ['AccountClosed'];

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATA_KEYS) private readonly dataKeys: DataKeyVault,
  ) {}

  async handle(event: RecordedEvent): Promise<void> {
    await completeErasure({ stream: this.store, dataKeys: this.dataKeys }, event.aggregateId);
  }
}
