import { EventOf } from './event-definition';
import { EventCatalogue } from './event-catalogue';
import { agentClientEvents, agentGrantEvents } from './events/agent-events';
import { cartEvents } from './events/cart-events';
import { chainEvents } from './events/chain-events';
import { depositEvents } from './events/deposit-events';
import { memoryEvents } from './events/memory-events';
import { orderEvents } from './events/order-events';
import { paymentEvents } from './events/payment-events';
import { providerWebhookEvents } from './events/provider-webhook-events';
import { sessionEvents } from './events/session-events';
import { userEvents } from './events/user-events';

/** Every event this shop stores, by aggregate: the one EventCatalogue the stores read and write with. */
const allEvents = [
  ...userEvents,
  ...cartEvents,
  ...sessionEvents,
  ...orderEvents,
  ...depositEvents,
  ...paymentEvents,
  ...providerWebhookEvents,
  ...chainEvents,
  ...memoryEvents,
  ...agentClientEvents,
  ...agentGrantEvents,
] as const;

export const eventCatalogue = new EventCatalogue(allEvents, []);

export type UserEvent = EventOf<(typeof userEvents)[number]>;
export type CartEvent = EventOf<(typeof cartEvents)[number]>;
export type SessionEvent = EventOf<(typeof sessionEvents)[number]>;
export type OrderEvent = EventOf<(typeof orderEvents)[number]>;
export type ProviderWebhookEvent = EventOf<(typeof providerWebhookEvents)[number]>;
export type ChainEvent = EventOf<(typeof chainEvents)[number]>;
export type DepositEvent = EventOf<(typeof depositEvents)[number]>;
export type PaymentEvent = EventOf<(typeof paymentEvents)[number]>;
export type MemoryEvent = EventOf<(typeof memoryEvents)[number]>;
export type AgentClientEvent = EventOf<(typeof agentClientEvents)[number]>;
export type AgentGrantEvent = EventOf<(typeof agentGrantEvents)[number]>;
export type DomainEvent = EventOf<(typeof allEvents)[number]>;
