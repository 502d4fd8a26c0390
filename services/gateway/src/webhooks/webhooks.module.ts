import { Module } from '@nestjs/common';
import { ProviderWebhookController } from './provider-webhook.controller';
import { RecordProviderWebhookHandler } from './record-provider-webhook.command';
import { RecordUnrecognizedWebhookHandler } from './record-unrecognized-webhook.command';

@Module({
  controllers: [ProviderWebhookController],
  providers: [RecordProviderWebhookHandler, RecordUnrecognizedWebhookHandler],
})
export class WebhooksModule {}
