import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { ProviderWebhookEvent, RecordedEvent } from '@shop/contracts';
import type { ReadModelDatabase } from '@shop/db';
import { orderDecider } from '@shop/domain';
import { CommandExecutor } from '@shop/projections';
import { Reaction } from '@shop/reactions';
import { READ_DB } from '../infrastructure/tokens';
import { updateKindOf } from './provider-update-kind';

/**
 * Turns a recorded webhook delivery into the order's domain event. The decider keeps status
 * moving forward only, so a late or reordered delivery is recorded (on its own subject) and
 * changes nothing. An order we cannot find yet is retried with backoff and, after the last
 * attempt, reported by the runner; the delivery stays recorded either way.
 */
@Injectable()
export class ProviderWebhookReaction implements Reaction {
  readonly name = 'provider-webhooks';
  readonly aggregate = 'provider-webhook' as const;
  readonly eventTypes = ['ProviderWebhookReceived'];

  constructor(
    private readonly executor: CommandExecutor,
    @Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>,
  ) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    const event = recorded as RecordedEvent<ProviderWebhookEvent>;
    const kind = updateKindOf[event.data.eventType];
    if (!kind || !event.data.providerOrderId) return;
    const order = await this.db
      .selectFrom('orders')
      .select('order_id')
      .where('provider_order_id', '=', event.data.providerOrderId)
      .where('type', '=', 'checkout')
      .executeTakeFirst();
    if (!order) throw new Error(`no order for provider order ${event.data.providerOrderId} (yet)`);
    await this.executor.execute(
      orderDecider,
      'order',
      order.order_id,
      {
        type: 'ApplyProviderUpdate',
        kind,
        phase: event.data.phase ?? kind,
        payment: event.data.payment,
        quote: event.data.quote,
        deliveryId: event.aggregateId,
        reason: event.data.failureReason,
      },
      { actor: { kind: 'provider', id: null }, commandId: `order-update:${event.id}`, causationId: event.id },
    );
  }
}
