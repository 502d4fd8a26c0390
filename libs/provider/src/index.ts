export * from './provider-client';
export * from './provider-error';
export type { ProviderHttpOptions } from './http';
export * from './order-schemas';
export * from './wallet-schemas';
export * from './session-schemas';
export * from './webhook-schemas';
export * from './locators';
