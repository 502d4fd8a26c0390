export { CONFIG, DATABASE, EVENT_STORE, LOGGER, NATS, POSITION_TRACKER, REDIS } from '@shop/service-kit';
export const READ_DB = Symbol('READ_DB');
export const RATE_LIMITER = Symbol('RATE_LIMITER');
/** Session refreshes a client address may start without a valid session. */
export const REFRESH_RATE_LIMITER = Symbol('REFRESH_RATE_LIMITER');
export const PROVIDER = Symbol('PROVIDER');
export const WALLET_VAULT = Symbol('WALLET_VAULT');
export const DATA_KEYS = Symbol('DATA_KEYS');
export const PRODUCT_SEARCH = Symbol('PRODUCT_SEARCH');
export const CHAT_MODEL = Symbol('CHAT_MODEL');
export const MEMORY_STORE = Symbol('MEMORY_STORE');
export const SUI_CLIENT = Symbol('SUI_CLIENT');
export const CART_CONTRACT = Symbol('CART_CONTRACT');
