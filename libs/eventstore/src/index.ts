export * from './errors';
export * from './stream-definition';
export * from './commit-codec';
export * from './data-keys';
export * from './personal-data-cipher';
export * from './event-store';
export * from './nats-connection';
export * from './open-event-store';
