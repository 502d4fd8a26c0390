import { Module } from '@nestjs/common';
import { ProviderWebhookController } from './provider-webhook.controller';
import { RecordProviderWebhookHandler } from './record-provider-webhook.command';

@Module({ controllers: [ProviderWebhookController], providers: [RecordProviderWebhookHandler] })
export class WebhooksModule {}
