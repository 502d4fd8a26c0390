import { ProviderWebhookEvent } from '@shop/contracts';
import { Decider } from '../decider';

type Recorded = Extract<ProviderWebhookEvent, { type: 'ProviderWebhookReceived' }>['data'];

export interface RecordWebhook {
  type: 'RecordWebhook';
  delivery: Recorded;
}

/**
 * One subject per delivery id, so a delivery is recorded once forever: the provider's
 * redeliveries (same svix id) find it recorded and change nothing.
 */
export const providerWebhookDecider: Decider<RecordWebhook, ProviderWebhookEvent, { recorded: boolean }> = {
  initialState: { recorded: false },
  decide: (command, state) =>
    state.recorded ? [] : [{ type: 'ProviderWebhookReceived', data: command.delivery }],
  evolve: () => ({ recorded: true }),
};
