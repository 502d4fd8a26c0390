export * from './errors';
export * from './stream-definition';
export * from './commit-codec';
export * from './event-store';
export * from './aggregate-cache';
export * from './decider-runner';
export * from './nats-connection';
export * from './open-event-store';
