export {
  CONFIG,
  DATABASE,
  DECIDER_RUNNER,
  EVENT_STORE,
  LOGGER,
  NATS,
  POSITION_TRACKER,
  REDIS,
} from '@shop/service-kit';
export const SEARCH_DB = Symbol('SEARCH_DB');
