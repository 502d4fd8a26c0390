import { Inject, Injectable } from '@nestjs/common';
import { dataKeyIdFor, RecordedEvent } from '@shop/contracts';
import { Reaction } from '@shop/reactions';
import { DataKeyVault } from '@shop/wallets';
import { DATA_KEYS } from '../infrastructure/tokens';

/**
 * A deleted chat session's key is destroyed whatever happened to the request that deleted it:
 * a crash after the deletion was recorded, or a destroy that failed, is finished here (retried
 * and parked like any reaction). Destroying is idempotent, so the request's own destroy, which
 * only makes the erasure visible sooner, and this one may both run.
 */
@Injectable()
export class DeletedSessionKeyReaction implements Reaction {
  readonly name = 'deleted-session-key';
  readonly aggregate = 'session' as const;
  readonly eventTypes = ['SessionDeleted'];

  constructor(@Inject(DATA_KEYS) private readonly dataKeys: Pick<DataKeyVault, 'destroy'>) {}

  async handle(event: RecordedEvent): Promise<void> {
    await this.dataKeys.destroy(dataKeyIdFor('session', event.aggregateId));
  }
}
