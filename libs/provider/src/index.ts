export * from './provider-client';
export * from './provider-error';
export { defaultRetryPolicy } from './http';
export type { ProviderHttpOptions, RetryPolicy } from './http';
export * from './order-schemas';
export * from './wallet-schemas';
export * from './session-schemas';
export * from './webhook-schemas';
export * from './locators';
