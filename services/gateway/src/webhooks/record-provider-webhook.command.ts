import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { Aggregates } from '@shop/commands';
import type { ProviderWebhookEvent } from '@shop/provider';
import { currentCorrelationId } from '@shop/logging';
import { deliveryOf } from './webhook-delivery';

/** Resolves to false when the delivery had been recorded before (a redelivery). */
export class RecordProviderWebhookCommand extends Command<boolean> {
  constructor(
    readonly deliveryId: string,
    readonly event: ProviderWebhookEvent,
  ) {
    super();
  }
}

@CommandHandler(RecordProviderWebhookCommand)
export class RecordProviderWebhookHandler implements ICommandHandler<RecordProviderWebhookCommand> {
  constructor(private readonly aggregates: Aggregates) {}

  async execute({ deliveryId, event }: RecordProviderWebhookCommand): Promise<boolean> {
    const outcome = await this.aggregates.providerWebhook.execute(
      deliveryId,
      { type: 'RecordWebhook', delivery: deliveryOf(event) },
      {
        actor: { kind: 'provider', id: null },
        correlationId: currentCorrelationId(),
        commandId: `webhook:${deliveryId}`,
      },
    );
    return outcome.appended;
  }
}
