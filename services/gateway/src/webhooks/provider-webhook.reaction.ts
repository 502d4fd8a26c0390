import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { ProviderWebhookEvent, RecordedEvent } from '@shop/contracts';
import { Aggregates } from '@shop/commands';
import { providerWebhookEventSchema } from '@shop/provider';
import { Reaction, UnprocessableEvent } from '@shop/reactions';
import type { ReadModelDatabase } from '@shop/read-models';
import { READ_DB } from '../infrastructure/tokens';
import { updateKindOf } from './provider-update-kind';
import { deliveryOf, WebhookDelivery } from './webhook-delivery';

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
  readonly eventTypes = ['ProviderWebhookReceived', 'ProviderWebhookUnrecognized'];

  constructor(
    private readonly aggregates: Aggregates,
    @Inject(READ_DB) private readonly db: Kysely<ReadModelDatabase>,
  ) {}

  async handle(recorded: RecordedEvent): Promise<void> {
    const event = recorded as RecordedEvent<ProviderWebhookEvent>;
    const delivery = event.type === 'ProviderWebhookReceived' ? event.data : interpret(event);
    const kind = updateKindOf[delivery.eventType];
    if (!kind || !delivery.providerOrderId) return;
    const order = await this.db
      .selectFrom('orders')
      .select('order_id')
      .where('provider_order_id', '=', delivery.providerOrderId)
      .where('type', '=', 'checkout')
      .executeTakeFirst();
    if (!order) throw new Error(`no order for provider order ${delivery.providerOrderId} (yet)`);
    await this.aggregates.order.execute(
      order.order_id,
      {
        type: 'ApplyProviderUpdate',
        kind,
        phase: delivery.phase ?? kind,
        payment: delivery.payment,
        quote: delivery.quote,
        deliveryId: event.aggregateId,
        reason: delivery.failureReason,
      },
      {
        actor: { kind: 'provider', id: null },
        commandId: `order-update:${event.id}`,
        causationId: event.id,
        correlationId: event.correlationId,
      },
    );
  }
}

/**
 * A delivery recorded raw is read with today's parser: one it still cannot read is parked for
 * an operator (and retried with the parser of a later release).
 */
function interpret(event: RecordedEvent<ProviderWebhookEvent>): WebhookDelivery {
  const { body, reason } = event.data as { body: string; reason: string };
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    throw new UnprocessableEvent(`cannot interpret provider webhook ${event.aggregateId}: ${reason}`);
  }
  const parsed = providerWebhookEventSchema.safeParse(payload);
  if (!parsed.success) {
    throw new UnprocessableEvent(
      `cannot interpret provider webhook ${event.aggregateId}: ${reason} (${parsed.error.issues
        .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
        .join('; ')
        .slice(0, 500)})`,
    );
  }
  return deliveryOf(parsed.data);
}
