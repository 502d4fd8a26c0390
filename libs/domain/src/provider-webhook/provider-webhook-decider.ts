import { ProviderWebhookEvent } from '@shop/contracts';
import { Decider, unhandledCommand } from '../decider';

type Recorded = Extract<ProviderWebhookEvent, { type: 'ProviderWebhookReceived' }>['data'];
type Unrecognized = Extract<ProviderWebhookEvent, { type: 'ProviderWebhookUnrecognized' }>['data'];

export interface RecordWebhook {
  type: 'RecordWebhook';
  delivery: Recorded;
}

/** A verified delivery the parser could not read: kept raw, never refused. */
export interface RecordUnrecognizedWebhook {
  type: 'RecordUnrecognizedWebhook';
  delivery: Unrecognized;
}

/**
 * One subject per delivery id, so a delivery is recorded once forever: the provider's
 * redeliveries (same svix id) find it recorded and change nothing.
 */
export const providerWebhookDecider: Decider<
  RecordWebhook | RecordUnrecognizedWebhook,
  ProviderWebhookEvent,
  { recorded: boolean }
> = {
  initialState: () => ({ recorded: false }),
  decide(command, state) {
    if (state.recorded) return [];
    switch (command.type) {
      case 'RecordWebhook':
        return [{ type: 'ProviderWebhookReceived', data: command.delivery }];
      case 'RecordUnrecognizedWebhook':
        return [{ type: 'ProviderWebhookUnrecognized', data: command.delivery }];
      default:
        return unhandledCommand(command);
    }
  },
  evolve: () => ({ recorded: true }),
};
