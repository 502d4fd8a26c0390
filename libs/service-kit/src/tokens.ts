/** What every service's modules inject: the process's configuration, logger and connections. */
export const CONFIG = Symbol('CONFIG');
export const LOGGER = Symbol('LOGGER');
export const NATS = Symbol('NATS');
export const EVENT_STORE = Symbol('EVENT_STORE');
export const DATABASE = Symbol('DATABASE');
export const POSITION_TRACKER = Symbol('POSITION_TRACKER');
export const REDIS = Symbol('REDIS');
