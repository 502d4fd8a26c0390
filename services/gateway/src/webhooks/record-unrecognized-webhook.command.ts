import { createHash } from 'node:crypto';
import { Command, CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { MAX_RECORDED_WEBHOOK_BODY } from '@shop/contracts';
import { Aggregates } from '@shop/commands';
import { currentCorrelationId } from '@shop/logging';

/** Resolves to false when the delivery had been recorded before (a redelivery). */
export class RecordUnrecognizedWebhookCommand extends Command<boolean> {
  constructor(
    readonly deliveryId: string,
    readonly body: Buffer,
    readonly reason: string,
  ) {
    super();
  }
}

@CommandHandler(RecordUnrecognizedWebhookCommand)
export class RecordUnrecognizedWebhookHandler implements ICommandHandler<RecordUnrecognizedWebhookCommand> {
  constructor(private readonly aggregates: Aggregates) {}

  async execute({ deliveryId, body, reason }: RecordUnrecognizedWebhookCommand): Promise<boolean> {
    const outcome = await this.aggregates.providerWebhook.execute(
      deliveryId,
      {
        type: 'RecordUnrecognizedWebhook',
        delivery: {
          body: body.toString('utf8').slice(0, MAX_RECORDED_WEBHOOK_BODY),
          bodyBytes: body.length,
          bodySha256: createHash('sha256').update(body).digest('hex'),
          reason,
        },
      },
      {
        actor: { kind: 'provider', id: null },
        correlationId: currentCorrelationId(),
        commandId: `webhook:${deliveryId}`,
      },
    );
    return outcome.appended;
  }
}
