export { startProviderSandbox } from './sandbox-server';
export type { ProviderSandbox, ProviderSandboxOptions } from './sandbox-server';
export type { RecordedRequest, SandboxControl } from './sandbox-control';
export { providerOperations } from './faults';
export type { FaultMode, FaultOptions, ProviderOperation } from './faults';
export type { IssuedSession } from './identity';
export type { FailureStage, OrderWire, WebhookOrder } from './order-book';
export type { DeliveryAttempt, MessageState, WebhookMessage, WebhookTarget } from './webhook-sender';
export { ProviderApiError } from './provider-api-error';
