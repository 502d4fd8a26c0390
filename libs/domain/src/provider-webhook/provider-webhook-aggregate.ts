import { defineAggregate } from '../aggregate';
import { providerWebhookDecider } from './provider-webhook-decider';

export const providerWebhookAggregate = defineAggregate('provider-webhook', providerWebhookDecider, {
  snapshotVersion: 1,
});
