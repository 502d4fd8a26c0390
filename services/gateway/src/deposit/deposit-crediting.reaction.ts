import { Injectable } from '@nestjs/common';
import { RecordedEvent } from '@shop/contracts';
import { LockCheck, Reaction } from '@shop/reactions';
import { DepositCrediting } from './deposit-crediting';

/**
 * Credits a claimed deposit: the claim is the event, the funding its reaction. A failure that
 * might have funded the wallet is thrown, so the event is redelivered and funded again under the
 * same key; the reconciler covers a claim whose deliveries ran out.
 */
@Injectable()
export class DepositCreditingReaction implements Reaction {
  readonly name = 'deposit-crediting';
  readonly aggregate = 'deposit' as const;
  readonly eventTypes = ['DepositClaimed'];

  constructor(private readonly crediting: DepositCrediting) {}

  handle(event: RecordedEvent, lock: LockCheck): Promise<void> {
    return this.crediting.settle(event.aggregateId, lock);
  }
}
